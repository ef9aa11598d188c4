// GitHub Actions workflow commands: `::error file=...,line=...::message`, one per finding.
#include "emit/emitters.h"

#include "core/printable.h"

namespace cudnnlint {

namespace {

// Escaping per the runner's command parser (actions/toolkit command.ts): %, CR and LF. The other
// control characters (ESC's colour and hide sequences, which the Actions log renders) are shown
// as escapes, as the text report shows them (core/printable.h).
std::string escape_data(std::string_view text) {
  std::string out;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    if (i < text.size() && text[i] != '\r' && text[i] != '\n') continue;
    for (char c : printable(text.substr(start, i - start))) {
      if (c == '%') out += "%25";
      else out += c;
    }
    if (i < text.size()) out += text[i] == '\r' ? "%0D" : "%0A";
    start = i + 1;
  }
  return out;
}

std::string escape_property(std::string_view text) {
  std::string out;
  for (char c : escape_data(text)) {
    if (c == ':') out += "%3A";
    else if (c == ',') out += "%2C";
    else out += c;
  }
  return out;
}

const char* command_for(Level level) {
  switch (level) {
    case Level::Error: return "error";
    case Level::Warning: return "warning";
    case Level::Note: return "notice";
  }
  return "warning";
}

}  // namespace

void write_github(std::ostream& out, const Report& report) {
  for (const Finding& f : report.result.findings) {
    const auto& r = f.location.range;
    out << "::" << command_for(f.level) << " file=" << escape_property(f.location.path);
    // In a notebook: the .ipynb file's lines (its columns are the JSON's, not the code's), and the
    // cell in the message.
    if (f.notebook)
      out << ",line=" << f.notebook->file_line << ",endLine=" << f.notebook->file_end_line;
    else
      out << ",line=" << r.begin.line << ",col=" << r.begin.column << ",endLine=" << r.end.line
          << ",endColumn=" << r.end.column;
    const std::string cell = f.notebook ? " (cell " + std::to_string(f.notebook->cell) + ", line " +
                                              std::to_string(f.notebook->line) + ")"
                                        : "";
    out << ",title=" << escape_property("cudnnlint " + f.rule_id) << "::"
        << escape_data(full_message(f) + " (" + f.kb_id + ")" + cell) << '\n';
  }
  for (const auto& d : report.result.diagnostics) {
    out << "::warning file=" << escape_property(d.path);
    if (d.position) out << ",line=" << d.position->line << ",col=" << d.position->column;
    out << ",title=cudnnlint input::" << escape_data(d.message) << '\n';
  }
}

}  // namespace cudnnlint
