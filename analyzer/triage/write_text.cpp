// The triage report for people (`cudnnlint triage LOG [PATH...]`). What comes from the log or the
// tree (error lines, frames, file names, findings) goes through printable(): a hostile log must
// not print a GitHub workflow command or an ESC sequence.
#include "core/printable.h"
#include "kb/kb.h"
#include "triage/report.h"

#include <nlohmann/json.hpp>

#include <sstream>

namespace cudnnlint::triage {

namespace {

constexpr std::size_t kCandidatesShown = 5;
constexpr std::size_t kFailuresListed = 5;

// At most `max` bytes of `text`, printable.
std::string cut(std::string_view text, std::size_t max) {
  if (text.size() <= max) return printable(text);
  return printable(text.substr(0, max)) + "...";
}

std::string string_field(const nlohmann::json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

void write_indented(std::ostream& out, std::string_view text, std::string_view indent) {
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    out << indent << text.substr(start, end - start) << '\n';
    if (end == text.size()) break;
    start = end + 1;
  }
}

std::string target_text(const Target& target) {
  std::string text = target.describe_cudnn();
  for (const auto& [name, version] : target.frameworks) {
    text.append(", ").append(name);
    if (version) text.append(" ").append(version->str());
    else text.append(" (version unknown)");
  }
  return text;
}

}  // namespace

void write_text(std::ostream& out, const TriageReport& report) {
  const LogScan& scan = report.scan;
  out << "cudnnlint triage: " << printable(report.log_name) << " (" << scan.lines << (scan.lines == 1 ? " line, " : " lines, ")
      << scan.bytes << " bytes)\n";
  if (scan.bytes == 0) {
    out << "\nThe log is empty: nothing to triage. Pass the file the failed job wrote (or - for standard input).\n";
    return;
  }
  if (scan.binary) {
    out << "\nThis is not a text log (a NUL byte at offset " << scan.first_nul
        << ", or mostly control bytes): nothing to triage. Pass the job's text output.\n";
    return;
  }
  if (scan.failures_dropped > 0)
    out << "(" << scan.failures_dropped << " failures in the middle of the log were not kept; the first and last "
        << kMaxFailures / 2 << " were)\n";

  const Recognition& recognition = report.recognition;
  if (!recognition.primary) {
    out << "\nNo failure in the log matches a knowledge-base entry.\n";
    if (scan.failures.empty()) {
      out << "The log holds no error line that cudnnlint reads (Python exceptions, `cuDNN error:`, `CUDA error:`, "
             "CUDNN_STATUS_* names, TensorFlow `Check failed` lines).\n";
    } else {
      out << "Error lines it holds:\n";
      for (std::size_t i = 0; i < scan.failures.size() && i < kFailuresListed; ++i)
        out << "  log line " << scan.failures[i].where.line << ": " << cut(scan.failures[i].text, 200) << '\n';
    }
    out << "`cudnnlint " << (report.analysis.files_discovered ? "." : "PATH")
        << "` still reports what the code itself sets up; `cudnnlint rules` lists what it knows.\n";
    return;
  }

  const Failure& primary = scan.failures[*recognition.primary];
  out << "\nFailure (log line " << primary.where.line << "): " << cut(primary.text, 300) << '\n';
  for (std::size_t i = 0; i < primary.context.size() && i < 3; ++i)  // TF's op, cuDNN's call, a wrapped message
    out << "    " << cut(primary.context[i], 200) << '\n';
  if (primary.repeats > 0) out << "  (" << primary.repeats << " more such lines right after it)\n";
  for (std::size_t i = *recognition.primary + 1; i < scan.failures.size() && i <= *recognition.primary + 3; ++i)
    out << "  then, log line " << scan.failures[i].where.line << ": " << cut(scan.failures[i].text, 200) << '\n';
  for (const std::string& note : recognition.notes) out << "  " << printable(note) << '\n';

  out << "\nKnowledge-base entries, best first:\n";
  for (std::size_t i = 0; i < recognition.candidates.size() && i < kCandidatesShown; ++i) {
    const Candidate& c = recognition.candidates[i];
    std::ostringstream score;
    score << c.score;
    out << "  " << i + 1 << ". " << c.entry->id << " (score " << score.str() << "): "
        << cut(kb::short_description(*c.entry), 160) << '\n';
    for (std::size_t e = 0; e < c.evidence.size() && e < 2; ++e) {
      const Evidence& ev = c.evidence[e];
      out << "       matched " << (ev.kind == Evidence::Kind::Regex ? "its regex" : ev.kind == Evidence::Kind::Alias ? "an alias" : "its status")
          << " on log line " << ev.where.line << ": \"" << cut(ev.matched, 100) << "\"\n";
    }
    for (const std::string& boost : c.boosts) out << "       raised by " << printable(boost) << '\n';
    if (i == 0 && recognition.candidates.size() > 1 && recognition.candidates[1].score == c.score)
      out << "       ties with " << recognition.candidates[i + 1].entry->id
          << ": the log alone cannot tell them apart (the code, or the run, decides)\n";
  }
  if (recognition.candidates.size() > kCandidatesShown)
    out << "  (" << recognition.candidates.size() - kCandidatesShown << " more in -f json)\n";
  out << "  `cudnnlint explain " << recognition.candidates.front().entry->id << "` prints the entry.\n";

  out << "\nFrames (outermost first";
  std::size_t failing = report.frames.size();
  for (std::size_t i = 0; i < report.frames.size(); ++i)
    if (!report.frames[i].file.empty()) failing = i;
  out << (failing < report.frames.size() ? "; > marks the failing frame in the tree):\n" : "):\n");
  if (report.frames.empty()) out << "  the log gives no Python frames for this failure\n";
  for (std::size_t i = 0; i < report.frames.size(); ++i) {
    const MappedFrame& m = report.frames[i];
    out << (i == failing ? "  > " : "    ") << printable(m.frame.path) << ':' << m.frame.line;
    if (!m.frame.function.empty()) out << " in " << printable(m.frame.function);
    if (!m.file.empty()) {
      out << "  ->  " << printable(m.file) << ':' << m.frame.line;
      if (m.components == 1 && path_components(m.frame.path).size() > 1) out << " (by the file name alone)";
      if (!m.others.empty()) out << " (as likely: " << printable(m.others.front()) << (m.others.size() > 1 ? ", ..." : "") << ")";
    } else {
      out << (m.library ? "  (a library: not in the tree)" : "  (not in the tree)");
    }
    out << '\n';
    if (!m.frame.code.empty()) out << "        " << cut(m.frame.code, 160) << '\n';
    if (!m.drift.empty()) out << "        (!) " << printable(m.drift) << '\n';
  }

  out << "\nFindings that may explain it (" << report.analysis.files_discovered << " files analysed";
  if (!report.related_files.empty())
    out << "; " << report.related_files.size()
        << (report.related_files.size() == 1 ? " holds or feeds" : " hold or feed") << " the failing frames";
  out << "):\n";
  if (report.findings.empty()) out << "  none\n";
  for (std::size_t i = 0; i < report.findings.size(); ++i) {
    const RankedFinding& ranked = report.findings[i];
    const Finding& f = report.analysis.findings[ranked.finding];
    out << "  " << i + 1 << ". " << printable(f.location.path) << ':' << f.location.range.begin.line << ':'
        << f.location.range.begin.column << ": " << level_name(f.level) << ": " << cut(f.message, 300) << " ["
        << f.rule_id << "]\n";
    for (const std::string& reason : ranked.reasons) out << "       why: " << printable(reason) << '\n';
    for (const RelatedLocation& related : f.related)
      out << "       provenance: " << printable(related.where.path) << ':' << related.where.range.begin.line << ": "
          << cut(related.message, 200) << '\n';
  }

  const auto workarounds = workarounds_of(report);
  const std::string& top = recognition.candidates.front().entry->id;
  if (!report.explained) {
    out << "\nNothing the analysis found in the code explains this failure.";
    out << (failing < report.frames.size() ? "" : " No frame of the log maps onto the tree.");
    out << "\nRun-time checks and workarounds the KB recommends (" << top << "; target: " << target_text(report.analysis.target)
        << "):\n";
  } else {
    out << "\nWhat to do (" << top << "; target: " << target_text(report.analysis.target) << "):\n";
  }
  if (workarounds.empty()) out << "  the entry lists none\n";
  for (const nlohmann::json* w : workarounds) {
    out << "  - " << string_field(*w, "action");
    if (const std::string condition = string_field(*w, "condition"); !condition.empty()) out << " [when: " << condition << "]";
    out << '\n';
    const std::string how = string_field(*w, "how");
    if (!how.empty() && how != string_field(*w, "action")) write_indented(out, how, "      ");
  }
}

}  // namespace cudnnlint::triage
