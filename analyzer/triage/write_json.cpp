// The triage report as one JSON document (`cudnnlint triage -f json`).
#include "emit/emitters.h"
#include "kb/kb.h"
#include "triage/report.h"

#include <nlohmann/json.hpp>

namespace cudnnlint::triage {

namespace {

const char* link_name(Failure::Link link) {
  switch (link) {
    case Failure::Link::DuringHandling: return "during handling of the previous";
    case Failure::Link::DirectCause: return "caused by the previous";
    case Failure::Link::None: break;
  }
  return "";
}

const char* evidence_kind(Evidence::Kind kind) {
  switch (kind) {
    case Evidence::Kind::Regex: return "regex";
    case Evidence::Kind::Alias: return "alias";
    case Evidence::Kind::ErrorCode: return "error_code";
  }
  return "";
}

nlohmann::json frame_json(const Frame& frame) {
  return {{"path", frame.path}, {"line", frame.line}, {"function", frame.function}, {"code", frame.code},
          {"log_line", frame.log_line}};
}

nlohmann::json target_json(const Target& target) {
  nlohmann::json frameworks = nlohmann::json::object();
  for (const auto& [name, version] : target.frameworks)
    frameworks[name] = version ? nlohmann::json(version->str()) : nlohmann::json(nullptr);
  return {{"cudnn", target.cudnn ? nlohmann::json(target.cudnn->str()) : nlohmann::json(nullptr)},
          {"cudnn_source", target.cudnn_source},
          {"frameworks", std::move(frameworks)},
          {"framework_sources", target.framework_sources}};
}

}  // namespace

nlohmann::json to_json(const TriageReport& report) {
  const LogScan& scan = report.scan;
  nlohmann::json failures = nlohmann::json::array();
  for (const Failure& failure : scan.failures) {
    nlohmann::json frames = nlohmann::json::array();
    for (const Frame& frame : failure.frames) frames.push_back(frame_json(frame));
    failures.push_back({{"line", failure.where.line},
                        {"offset", failure.where.offset},
                        {"length", failure.where.length},
                        {"text", failure.text},
                        {"context", failure.context},
                        {"link", link_name(failure.link)},
                        {"repeats", failure.repeats},
                        {"frames", std::move(frames)}});
  }
  nlohmann::json candidates = nlohmann::json::array();
  for (const Candidate& c : report.recognition.candidates) {
    nlohmann::json evidence = nlohmann::json::array();
    for (const Evidence& e : c.evidence)
      evidence.push_back({{"kind", evidence_kind(e.kind)}, {"log_line", e.where.line}, {"matched", e.matched}});
    candidates.push_back({{"id", c.entry->id},
                          {"score", c.score},
                          {"summary", kb::short_description(*c.entry)},
                          {"error_code", c.entry->error_code},
                          {"evidence", std::move(evidence)},
                          {"raised_by", c.boosts}});
  }
  nlohmann::json frames = nlohmann::json::array();
  for (const MappedFrame& m : report.frames) {
    nlohmann::json item = frame_json(m.frame);
    item["file"] = m.file.empty() ? nlohmann::json(nullptr) : nlohmann::json(m.file);
    item["components_matched"] = m.components;
    item["library"] = m.library;
    item["also_matches"] = m.others;
    item["tree_line"] = m.tree_line == 0 ? nlohmann::json(nullptr) : nlohmann::json(m.tree_line);
    item["drift"] = m.drift;
    frames.push_back(std::move(item));
  }
  nlohmann::json findings = nlohmann::json::array();
  for (const RankedFinding& ranked : report.findings) {
    nlohmann::json item = finding_json(report.analysis.findings[ranked.finding]);
    item["triage"] = {{"score", ranked.score}, {"reasons", ranked.reasons}};
    findings.push_back(std::move(item));
  }
  nlohmann::json workarounds = nlohmann::json::array();
  for (const nlohmann::json* w : workarounds_of(report)) workarounds.push_back(*w);
  const auto optional_index = [](const std::optional<std::size_t>& i) {
    return i ? nlohmann::json(*i) : nlohmann::json(nullptr);
  };
  return {
      {"tool", {{"name", "cudnnlint"}, {"version", CUDNNLINT_VERSION}, {"command", "triage"}}},
      {"log",
       {{"name", report.log_name},
        {"bytes", scan.bytes},
        {"lines", scan.lines},
        {"binary", scan.binary},
        {"lines_cut", scan.lines_cut},
        {"failures_dropped", scan.failures_dropped}}},
      {"failures", std::move(failures)},
      {"primary_failure", optional_index(report.recognition.primary)},
      {"frames_from_failure", optional_index(report.recognition.frames_from)},
      {"notes", report.recognition.notes},
      {"candidates", std::move(candidates)},
      {"top_is_tied", report.recognition.candidates.size() > 1 &&
                          report.recognition.candidates[0].score == report.recognition.candidates[1].score},
      {"frames", std::move(frames)},
      {"related_files", report.related_files},
      {"files_analysed", report.analysis.files_discovered},
      {"target", target_json(report.analysis.target)},
      {"findings", std::move(findings)},
      {"explained", report.explained},
      {"workarounds_kind", report.explained ? "workarounds" : "run-time checks and workarounds"},
      {"workarounds", std::move(workarounds)},
  };
}

void write_json(std::ostream& out, const TriageReport& report) {
  out << to_json(report).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
}

}  // namespace cudnnlint::triage
