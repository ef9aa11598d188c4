#include "triage/run_triage.h"

#include "cli/output.h"
#include "core/printable.h"
#include "emit/emitters.h"
#include "triage/report.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>

namespace cudnnlint::triage {

namespace {

// The log's triage, from its file or standard input ("-"); nullopt after saying why on stderr
// when it cannot be read.
std::optional<TriageReport> triage_log(const std::string& log_path, const AnalysisOptions& options) {
  std::ifstream file;
  std::istream* log = &std::cin;
  std::string name = "<stdin>";
  if (log_path != "-") {
    std::error_code ec;
    if (std::filesystem::is_directory(log_path, ec)) {
      std::cerr << "cudnnlint: error: " << printable(log_path) << ": is a directory, not a log (the tree goes after it: "
                << "cudnnlint triage LOG PATH)\n";
      return std::nullopt;
    }
    file.open(log_path, std::ios::binary);
    if (!file) {
      std::cerr << "cudnnlint: error: " << printable(log_path) << ": cannot read the log: " << std::strerror(errno) << '\n';
      return std::nullopt;
    }
    log = &file;
    name = log_path;
  }
  try {
    return triage(*log, name, options);
  } catch (const std::runtime_error& e) {
    std::cerr << "cudnnlint: error: " << printable(name) << ": cannot read the log: " << e.what() << '\n';
    return std::nullopt;
  }
}

void write_report(const cli::CommandLine& line, const TriageReport& report) {
  cli::ReportOutput output(line.output_file);
  std::ostream& out = output.stream();
  if (line.format == "json") {
    write_json(out, report);
  } else if (line.format == "sarif") {
    write_sarif(out, report, cli::source_root_or_found(line.source_root_text));
  } else {
    std::ostringstream rendered;
    write_text(rendered, report);
    out << valid_utf8(rendered.str());
  }
  output.finish();
}

// The analysis's diagnostics about the files that hold or feed the failing frames; the others
// (a tree's unrelated C templates that clang cannot parse, say) are counted, not listed.
void write_relevant_diagnostics(const TriageReport& report, const AnalysisOptions& options) {
  AnalysisResult relevant;
  std::size_t elsewhere = 0;
  for (const FileDiagnostic& d : report.analysis.diagnostics) {
    const bool related = d.path.empty() || std::find(report.related_files.begin(), report.related_files.end(), d.path) !=
                                               report.related_files.end();
    const bool named = std::find(options.paths.begin(), options.paths.end(), d.path) != options.paths.end();
    if (related || named) relevant.diagnostics.push_back(d);
    else ++elsewhere;
  }
  std::ostringstream diagnostics;
  write_diagnostics(diagnostics, relevant, false);
  std::cerr << valid_utf8(diagnostics.str());
  if (elsewhere > 0)
    std::cerr << "cudnnlint: " << cli::plural(elsewhere, "warning") << " about files away from the failing frames not shown "
              << "(`cudnnlint PATH` lists them)\n";
}

}  // namespace

int run_triage(const cli::CommandLine& line) {
  if (line.format != "text" && line.format != "json" && line.format != "sarif")
    throw std::invalid_argument("triage writes text, json or sarif, not " + line.format);
  const std::vector<std::string> paths = line.triage_paths.empty() ? std::vector<std::string>{"."} : line.triage_paths;
  // Checked as an analysis run checks them (the baseline and fail level are read, not used).
  const cli::PreparedAnalysis prepared = cli::prepare_analysis(line, paths);
  const std::optional<TriageReport> report = triage_log(line.triage_log, prepared.options);
  if (!report) return cli::kExitError;
  write_report(line, *report);
  write_relevant_diagnostics(*report, prepared.options);
  return cli::kExitClean;
}

}  // namespace cudnnlint::triage
