// `cudnnlint PATH...`: the analysis, and what the command line asks of its result: a report in
// one of the formats, fixes shown or applied, a baseline written or applied, gpu_check verdicts.
#include "cli/output.h"
#include "cli/subcommands.h"

#include "core/printable.h"
#include "core/progress.h"
#include "emit/emitters.h"
#include "emit/unified_diff.h"
#include "engine/fixes.h"
#include "engine/suppress.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <iostream>
#include <span>
#include <sstream>
#include <stdexcept>

namespace cudnnlint::cli {

namespace {

// Says on stderr what the fixes left aside: the unsafe ones without --unsafe-fixes, overlaps.
void note_fixes_left(const FixPlan& plan) {
  if (plan.unsafe_left)
    std::cerr << "cudnnlint: " << plural(plan.unsafe_left, "unsafe fix") << " not applied: --unsafe-fixes includes "
              << (plan.unsafe_left == 1 ? "it" : "them") << " (each changes numerics or behaviour; review the diff)\n";
  if (plan.overlapping)
    std::cerr << "cudnnlint: " << plural(plan.overlapping, "fix") << " overlapping another left for a next run\n";
  for (const auto& file : plan.files)
    if (!file.error.empty())
      std::cerr << "cudnnlint: " << printable(file.path) << ": fixes not applied: " << printable(file.error) << '\n';
}

// --diff: the fixes as a unified diff on stdout; exit 1 when there is one.
int show_fixes(const AnalysisResult& result, bool unsafe, std::span<const std::string> analysed) {
  const FixPlan plan = plan_fixes(result.findings, unsafe, analysed);
  std::size_t fixes = 0, files = 0;
  for (const auto& file : plan.files) {
    const std::string diff = unified_diff(file.path, file.before, file.after);
    if (diff.empty()) continue;
    std::cout << diff;
    fixes += file.applied.size();
    ++files;
  }
  std::cout.flush();
  note_fixes_left(plan);
  std::cerr << "cudnnlint: " << plural(fixes, "fix") << " in " << plural(files, "file") << " (not written: --diff)\n";
  if (result.usage_error) return kExitError;
  return files ? kExitFindings : kExitClean;
}

// --fix: applies and writes the fixes; whether a file changed.
bool apply_fixes(const AnalysisResult& result, bool unsafe, std::span<const std::string> analysed) {
  FixPlan plan = plan_fixes(result.findings, unsafe, analysed);
  write_fixes(plan);
  std::size_t fixes = 0, files = 0;
  for (const auto& file : plan.files) {
    if (!file.error.empty() || file.after == file.before) continue;
    ++files;
    for (const auto& applied : file.applied) {
      std::cerr << "cudnnlint: fixed " << printable(file.path) << ':' << printable(applied) << '\n';
      ++fixes;
    }
  }
  note_fixes_left(plan);
  std::cerr << "cudnnlint: " << plural(fixes, "fix") << " applied in " << plural(files, "file") << '\n';
  return files != 0;
}

// --add-noqa: the suppression comments, written as fixes are (inside the analysed paths, atomically,
// only to files whose bytes are those analysed); exit 0, or 2 when a file could not be written.
int add_suppressions(const AnalysisResult& result, std::span<const std::string> analysed) {
  SuppressionEdits edits = suppression_edits(result.findings);
  FixPlan plan = plan_fixes(edits.edits, true, analysed);
  write_fixes(plan);
  std::size_t lines = 0, files = 0;
  bool failed = false;
  for (const auto& file : plan.files) {
    if (!file.error.empty()) {
      std::cerr << "cudnnlint: " << printable(file.path) << ": no comments added: " << printable(file.error) << '\n';
      failed = true;
      continue;
    }
    if (file.after == file.before) continue;
    ++files;
    lines += file.applied.size();
  }
  for (const auto& skipped : edits.skipped) std::cerr << "cudnnlint: " << printable(skipped) << "; not suppressed\n";
  std::cerr << "cudnnlint: added " << plural(lines, "suppression comment") << " in " << plural(files, "file") << '\n';
  return failed || result.usage_error ? kExitError : kExitClean;
}

// The analysis, with the progress line on stderr when it is a terminal (erased before the report
// and the diagnostics are written).
AnalysisResult analyse(AnalysisOptions& options, bool show_progress) {
  Progress progress(STDERR_FILENO, show_progress);
  options.progress = &progress;
  AnalysisResult result = analyze(options);
  options.progress = nullptr;
  return result;
}

void print_timings(const AnalysisResult& result, std::chrono::steady_clock::time_point started) {
  std::cerr << "timings: analysis " << std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count()
            << " s, of which the project step " << result.project_seconds << " s (" << result.project_rounds
            << " extra passes, " << result.project_apis << " project callables); parsed " << result.bytes_parsed
            << " of " << result.bytes_read << " bytes read, and " << result.project_bytes_parsed
            << " more in the project step"
            << (result.cache_summary.empty() ? std::string() : "; cache: " + result.cache_summary) << "\n";
}

// --write-baseline: records the findings and says so; exit 0 unless the run had a usage error.
int write_baseline(const CommandLine& line, const AnalysisResult& result, const std::filesystem::path& source_root) {
  const Baseline written = Baseline::of(result.findings, source_root);
  written.write(line.write_baseline_file);
  std::ostringstream diagnostics;
  write_diagnostics(diagnostics, result, false);
  std::cerr << valid_utf8(diagnostics.str()) << "cudnnlint: wrote " << written.size()
            << (written.size() == 1 ? " finding" : " findings") << " to " << printable(line.write_baseline_file)
            << " (paths relative to " << printable(source_root.string()) << ")\n";
  return result.usage_error ? kExitError : kExitClean;
}

void write_report(const CommandLine& line, const Report& report, std::size_t findings) {
  const bool color = !line.no_color && line.output_file.empty() && stdout_wants_color(line.color_mode);
  ReportOutput output(line.output_file);
  std::ostream& out = output.stream();
  if (line.statistics) {
    if (line.format == "json") write_statistics_json(out, report);
    else write_statistics(out, report);
  } else if (line.format == "json") {
    write_json(out, report);
  } else if (line.format == "sarif") {
    if (const std::size_t dropped = write_sarif(out, report); dropped != 0)
      std::cerr << "cudnnlint: warning: " << dropped << " of " << findings
                << " results left out of the SARIF file: GitHub code scanning rejects a run of more than "
                << kGithubMaxResultsPerRun << "; the most severe were kept (toolExecutionNotifications says which)\n";
  } else if (line.format == "facts") {
    write_facts(out, report);
  } else {
    // Text and workflow commands quote file names and clang's messages byte for byte: made valid
    // UTF-8 here (JSON and SARIF replace invalid bytes as they write).
    std::ostringstream rendered;
    if (line.format == "github") write_github(rendered, report);
    else if (line.format == "concise") write_concise(rendered, report, color);
    else if (line.format == "grouped") write_grouped(rendered, report, color);
    else write_text(rendered, report, color);
    out << valid_utf8(rendered.str());
  }
  output.finish();
}

// The diagnostics on stderr: coloured beside a text report on a terminal, plain beside data.
void write_run_diagnostics(const CommandLine& line, const AnalysisResult& result) {
  std::ostringstream diagnostics;
  const bool data = line.format == "json" || line.format == "sarif" || line.format == "facts";
  if (!data) write_diagnostics(diagnostics, result, !line.no_color && isatty(STDERR_FILENO));
  else if (!result.diagnostics.empty()) write_diagnostics(diagnostics, result, false);
  std::cerr << valid_utf8(diagnostics.str());
}

int exit_code(const AnalysisResult& result, std::optional<Level> fail_level, bool exit_zero) {
  if (result.usage_error) return kExitError;
  if (exit_zero) return kExitClean;
  if (fail_level)
    for (const Finding& f : result.findings)
      if (f.level >= *fail_level) return kExitFindings;
  return kExitClean;
}

// `-`: one Python file from standard input, analysed as --stdin-filename (default stdin.py) with
// its text in place of the file's (the language server's overlay). Read up to the size limit.
void read_standard_input(const CommandLine& line, AnalysisOptions& options) {
  const std::string path = line.stdin_filename.empty() ? "stdin.py" : line.stdin_filename;
  if (!path.ends_with(".py") && !path.ends_with(".pyi"))
    throw std::invalid_argument("--stdin-filename " + printable(path) +
                                ": standard input is read as Python; C/C++/CUDA files are analysed from disk");
  std::string text;
  char buffer[1 << 16];
  while (std::cin.read(buffer, sizeof buffer) || std::cin.gcount() > 0) {
    text.append(buffer, static_cast<std::size_t>(std::cin.gcount()));
    if (text.size() > options.limits.max_bytes)
      throw std::invalid_argument("standard input: larger than the file-size limit (" +
                                  std::to_string(options.limits.max_bytes) + " bytes; --max-file-size)");
  }
  auto overlay = std::make_shared<std::map<std::string, std::string, std::less<>>>();
  overlay->emplace(path, std::move(text));
  options.limits.overlay = std::move(overlay);
  options.paths = {path};
  options.paths_discovered = true;  // the text is the input's, whether or not the file exists
}

// --show-files: what discovery finds for the paths, one per line.
int show_files(const AnalysisOptions& options) {
  const DiscoveryResult found = discover(options.paths, options.discovery);
  for (const auto& file : found.files) std::cout << printable(file) << '\n';
  std::ostringstream diagnostics;
  AnalysisResult result;
  result.diagnostics = found.diagnostics;
  write_diagnostics(diagnostics, result, false);
  std::cerr << valid_utf8(diagnostics.str());
  return found.usage_error ? kExitError : kExitClean;
}

// --show-settings: the settings after the configuration and the flags, as `key = value` lines.
int show_settings(const PreparedAnalysis& prepared, const CommandLine& line) {
  const AnalysisOptions& options = prepared.options;
  const auto list = [](const std::vector<std::string>& items) {
    std::string out = "[";
    for (const auto& item : items) out += (out.size() > 1 ? ", \"" : "\"") + printable(item) + "\"";
    return out + "]";
  };
  std::cout << "configuration = " << (prepared.config_file.empty() ? "none" : printable(prepared.config_file.string()))
            << (line.isolated ? " (--isolated)" : "") << '\n';
  std::cout << "select = " << (options.select.empty() ? "all rules" : list(options.select)) << '\n';
  std::cout << "ignore = " << list(options.ignore) << '\n';
  for (const auto& entry : options.per_file_ignores)
    std::cout << "per-file-ignores \"" << printable(entry.pattern) << "\" = " << list(entry.rules) << '\n';
  std::cout << "exclude = " << list(options.discovery.exclude) << '\n';
  std::cout << "respect-gitignore = " << (options.discovery.respect_gitignore ? "true" : "false") << '\n';
  std::cout << "max-file-size = " << options.limits.max_bytes << '\n';
  std::cout << "fail-level = " << (prepared.fail_level ? level_name(*prepared.fail_level) : "none")
            << (line.exit_zero ? " (--exit-zero: exit 0)" : "") << '\n';
  std::cout << "cudnn-version = "
            << (options.target.cudnn ? options.target.cudnn->str() + " (" + options.target.cudnn_source + ")"
                                     : "not pinned (read from the project's pins, else every version)")
            << '\n';
  for (const auto& [name, version] : options.target.frameworks)
    std::cout << "framework " << name << " = " << (version ? version->str() : "declared, version unknown") << " ("
              << (options.target.framework_sources.contains(name) ? options.target.framework_sources.at(name) : "") << ")\n";
  std::cout << "format = " << line.format << (line.statistics ? " (--statistics)" : "") << '\n';
  std::cout << "cache = " << (options.cache.enabled ? (options.cache.dir.empty() ? ".cudnnlint_cache" : printable(options.cache.dir)) : "off")
            << '\n';
  return kExitClean;
}

}  // namespace

int run_analysis(const CommandLine& line) {
  if (line.paths.empty()) {
    std::cerr << "cudnnlint: error: no paths given (try `cudnnlint .`; see --help)\n";
    return kExitError;
  }
  const bool from_stdin = std::find(line.paths.begin(), line.paths.end(), "-") != line.paths.end();
  if (from_stdin && line.paths.size() != 1)
    throw std::invalid_argument("- (standard input) is one file: give it alone, without other paths");
  if (!line.stdin_filename.empty() && !from_stdin)
    throw std::invalid_argument("--stdin-filename names what standard input is: give - as the path");
  if (line.statistics && line.format != "text" && line.format != "concise" && line.format != "grouped" &&
      line.format != "json")
    throw std::invalid_argument("--statistics prints text or JSON, not " + line.format);
  PreparedAnalysis prepared = prepare_analysis(line, line.paths);
  AnalysisOptions& options = prepared.options;
  if (line.show_settings) return show_settings(prepared, line);
  if (line.show_files) return show_files(options);
  if (from_stdin) {
    if (line.fix || line.diff) throw std::invalid_argument("--fix and --diff rewrite files: not with - (standard input)");
    read_standard_input(line, options);
  }
  const auto started = std::chrono::steady_clock::now();
  AnalysisResult result = analyse(options, !line.no_progress && isatty(STDERR_FILENO) != 0);
  if (line.timings) print_timings(result, started);
  const std::filesystem::path source_root = source_root_or_found(line.source_root_text);
  if (!line.write_baseline_file.empty()) return write_baseline(line, result, source_root);
  if (prepared.baseline) result.baselined = prepared.baseline->filter(result.findings, source_root);
  if (line.unsafe_fixes && !line.fix && !line.diff)
    throw std::invalid_argument("--unsafe-fixes goes with --fix (apply) or --diff (show)");
  if (line.add_noqa) {
    if (line.fix || line.diff || from_stdin) throw std::invalid_argument("--add-noqa writes the files: not with --fix, --diff or -");
    return add_suppressions(result, options.paths);
  }
  if (line.diff) return show_fixes(result, line.unsafe_fixes, options.paths);
  if (line.fix && apply_fixes(result, line.unsafe_fixes, options.paths)) {
    // Report what the fixed tree still holds: the fixes' findings are gone, and a second --fix
    // finds nothing to do.
    result = analyse(options, false);
    if (prepared.baseline) result.baselined = prepared.baseline->filter(result.findings, source_root);
  }
  if (line.gpu_check && line.format != "facts") result.gpu_check = gpu::run_gpu_check(result.findings, gpu_check_options(line));
  write_report(line, Report{result, result.target, source_root, line.sarif_category}, result.findings.size());
  write_run_diagnostics(line, result);
  return exit_code(result, prepared.fail_level, line.exit_zero);
}

}  // namespace cudnnlint::cli
