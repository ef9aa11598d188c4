// GitHub Actions workflow commands: `::error file=...,line=...::message`, one per finding.
#include "emit/emitters.h"

namespace cudnnlint {

namespace {

// Escaping per the runner's command parser (actions/toolkit command.ts).
std::string escape_data(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '%') out += "%25";
    else if (c == '\r') out += "%0D";
    else if (c == '\n') out += "%0A";
    else out += c;
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
    out << "::" << command_for(f.level) << " file=" << escape_property(f.location.path) << ",line=" << r.begin.line
        << ",col=" << r.begin.column << ",endLine=" << r.end.line << ",endColumn=" << r.end.column
        << ",title=" << escape_property("cudnnlint " + f.rule_id) << "::"
        << escape_data(f.message + " (" + f.kb_id + ")") << '\n';
  }
  for (const auto& d : report.result.diagnostics) {
    out << "::warning file=" << escape_property(d.path);
    if (d.position) out << ",line=" << d.position->line << ",col=" << d.position->column;
    out << ",title=cudnnlint input::" << escape_data(d.message) << '\n';
  }
}

}  // namespace cudnnlint
