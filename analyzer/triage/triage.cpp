#include "triage/triage.h"

#include "discovery/discovery.h"
#include "engine/import_closure.h"
#include "core/source_file.h"
#include "kb/kb.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>

namespace cudnnlint::triage {

namespace {

// Finding scores. Place: in the failing (innermost mapped) frame's file, in another frame's file,
// in a file those import. Line distance to the frame lowers the place score, up to kMaxDistance.
constexpr double kFailingFrameFile = 100.0;
constexpr double kOtherFrameFile = 80.0;
constexpr double kImportedFile = 40.0;
constexpr double kMaxDistancePenalty = 30.0;
constexpr double kEntryIsTop = 50.0;
constexpr double kEntryIsCandidate = 25.0;
constexpr double kElsewhereButTopEntry = 15.0;  // anywhere in the tree, with the recognised entry
// What a finding near the failing frames adds to its entry's candidate score.
constexpr double kBoostFromFrameFile = 6.0;
constexpr double kBoostFromImportedFile = 3.0;
constexpr std::size_t kMaxFindings = 10;

struct Place {
  double score = 0.0;
  std::string reason;
};

// How close a finding (or one of its provenance locations) is to the mapped frames.
Place place_of(const Location& where, const std::vector<MappedFrame>& frames, std::size_t failing,
               const std::set<std::string, std::less<>>& imported) {
  Place best;
  for (std::size_t i = 0; i < frames.size(); ++i) {
    const MappedFrame& frame = frames[i];
    if (frame.file.empty() || frame.file != where.path) continue;
    const std::size_t line = where.range.begin.line;
    const std::size_t at = frame.tree_line != 0 ? frame.tree_line : frame.frame.line;  // where the code is now
    const std::size_t distance = at > line ? at - line : line - at;
    const double base = i == failing ? kFailingFrameFile : kOtherFrameFile;
    const double score = base - std::min(kMaxDistancePenalty, static_cast<double>(distance) / 2.0);
    if (score > best.score) {
      best.score = score;
      best.reason = std::string(i == failing ? "in the failing frame's file" : "in a frame's file") + " (" +
                    frame.file + ":" + std::to_string(at) + "), " +
                    (distance == 0 ? std::string("on the frame's line")
                                   : std::to_string(distance) + (distance == 1 ? " line " : " lines ") +
                                         (line < at ? "above" : "below"));
    }
  }
  if (best.score == 0.0 && imported.count(where.path) != 0) {
    best.score = kImportedFile;
    best.reason = "in " + where.path + ", which the failing frames' files import";
  }
  return best;
}

}  // namespace

std::vector<const nlohmann::json*> workarounds_of(const TriageReport& report) {
  std::vector<const nlohmann::json*> out;
  if (report.recognition.candidates.empty()) return out;
  const nlohmann::json& data = *report.recognition.candidates.front().entry->data;
  if (const auto it = data.find("workarounds"); it != data.end() && it->is_array())
    for (const auto& item : *it) {
      if (!item.is_object()) continue;
      // Running cudnnlint on the tree, or triage on the log, is what this report has just done.
      const std::string how = item.value("how", "");
      if (how.find("cudnnlint triage") != std::string::npos || how.starts_with("cudnnlint ")) continue;
      out.push_back(&item);
    }
  return out;
}

TriageReport triage(std::istream& log, std::string log_name, const AnalysisOptions& analysis) {
  TriageReport report;
  report.log_name = std::move(log_name);
  report.scan = scan_log(log);
  report.recognition = recognise(report.scan, kb::entries());

  // The tree: every file the command line would analyse.
  const DiscoveryResult discovered = discover(analysis.paths, analysis.discovery);
  const TreeIndex tree(discovered.files);
  std::size_t failing = 0;  // the innermost frame that maps onto the tree
  if (report.recognition.frames_from) {
    // A file is read once, however many frames fall in it (a recursive model: hundreds).
    std::map<std::string, std::optional<std::string>, std::less<>> texts;
    for (const Frame& frame : report.scan.failures[*report.recognition.frames_from].frames) {
      MappedFrame mapped = tree.map(frame);
      if (!mapped.file.empty()) {
        auto [text, fresh] = texts.try_emplace(mapped.file);
        if (fresh) text->second = read_file_bytes(mapped.file);
        if (text->second) check_against_tree(mapped, *text->second);
      }
      report.frames.push_back(std::move(mapped));
    }
    for (std::size_t i = 0; i < report.frames.size(); ++i)
      if (!report.frames[i].file.empty()) failing = i;
  }

  // What the frames' files import: their values may come from there.
  std::set<std::string, std::less<>> frame_files, imported;
  for (const MappedFrame& frame : report.frames)
    if (!frame.file.empty()) frame_files.insert(frame.file);
  for (const std::string& file : frame_files) {
    const ImportClosure closure = import_closure(file, discovered.files, analysis.limits);
    for (const std::string& reached : closure.files)
      if (frame_files.count(reached) == 0) imported.insert(reached);
  }
  report.related_files.assign(frame_files.begin(), frame_files.end());
  report.related_files.insert(report.related_files.end(), imported.begin(), imported.end());

  report.analysis = analyze(analysis);

  // Place first: findings at the frames raise their entry among the candidates.
  std::vector<Place> places(report.analysis.findings.size());
  std::map<std::string, double, std::less<>> boosts;  // entry id -> boost
  std::map<std::string, std::string, std::less<>> boost_reasons;
  for (std::size_t i = 0; i < report.analysis.findings.size(); ++i) {
    const Finding& finding = report.analysis.findings[i];
    Place place = place_of(finding.location, report.frames, failing, imported);
    for (const RelatedLocation& related : finding.related) {
      Place via = place_of(related.where, report.frames, failing, imported);
      if (via.score > place.score) {
        via.reason = "its value comes from " + related.where.path + ":" + std::to_string(related.where.range.begin.line) +
                     ", " + via.reason;
        place = via;
      }
    }
    places[i] = place;
    if (place.score == 0.0 || finding.kb_id.empty()) continue;
    const double boost = place.score >= kOtherFrameFile - kMaxDistancePenalty ? kBoostFromFrameFile : kBoostFromImportedFile;
    if (boost > boosts[finding.kb_id]) {
      boosts[finding.kb_id] = boost;
      boost_reasons[finding.kb_id] = "a finding at " + finding.location.path + ":" +
                                     std::to_string(finding.location.range.begin.line) + " [" + finding.rule_id + "], " +
                                     place.reason;
    }
  }
  auto& candidates = report.recognition.candidates;
  if (report.recognition.primary) {
    // A finding proposes its entry when the entry predicts the status the log reports (the log
    // says BAD_PARAM, the finding says which BAD_PARAM); an entry the top candidate's transition
    // graph names is listed below it; others only confirm a candidate the log already matched.
    const Failure& primary = report.scan.failures[*report.recognition.primary];
    std::string status = cudnn_status_named(primary.text);
    for (const std::string& line : primary.context)
      if (status.empty()) status = cudnn_status_named(line);
    std::set<std::string, std::less<>> neighbours;
    if (!candidates.empty())
      for (const char* list : {"leads_to", "preceded_by", "frequently_confused_with"}) {
        const nlohmann::json& graph = candidates.front().entry->data->value("transition_graph", nlohmann::json::object());
        if (graph.contains(list) && graph.at(list).is_array())
          for (const auto& id : graph.at(list))
            if (id.is_string()) neighbours.insert(id.get<std::string>());
      }
    const double top_score = candidates.empty() ? 0.0 : candidates.front().score;
    for (const auto& [boosted_id, boost] : boosts) {
      const std::string& id = boosted_id;  // a structured binding cannot be captured (C++20 before clang 16)
      auto it = std::find_if(candidates.begin(), candidates.end(), [&](const Candidate& c) { return c.entry->id == id; });
      double add = boost;
      if (it == candidates.end()) {
        if (boost < kBoostFromFrameFile) continue;  // an import's finding confirms, it does not propose
        const kb::Entry* entry = kb::find(id);
        if (entry == nullptr) continue;
        if (!status.empty() && entry->error_code == status) {
        } else if (neighbours.count(id) != 0) {
          add = std::min(boost, top_score * 0.75);
        } else {
          continue;
        }
        candidates.push_back(Candidate{entry, 0.0, {}, {}});
        it = candidates.end() - 1;
      }
      it->score += add;
      it->boosts.push_back(boost_reasons[id]);
    }
    rank(candidates);
  }

  // Then the entry: the recognised failure's, another candidate's, or none.
  const std::string top = candidates.empty() ? std::string() : candidates.front().entry->id;
  for (std::size_t i = 0; i < report.analysis.findings.size(); ++i) {
    const Finding& finding = report.analysis.findings[i];
    RankedFinding ranked{i, places[i].score, {}};
    if (!places[i].reason.empty()) ranked.reasons.push_back(places[i].reason);
    const bool is_top = !top.empty() && finding.kb_id == top;
    const bool is_candidate = std::any_of(candidates.begin(), candidates.end(),
                                          [&](const Candidate& c) { return c.entry->id == finding.kb_id; });
    if (is_top) {
      ranked.score += places[i].score > 0 ? kEntryIsTop : kElsewhereButTopEntry;
      ranked.reasons.push_back("its KB entry " + finding.kb_id + " is the recognised failure's");
    } else if (is_candidate && places[i].score > 0) {
      ranked.score += kEntryIsCandidate;
      ranked.reasons.push_back("its KB entry " + finding.kb_id + " is among the candidates");
    }
    if (places[i].score == 0.0 && !is_top) continue;  // unrelated to this failure
    if (places[i].score > 0 && (is_top || is_candidate)) report.explained = true;
    report.findings.push_back(std::move(ranked));
  }
  std::stable_sort(report.findings.begin(), report.findings.end(),
                   [](const RankedFinding& a, const RankedFinding& b) { return a.score > b.score; });
  if (report.findings.size() > kMaxFindings) report.findings.resize(kMaxFindings);
  return report;
}

}  // namespace cudnnlint::triage
