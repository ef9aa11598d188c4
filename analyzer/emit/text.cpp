// Compiler-style text: `path:line:col: level: message [rule] (kb id)`, a source excerpt with
// a caret line, the provenance as notes, and a summary. Colour only when asked (a TTY).
#include "core/printable.h"
#include "core/source_file.h"
#include "emit/emitters.h"
#include "emit/replay_json.h"

#include "rules/rule.h"

#include <algorithm>
#include <iomanip>
#include <map>

namespace cudnnlint {

namespace {

struct Palette {
  bool on;
  const char* bold() const { return on ? "\033[1m" : ""; }
  const char* reset() const { return on ? "\033[0m" : ""; }
  const char* level(Level level) const {
    if (!on) return "";
    switch (level) {
      case Level::Error: return "\033[1;31m";
      case Level::Warning: return "\033[1;35m";
      case Level::Note: return "\033[1;36m";
    }
    return "";
  }
  const char* dim() const { return on ? "\033[2m" : ""; }
};

// "12:5", or in a notebook "cell 3:2:5" (the line in the cell, as Ruff writes it).
std::string line_and_column(const Position& at, const std::optional<NotebookPlace>& notebook) {
  const std::string line_column =
      std::to_string(notebook ? notebook->line : at.line) + ':' + std::to_string(at.column);
  return notebook ? "cell " + std::to_string(notebook->cell) + ':' + line_column : line_column;
}

void write_excerpt(std::ostream& out, const Finding& finding, const Palette& p) {
  if (finding.source_line.empty()) return;
  const auto& begin = finding.location.range.begin;
  const auto& end = finding.location.range.end;
  const std::string number = std::to_string(finding.notebook ? finding.notebook->line : begin.line);
  const std::string gutter(number.size(), ' ');
  std::string line = finding.source_line;
  std::replace(line.begin(), line.end(), '\t', ' ');
  out << p.dim() << ' ' << number << " | " << p.reset() << printable(line) << '\n';
  const std::size_t line_width = codepoint_length(line);
  const std::size_t start = begin.column > 0 ? begin.column - 1 : 0;
  std::size_t width = (end.line == begin.line && end.column > begin.column) ? end.column - begin.column
                                                                            : line_width - std::min(line_width, start);
  width = std::max<std::size_t>(width, 1);
  // The caret under the printed line: an escaped control character before or in the span
  // widens it.
  const std::size_t shown_start = printable_columns(line, start);
  const std::size_t shown_width = printable_columns(line, start + width) - shown_start;
  out << p.dim() << ' ' << gutter << " | " << p.reset() << std::string(shown_start, ' ') << p.level(finding.level)
      << std::string(shown_width, '^') << p.reset() << '\n';
}

}  // namespace

namespace {

// The closing line: how many findings of each level in how many files, what was left out.
void write_summary(std::ostream& out, const Report& report) {
  std::size_t counts[3] = {0, 0, 0};
  for (const Finding& f : report.result.findings) ++counts[static_cast<int>(f.level)];
  const std::size_t total = report.result.findings.size();
  // Nothing was read because a named path is missing: the error said so; "No findings in 0
  // files" would read as a clean run.
  if (report.result.usage_error && report.result.files_discovered == 0 && total == 0) return;
  out << (total == 0 ? "No findings" : std::to_string(total) + (total == 1 ? " finding" : " findings"));
  if (total != 0)
    out << " (" << counts[2] << " error" << (counts[2] == 1 ? "" : "s") << ", " << counts[1] << " warning"
        << (counts[1] == 1 ? "" : "s") << ", " << counts[0] << " note" << (counts[0] == 1 ? "" : "s") << ")";
  out << " in " << report.result.files_discovered << (report.result.files_discovered == 1 ? " file" : " files");
  if (report.result.suppressed != 0) out << "; " << report.result.suppressed << " suppressed inline";
  if (report.result.baselined != 0) out << "; " << report.result.baselined << " in the baseline";
  out << ".\n";
  if (report.result.gpu_check) out << summary_line(*report.result.gpu_check) << '\n';
}

}  // namespace

std::vector<RuleCount> rule_counts(const std::vector<Finding>& findings) {
  std::map<std::string, RuleCount> by_rule;
  for (const Finding& f : findings) {
    auto [it, added] = by_rule.try_emplace(f.rule_id);
    RuleCount& count = it->second;
    if (added) {
      count.rule_id = f.rule_id;
      count.level = f.level;
      if (const RuleInfo* rule = find_rule(f.rule_id)) count.summary = std::string(rule->summary);
    }
    count.level = std::max(count.level, f.level);
    ++count.count;
  }
  std::vector<RuleCount> out;
  for (auto& [id, count] : by_rule) out.push_back(std::move(count));
  std::stable_sort(out.begin(), out.end(), [](const RuleCount& a, const RuleCount& b) { return a.count > b.count; });
  return out;
}

void write_concise(std::ostream& out, const Report& report, bool color) {
  const Palette p{color};
  for (const Finding& f : report.result.findings) {
    out << p.bold() << printable(f.location.path) << ':' << line_and_column(f.location.range.begin, f.notebook) << ':'
        << p.reset() << ' ' << p.level(f.level) << level_name(f.level) << ':' << p.reset() << ' ' << f.rule_id << ' '
        << printable(f.message);
    if (f.gpu_check) out << " [gpu_check: " << verdict_line(*f.gpu_check) << ']';
    out << '\n';
  }
  write_summary(out, report);
}

void write_grouped(std::ostream& out, const Report& report, bool color) {
  const Palette p{color};
  const std::string* file = nullptr;
  for (const Finding& f : report.result.findings) {
    if (file == nullptr || *file != f.location.path) {
      if (file != nullptr) out << '\n';
      file = &f.location.path;
      out << p.bold() << printable(f.location.path) << ':' << p.reset() << '\n';
    }
    out << "  " << line_and_column(f.location.range.begin, f.notebook) << ' ' << p.level(f.level) << level_name(f.level) << p.reset() << ' '
        << f.rule_id << ' ' << printable(f.message) << '\n';
  }
  if (file != nullptr) out << '\n';
  write_summary(out, report);
}

void write_statistics(std::ostream& out, const Report& report) {
  for (const RuleCount& count : rule_counts(report.result.findings))
    out << std::setw(5) << count.count << "  " << std::left << std::setw(36) << count.rule_id << std::right << ' '
        << std::setw(7) << std::left << level_name(count.level) << std::right << "  " << count.summary << '\n';
  write_summary(out, report);
}

void write_text(std::ostream& out, const Report& report, bool color) {
  const Palette p{color};
  for (const Finding& f : report.result.findings) {
    // File names, messages (which quote config keys and source) and notes come from the tree:
    // printable() keeps their control characters from reaching the terminal or the CI log.
    out << p.bold() << printable(f.location.path) << ':' << line_and_column(f.location.range.begin, f.notebook) << ':'
        << p.reset() << ' '
        << p.level(f.level) << level_name(f.level) << ':' << p.reset() << ' ' << printable(f.message) << " ["
        << f.rule_id << "] (" << f.kb_id << ")\n";
    write_excerpt(out, f, p);
    if (!f.detail.empty()) out << "  " << p.dim() << "why:" << p.reset() << ' ' << printable(f.detail) << '\n';
    for (const auto& related : f.related) {
      out << "  " << p.dim() << "note:" << p.reset() << ' ' << printable(related.message) << " ("
          << printable(related.where.path) << ':' << line_and_column(related.where.range.begin, related.notebook)
          << ")\n";
    }
    if (!f.target_note.empty())
      out << "  " << p.dim() << "target:" << p.reset() << ' ' << printable(f.target_note) << '\n';
    if (f.gpu_check) out << "  " << p.dim() << "gpu_check:" << p.reset() << ' ' << verdict_line(*f.gpu_check) << '\n';
    if (f.fix)
      out << "  " << p.dim() << "fix:" << p.reset() << ' ' << printable(f.fix->description)
          << (f.fix->safe ? " (--fix applies it)" : " (unsafe: changes behaviour; --fix --unsafe-fixes applies it)")
          << '\n';
    out << "  " << p.dim() << "explain:" << p.reset() << " cudnnlint explain " << f.kb_id << '\n';
  }
  write_summary(out, report);
}

void write_diagnostics(std::ostream& out, const AnalysisResult& result, bool color) {
  const Palette p{color};
  // Files that miss a header: one line per folder of the tree that holds such headers (with the -I
  // that finds them), or per header from outside the tree, naming how many files and the flag that
  // would help; the per-file detail stays in the JSON and SARIF notifications.
  struct MissingHeaders {
    std::vector<std::string> headers;
    std::size_t files = 0;
    std::string first_path;
    bool from_compile_command = false;
  };
  std::map<std::string, MissingHeaders> missing;  // by include folder, or by header
  for (const FileDiagnostic& d : result.diagnostics) {
    if (d.missing_header.empty()) continue;
    MissingHeaders& m = missing[d.include_dir.empty() ? "\x01" + d.missing_header : d.include_dir];
    if (m.files++ == 0) m.first_path = d.path;
    if (std::find(m.headers.begin(), m.headers.end(), d.missing_header) == m.headers.end())
      m.headers.push_back(d.missing_header);
    m.from_compile_command |= d.from_compile_command;
  }
  for (const auto& [key, m] : missing) {
    const bool in_tree = key.front() != '\x01';
    std::string names;
    for (std::size_t i = 0; i < m.headers.size() && i < 3; ++i)
      names += (i > 0 ? ", '" : "'") + printable(m.headers[i]) + "'";
    if (m.headers.size() > 3) names += " and " + std::to_string(m.headers.size() - 3) + " more";
    const std::string fix = in_tree ? "they are in " + printable(key) + ": --extra-arg=-I" + printable(key)
                                    : "--extra-arg=-I<the directory holding it>";
    out << p.bold() << printable(m.first_path) << (m.files > 1 ? " and " + std::to_string(m.files - 1) + " more" : "") << ':'
        << p.reset() << ' ' << p.level(Level::Warning) << "warning:" << p.reset() << ' ' << names << " not found for "
        << m.files << (m.files == 1 ? " file" : " files") << "; "
        << (m.from_compile_command ? fix : "no compile command: pass -p <build dir> with a compile_commands.json, or " + fix)
        << "; findings there come from the recovered AST (each file: -f json or -f sarif) [input]\n";
  }
  // Files parsed with cudnnlint's stand-in for a header they include (libtorch's, Catch2's): one
  // line per header, with how many of them clang still reported errors for.
  struct StoodIn {
    std::size_t files = 0;
    std::size_t with_errors = 0;
    std::string first_path;
  };
  std::map<std::string, StoodIn> stood_in;
  for (const FileDiagnostic& d : result.diagnostics) {
    if (d.stand_in.empty() || !d.missing_header.empty()) continue;
    StoodIn& s = stood_in[d.stand_in];
    if (s.files++ == 0) s.first_path = d.path;
    if (d.message.find("clang reported") != std::string::npos) ++s.with_errors;
  }
  for (const auto& [header, s] : stood_in) {
    const bool cudnn = header == "cudnn.h";
    const bool libtorch = !cudnn && !header.starts_with("catch") && !header.starts_with("gtest");
    const char* api = cudnn ? "cuDNN API" : libtorch ? "libtorch API" : "test macros";
    const char* real = cudnn ? "the CUDA toolkit with cuDNN, an nvidia-cudnn wheel in the active Python environment "
                               "(found by itself), or --extra-arg=-I<cudnn>/include,"
                       : libtorch ? "--extra-arg=-I<libtorch>/include --extra-arg=-I<libtorch>/include/torch/csrc/api/include"
                                  : "--extra-arg=-I<the directory holding it>";
    out << p.bold() << printable(s.first_path) << (s.files > 1 ? " and " + std::to_string(s.files - 1) + " more" : "") << ':'
        << p.reset() << ' ' << p.level(Level::Warning) << "warning:" << p.reset() << " '" << header
        << "' not found for " << s.files << (s.files == 1 ? " file" : " files")
        << ": parsed with cudnnlint's declarations of the " << api << " its rules read";
    if (s.with_errors > 0)
      out << " (clang reported errors for names outside them in " << s.with_errors << " of them; findings there "
          << "come from the recovered AST)";
    out << "; " << real << " or -p <build dir> gives the real headers (each file: -f json or -f sarif) [input]\n";
  }
  for (const FileDiagnostic& d : result.diagnostics) {
    if (!d.missing_header.empty() || !d.stand_in.empty()) continue;
    const Level level = d.severity == FileDiagnostic::Severity::Error ? Level::Error : Level::Warning;
    out << p.bold() << printable(d.path);
    if (d.position) out << ':' << d.position->line << ':' << d.position->column;
    out << ':' << p.reset() << ' ' << p.level(level) << level_name(level) << ':' << p.reset() << ' '
        << printable(d.message) << " [input]\n";
  }
}

}  // namespace cudnnlint
