// cudnnlint: command-line entry point. Parses arguments and configuration, runs the
// pipeline, picks the emitter and maps the outcome to the exit code:
// 0 nothing at or above --fail-level, 1 findings at or above it, 2 usage or tool error.
#include "cli/config.h"
#include "cli/version.h"
#include "core/api_table.h"
#include "core/atomic_file.h"
#include "core/printable.h"
#include "core/source_file.h"
#include "emit/emitters.h"
#include "emit/replay_json.h"
#include "engine/analysis.h"
#include "engine/baseline.h"
#include "engine/fixes.h"
#include "emit/unified_diff.h"
#include "gpu_check/gpu_check.h"
#include "emit/sarif_read.h"
#include "kb/kb.h"
#include "rules/rule.h"
#include "server/server.h"
#include "triage/report.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iostream>
#include <malloc.h>
#include <limits>
#include <set>
#include <optional>
#include <sstream>
#include <unistd.h>

namespace {

using namespace cudnnlint;

constexpr int kExitClean = 0;
constexpr int kExitFindings = 1;
constexpr int kExitError = 2;

// The report is flushed, and a report file renamed into place only when every byte was written
// (a full disk leaves an earlier report as it was); a failure throws, which exits 2.
void finish_output(std::ostream& out, std::optional<cudnnlint::AtomicOutputFile>& file) {
  if (file) {
    if (const std::string problem = file->commit(); !problem.empty()) throw std::runtime_error(problem);
    return;
  }
  out.flush();
  if (!out) throw std::runtime_error("writing the report failed");
}

std::filesystem::path find_source_root() {
  std::error_code ec;
  const auto cwd = std::filesystem::current_path(ec);
  for (auto dir = cwd; !dir.empty(); dir = dir.parent_path()) {
    if (std::filesystem::exists(dir / ".git", ec)) return dir;
    if (dir == dir.root_path()) break;
  }
  return cwd;
}

bool stdout_wants_color(const std::string& mode) {
  if (mode == "always") return true;
  if (mode == "never") return false;
  const char* no_color = std::getenv("NO_COLOR");
  const char* term = std::getenv("TERM");
  return isatty(STDOUT_FILENO) && (no_color == nullptr || *no_color == '\0') &&
         !(term != nullptr && std::string_view(term) == "dumb");
}

// --lang's value, or nullopt after saying why it is not one.
std::optional<kb::Lang> lang_or_complain(const std::string& text) {
  const auto lang = kb::parse_lang(text);
  if (!lang) std::cerr << "cudnnlint: error: --lang must be 'en' or 'zh', not '" << text << "'\n";
  return lang;
}

int run_explain(const std::string& id, const std::string& lang_text) {
  const auto lang = lang_or_complain(lang_text);
  if (!lang) return kExitError;
  const kb::Entry* entry = kb::find(id);
  if (entry == nullptr) {
    // Accept a rule id too: explain the KB entry the rule links to.
    if (const RuleInfo* rule = find_rule(id)) entry = kb::find(rule->kb_id);
  }
  if (entry == nullptr) {
    std::cerr << "cudnnlint: error: no knowledge-base entry or rule named '" << id << "'. Known entries:\n";
    for (const auto& e : kb::entries()) std::cerr << "  " << e.id << '\n';
    return kExitError;
  }
  std::cout << kb::render_markdown(*entry, *lang);
  return kExitClean;
}

int run_doctor(const gpu::GpuCheckOptions& options) {
  const gpu::GpuEnvironment environment = gpu::probe_environment(options.cudnn_library, options.execution);
  std::cout << "cudnnlint " << CUDNNLINT_VERSION << "\n" << gpu::describe_environment(environment);
  return kExitClean;
}

// `cudnnlint gpu-check report.sarif`: replays the findings of an earlier SARIF report.
int run_gpu_check_on_sarif(const std::string& sarif_file, const gpu::GpuCheckOptions& options,
                           const std::string& format, std::ostream& out) {
  SarifFindings report = read_sarif_findings(sarif_file);
  const GpuCheckSummary summary = gpu::run_gpu_check(report.findings, options);
  if (format == "sarif" || format == "json") {
    annotate_sarif(report, summary);
    out << report.log.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
    return kExitClean;
  }
  for (const Finding& f : report.findings) {
    out << f.location.path << ':' << f.location.range.begin.line << ':' << f.location.range.begin.column << ": "
        << f.rule_id << ": " << (f.gpu_check ? verdict_line(*f.gpu_check) : "not checked") << '\n';
    if (f.gpu_check && f.gpu_check->outcome != GpuVerdict::Outcome::Skipped)
      out << "  " << f.gpu_check->detail << '\n';
  }
  out << report.findings.size() << (report.findings.size() == 1 ? " result" : " results") << " in " << sarif_file
      << ".\n"
      << summary_line(summary) << '\n';
  return kExitClean;
}

int run_rules_listing() {
  for (const RuleInfo& rule : all_rules())
    std::cout << rule.id << "\t" << level_name(rule.default_level) << "\t" << rule.kb_id << "\t" << rule.summary
              << '\n';
  return kExitClean;
}

std::string plural(std::size_t n, std::string_view word) {
  const bool es = word.ends_with("x");
  return std::to_string(n) + " " + std::string(word) + (n == 1 ? "" : es ? "es" : "s");
}

// Says on stderr what the fixes left aside: the unsafe ones without --unsafe-fixes, overlaps.
void note_fixes_left(const cudnnlint::FixPlan& plan) {
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
int show_fixes(const cudnnlint::AnalysisResult& result, bool unsafe, std::span<const std::string> analysed) {
  const cudnnlint::FixPlan plan = cudnnlint::plan_fixes(result.findings, unsafe, analysed);
  std::size_t fixes = 0, files = 0;
  for (const auto& file : plan.files) {
    const std::string diff = cudnnlint::unified_diff(file.path, file.before, file.after);
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
bool apply_fixes(const cudnnlint::AnalysisResult& result, bool unsafe, std::span<const std::string> analysed) {
  cudnnlint::FixPlan plan = cudnnlint::plan_fixes(result.findings, unsafe, analysed);
  cudnnlint::write_fixes(plan);
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

// `cudnnlint triage LOG [PATH...]`: exit 0 whenever the triage ran, whatever it found; exit 2 when
// the log cannot be read.
int run_triage(const std::string& log_path, const AnalysisOptions& options, const std::string& format,
               const std::string& output_file, const std::string& source_root_text) {
  std::ifstream file;
  std::istream* log = &std::cin;
  std::string name = "<stdin>";
  if (log_path != "-") {
    std::error_code ec;
    if (std::filesystem::is_directory(log_path, ec)) {
      std::cerr << "cudnnlint: error: " << printable(log_path) << ": is a directory, not a log (the tree goes after it: "
                << "cudnnlint triage LOG PATH)\n";
      return kExitError;
    }
    file.open(log_path, std::ios::binary);
    if (!file) {
      std::cerr << "cudnnlint: error: " << printable(log_path) << ": cannot read the log: " << std::strerror(errno) << '\n';
      return kExitError;
    }
    log = &file;
    name = log_path;
  }
  triage::TriageReport report;
  try {
    report = triage::triage(*log, name, options);
  } catch (const std::runtime_error& e) {
    std::cerr << "cudnnlint: error: " << printable(name) << ": cannot read the log: " << e.what() << '\n';
    return kExitError;
  }
  std::optional<AtomicOutputFile> file_out;
  if (!output_file.empty()) file_out.emplace(output_file);
  std::ostream& out = file_out ? file_out->stream() : std::cout;
  if (format == "json") {
    triage::write_json(out, report);
  } else if (format == "sarif") {
    triage::write_sarif(out, report, source_root_text.empty() ? find_source_root() : std::filesystem::path(source_root_text));
  } else {
    std::ostringstream rendered;
    triage::write_text(rendered, report);
    out << valid_utf8(rendered.str());
  }
  finish_output(out, file_out);
  // The analysis's diagnostics about the files that hold or feed the failing frames; the others
  // (a tree's unrelated C templates that clang cannot parse, say) are counted, not listed.
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
    std::cerr << "cudnnlint: " << plural(elsewhere, "warning") << " about files away from the failing frames not shown "
              << "(`cudnnlint PATH` lists them)\n";
  return kExitClean;
}

}  // namespace

int main(int argc, char** argv) {
  // Every file of a tree is read into a buffer of its size and freed: keep such buffers (up to
  // 32 MiB) in the heap for reuse instead of mapping and unmapping each one, which costs a page
  // fault per 4 KiB read (measured: about 6% of a run over transformers + timm).
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 128 << 20);
  CLI::App app{"cudnnlint: finds model configurations that cuDNN rejects or that end in NaN/Inf"};
  app.set_version_flag("--version", std::function<std::string()>(cudnnlint::cli::version_text));

  std::vector<std::string> paths;
  std::string format = "text";
  std::string output_file;
  std::string fail_level_text;
  std::string cudnn_version_text;
  std::vector<std::string> framework_specs;
  std::vector<std::string> select;
  std::vector<std::string> ignore;
  std::vector<std::string> exclude;
  unsigned jobs = 0;
  std::int64_t max_file_size = 0;  // 0: not given
  bool no_gitignore = false;
  bool full_parse = false;
  bool isolated = false;
  std::string color_mode = "auto";
  bool no_color = false;
  std::string config_file;
  std::string baseline_file;
  bool no_progress = false;
  std::string sarif_category;
  std::string write_baseline_file;
  std::string source_root_text;
  std::string compile_commands_dir;
  std::vector<std::string> extra_args;
  double cpp_timeout = 60.0;
  bool gpu_check_flag = false;
  bool timings = false;
  std::string gpu_check_tier = "all";
  std::string cudnn_library;

  app.add_option("paths", paths, "Files or directories to analyse (directories are walked for .py files)");
  app.add_option("-f,--format", format, "Output format")->check(CLI::IsMember({"text", "json", "sarif", "github", "facts"}));
  app.add_option("-o,--output", output_file, "Write the report to this file instead of standard output");
  app.add_option("--fail-level", fail_level_text,
                 "Exit 1 when a finding at or above this level exists: note, warning (default), error, none")
      ->check(CLI::IsMember({"note", "warning", "error", "none"}));
  app.add_option("--cudnn-version", cudnn_version_text, "Target cuDNN version, e.g. 7.4 or 9.1");
  // List options take one value per occurrence (comma-separated, repeatable) so that
  // `--select a,b path/` never swallows the path.
  auto list_option = [&](const char* name, std::vector<std::string>& into, const char* help) {
    app.add_option(name, into, help)->delimiter(',')->allow_extra_args(false)->expected(1)->multi_option_policy(
        CLI::MultiOptionPolicy::TakeAll);
  };
  list_option("--framework", framework_specs, "Target framework version, repeatable: torch=2.1, tensorflow=2.15, keras=3");
  list_option("--select", select, "Only report these rule ids (comma-separated, repeatable)");
  list_option("--ignore", ignore, "Do not report these rule ids (comma-separated, repeatable)");
  list_option("--exclude", exclude, "Extra gitignore-style patterns to skip during directory walks");
  app.add_option("-j,--jobs", jobs, "Worker threads (default: one per core)");
  // A positive number of bytes, as the config's max-file-size: -5 would wrap to 2^64 and 0 would
  // look like "not given".
  app.add_option("--max-file-size", max_file_size, "Skip files larger than this many bytes (default 4 MiB)")
      ->check(CLI::Range(std::int64_t{1}, std::numeric_limits<std::int64_t>::max()).description("a positive integer"));
  app.add_flag("--no-gitignore", no_gitignore, "Do not honour .gitignore files");
  app.add_flag("--full-parse", full_parse,
               "Parse every file whole (no skipping of files and regions that cannot matter); slower, same findings");
  app.add_flag("--isolated", isolated, "Ignore .cudnnlint.toml and pyproject.toml configuration");
  app.add_option("--config", config_file, "Read configuration from this file");
  app.add_option("--color", color_mode, "Colour: auto (on a terminal), always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  app.add_flag("--no-color", no_color, "Same as --color never");
  app.add_option("--source-root", source_root_text,
                 "Root that SARIF URIs are relative to (default: the enclosing git repository, else the cwd)");

  app.add_option("-p", compile_commands_dir,
                 "Directory holding compile_commands.json for C++/CUDA files (default: searched upward from each file)");
  app.add_option("--cpp-timeout", cpp_timeout,
                 "Seconds a C++/CUDA translation unit may take before it is skipped with a diagnostic (default 60)")
      ->check(CLI::PositiveNumber);
  app.add_option("--extra-arg", extra_args, "Extra compiler argument for C++/CUDA files, repeatable")
      ->allow_extra_args(false)
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);

  app.add_option("--category", sarif_category,
                 "SARIF: the code-scanning category (automationDetails.id), to keep several uploads apart");
  app.add_option("--baseline", baseline_file,
                 "Report only findings this baseline (from --write-baseline) does not record");
  app.add_option("--write-baseline", write_baseline_file,
                 "Record the findings of this run in FILE (sorted JSON) and exit 0; later runs take it with --baseline");
  bool fix_flag = false, unsafe_fixes = false, diff_flag = false;
  auto* fix_option = app.add_flag("--fix", fix_flag,
                                  "Apply the findings' safe fixes (none today; with --unsafe-fixes, all), then report what remains");
  auto* diff_option = app.add_flag("--diff", diff_flag,
                                   "Print the fixes --fix would apply as a unified diff, write nothing (exit 1 when there are some)");
  fix_option->excludes(diff_option);
  app.add_flag("--unsafe-fixes", unsafe_fixes,
               "With --fix or --diff: also the unsafe fixes (every fix today changes numerics or behaviour)");
  app.add_flag("--no-progress", no_progress, "No progress line on stderr (drawn only on a terminal)");
  bool no_cache = false;
  std::string cache_dir;
  std::uint64_t cache_size_mib = 256;
  app.add_flag("--no-cache", no_cache, "Neither read nor write the cache of facts and findings");
  app.add_option("--cache-dir", cache_dir,
                 "The cache's folder (default: $CUDNNLINT_CACHE_DIR, else .cudnnlint_cache in the working directory)");
  app.add_option("--cache-size-limit", cache_size_mib,
                 "MiB the cache may hold; the least recently used entries go first (default 256)")
      ->check(CLI::PositiveNumber);
  app.add_flag("--timings", timings,
               "Print to stderr how long the analysis and its project step took (for benchmarks)");
  app.add_flag("--gpu-check", gpu_check_flag,
               "After analysis, replay each finding's configuration against the installed cuDNN (see README: gpu_check)");
  app.add_option("--gpu-check-tier", gpu_check_tier,
                 "gpu_check tiers: all (descriptor, plus execution when a GPU is present) or descriptor (never touch the GPU)")
      ->check(CLI::IsMember({"all", "descriptor"}));
  app.add_option("--cudnn-library", cudnn_library,
                 "gpu_check: load this libcudnn file instead of searching CUDNN_PATH, the CUDA toolkit and pip wheels");

  std::string explain_id;
  std::string explain_lang = "en";
  CLI::App* explain = app.add_subcommand("explain", "Print a knowledge-base entry (or a rule's entry) as Markdown");
  explain->add_option("id", explain_id, "KB id such as cuda/cudnn-bn-epsilon-too-small, or a rule id")->required();
  explain->add_option("--lang", explain_lang, "en or zh");
  CLI::App* rules_cmd = app.add_subcommand("rules", "List the rules with their levels and KB entries");
  std::vector<std::string> flag_files;
  CLI::App* flags_cmd =
      app.add_subcommand("flags", "Print, as JSON, the clang command each C++/CUDA file is parsed with (uses -p and --extra-arg)");
  flags_cmd->add_option("files", flag_files, "C++/CUDA files")->required();
  flags_cmd->fallthrough();  // -p and --extra-arg may follow the subcommand
  std::string sarif_input;
  CLI::App* gpu_check_cmd = app.add_subcommand(
      "gpu-check", "Replay the findings of an earlier SARIF report against the installed cuDNN (text, or -f sarif for "
                   "the report annotated with properties.gpuCheck)");
  gpu_check_cmd->add_option("report", sarif_input, "SARIF file written by cudnnlint -f sarif")->required();
  gpu_check_cmd->fallthrough();
  CLI::App* server_cmd = app.add_subcommand(
      "server", "Run as a language server (LSP 3.17 over stdio) for editors: diagnostics of the open files");
  std::string server_lang;
  server_cmd->add_option("--lang", server_lang, "the KB's language in hovers: en or zh (default: the editor's locale)");
  std::string triage_log;
  std::vector<std::string> triage_paths;
  CLI::App* triage_cmd = app.add_subcommand(
      "triage", "From a crash log to the code: recognise the failure (KB), map its frames onto PATH (default .), "
                "rank the findings near them, and say what to do (-f json / -f sarif for data)");
  triage_cmd->add_option("log", triage_log, "The failed job's log, or - for standard input")->required();
  triage_cmd->add_option("paths", triage_paths, "The tree the job ran (default: .)");
  triage_cmd->fallthrough();
  CLI::App* doctor_cmd =
      app.add_subcommand("doctor", "Print the cuDNN and CUDA versions found, the GPU, and which gpu_check tiers can run");
  doctor_cmd->fallthrough();
  app.require_subcommand(0, 1);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? kExitClean : kExitError;
  }

  try {
    if (explain->parsed()) return run_explain(explain_id, explain_lang);
    if (rules_cmd->parsed()) return run_rules_listing();
    gpu::GpuCheckOptions gpu_options;
    gpu_options.cudnn_library = cudnn_library;
    gpu_options.execution = gpu_check_tier == "all";
    if (doctor_cmd->parsed()) return run_doctor(gpu_options);
    if (server_cmd->parsed()) {
      server::ServerOptions server_options;
      if (!server_lang.empty()) {
        server_options.lang = lang_or_complain(server_lang);
        if (!server_options.lang) return kExitError;
      }
      std::ios::sync_with_stdio(false);
      return server::serve(std::cin, std::cout, std::cerr, server_options);
    }
    if (gpu_check_cmd->parsed()) {
      if (format != "text" && format != "sarif" && format != "json")
        throw std::invalid_argument("gpu-check writes text or sarif, not " + format);
      std::optional<AtomicOutputFile> file_out;
      if (!output_file.empty()) file_out.emplace(output_file);
      std::ostream& out = file_out ? file_out->stream() : std::cout;
      const int code = run_gpu_check_on_sarif(sarif_input, gpu_options, format, out);
      finish_output(out, file_out);
      return code;
    }
    if (flags_cmd->parsed()) {
      cpp::CppOptions cpp_options;
      cpp_options.compile_commands_dir = compile_commands_dir;
      cpp_options.extra_args = extra_args;
      cpp_options.trusted_roots = {"."};  // as a run from here over this tree would judge its flags
      // A file that does not exist has no command: say so (exit 2) instead of printing one.
      int status = kExitClean;
      std::vector<std::string> existing;
      for (const auto& file : flag_files) {
        std::error_code ec;
        if (std::filesystem::is_regular_file(file, ec)) {
          existing.push_back(file);
        } else {
          std::cerr << "cudnnlint: error: " << printable(file) << ": " << (std::filesystem::exists(file, ec) ? "not a regular file" : "no such file") << '\n';
          status = kExitError;
        }
      }
      flag_files = std::move(existing);
      const auto commands = cpp::clang_commands(flag_files, cpp_options);
      for (std::size_t i = 0; i < flag_files.size(); ++i) {
        std::cout << "{\"file\": " << nlohmann::json(flag_files[i]).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << ", \"arguments\": "
                  << nlohmann::json(commands[i]).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "}\n";
      }
      return status;
    }

    const bool triaging = triage_cmd->parsed();
    if (triaging) {
      if (format != "text" && format != "json" && format != "sarif")
        throw std::invalid_argument("triage writes text, json or sarif, not " + format);
      paths = triage_paths.empty() ? std::vector<std::string>{"."} : triage_paths;
    }
    if (paths.empty()) {
      std::cerr << "cudnnlint: error: no paths given (try `cudnnlint .`; see --help)\n";
      return kExitError;
    }
    ProjectConfig config;
    if (!isolated) config = load_project_config(std::filesystem::current_path(), config_file);

    AnalysisOptions options;
    options.paths = paths;
    options.jobs = jobs;
    options.full_parse = full_parse;
    options.keep_facts = format == "facts";
    options.cpp.compile_commands_dir = compile_commands_dir;
    options.cpp.extra_args = extra_args;
    options.cpp.timeout_seconds = cpp_timeout;
    options.line_hashes = format == "sarif" || format == "json";
    options.discovery.respect_gitignore = !no_gitignore;
    // The configuration, with the command line's flags in its place where given.
    ProjectConfig effective = config;
    if (!exclude.empty()) effective.exclude = exclude;
    if (!select.empty()) effective.select = select;
    if (!ignore.empty()) effective.ignore = ignore;
    if (max_file_size > 0) effective.max_file_size = static_cast<std::uintmax_t>(max_file_size);
    if (!cudnn_version_text.empty()) effective.cudnn_version.reset();
    apply_project_config(effective, options);
    for (const auto& id : options.select)
      if (!find_rule(id)) throw std::invalid_argument("--select: unknown rule '" + id + "' (see `cudnnlint rules`)");
    for (const auto& id : options.ignore)
      if (!find_rule(id)) throw std::invalid_argument("--ignore: unknown rule '" + id + "' (see `cudnnlint rules`)");
    options.cache.enabled = !no_cache;
    if (cache_dir.empty())
      if (const char* from_env = std::getenv("CUDNNLINT_CACHE_DIR"); from_env != nullptr) cache_dir = from_env;
    options.cache.dir = cache_dir;
    options.cache.max_bytes = cache_size_mib << 20;
    if (!cudnn_version_text.empty()) {
      options.target.cudnn = parse_version(cudnn_version_text);
      if (!options.target.cudnn)
        throw std::invalid_argument("bad cuDNN version '" + cudnn_version_text + "' (expected e.g. 7.4 or 8.9.5)");
      options.target.cudnn_source = "--cudnn-version";
    }
    // --framework per framework on top of the configuration's.
    add_framework_pins(framework_specs, "--framework", options.target);

    std::string fail_text = !fail_level_text.empty() ? fail_level_text : config.fail_level.value_or("warning");
    std::optional<Level> fail_level;
    if (fail_text != "none") {
      fail_level = parse_level(fail_text);
      if (!fail_level) throw std::invalid_argument("bad fail-level '" + fail_text + "'");
    }

    if (!baseline_file.empty() && !write_baseline_file.empty())
      throw std::invalid_argument("--baseline and --write-baseline: give one (a new baseline records every finding)");
    std::optional<Baseline> baseline;
    if (!baseline_file.empty()) baseline = Baseline::read(baseline_file);  // a bad file fails before the run

    if (triaging) return run_triage(triage_log, options, format, output_file, source_root_text);

    const auto started = std::chrono::steady_clock::now();
    AnalysisResult result;
    {
      // Erased before the report and the diagnostics are written.
      Progress progress(STDERR_FILENO, !no_progress && isatty(STDERR_FILENO) != 0);
      options.progress = &progress;
      result = analyze(options);
      options.progress = nullptr;
    }
    if (timings)
      std::cerr << "timings: analysis " << std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count()
                << " s, of which the project step " << result.project_seconds << " s (" << result.project_rounds
                << " extra passes, " << result.project_apis << " project callables); parsed " << result.bytes_parsed
                << " of " << result.bytes_read << " bytes read, and " << result.project_bytes_parsed
                << " more in the project step"
                << (result.cache_summary.empty() ? std::string() : "; cache: " + result.cache_summary) << "\n";
    const std::filesystem::path source_root =
        source_root_text.empty() ? find_source_root() : std::filesystem::path(source_root_text);
    if (!write_baseline_file.empty()) {
      const Baseline written = Baseline::of(result.findings, source_root);
      written.write(write_baseline_file);
      std::ostringstream diagnostics;
      write_diagnostics(diagnostics, result, false);
      std::cerr << valid_utf8(diagnostics.str()) << "cudnnlint: wrote " << written.size()
                << (written.size() == 1 ? " finding" : " findings") << " to " << printable(write_baseline_file)
                << " (paths relative to " << printable(source_root.string()) << ")\n";
      return result.usage_error ? kExitError : kExitClean;
    }
    if (baseline) result.baselined = baseline->filter(result.findings, source_root);
    if (unsafe_fixes && !fix_flag && !diff_flag)
      throw std::invalid_argument("--unsafe-fixes goes with --fix (apply) or --diff (show)");
    if (diff_flag) return show_fixes(result, unsafe_fixes, options.paths);
    if (fix_flag && apply_fixes(result, unsafe_fixes, options.paths)) {
      // Report what the fixed tree still holds: the fixes' findings are gone, and a second --fix
      // finds nothing to do.
      Progress progress(STDERR_FILENO, false);
      options.progress = &progress;
      result = analyze(options);
      options.progress = nullptr;
      if (baseline) result.baselined = baseline->filter(result.findings, source_root);
    }
    if (gpu_check_flag && format != "facts") result.gpu_check = gpu::run_gpu_check(result.findings, gpu_options);
    const bool color = !no_color && output_file.empty() && stdout_wants_color(color_mode);
    const Report report{result, result.target, source_root, sarif_category};

    std::optional<AtomicOutputFile> file_out;
    if (!output_file.empty()) file_out.emplace(output_file);
    std::ostream& out = file_out ? file_out->stream() : std::cout;
    if (format == "json") write_json(out, report);
    else if (format == "sarif") {
      if (const std::size_t dropped = write_sarif(out, report); dropped != 0)
        std::cerr << "cudnnlint: warning: " << dropped << " of " << result.findings.size()
                  << " results left out of the SARIF file: GitHub code scanning rejects a run of more than "
                  << kGithubMaxResultsPerRun << "; the most severe were kept (toolExecutionNotifications says which)\n";
    }
    else if (format == "facts") write_facts(out, report);
    else {
      // Text and workflow commands quote file names and clang's messages byte for byte: made valid
      // UTF-8 here (JSON and SARIF replace invalid bytes as they write).
      std::ostringstream rendered;
      if (format == "github") write_github(rendered, report);
      else write_text(rendered, report, color);
      out << valid_utf8(rendered.str());
    }
    finish_output(out, file_out);
    std::ostringstream diagnostics;
    if (format != "json" && format != "sarif" && format != "facts") write_diagnostics(diagnostics, result, !no_color && isatty(STDERR_FILENO));
    else if (!result.diagnostics.empty()) write_diagnostics(diagnostics, result, false);
    std::cerr << valid_utf8(diagnostics.str());

    if (result.usage_error) return kExitError;
    if (fail_level)
      for (const Finding& f : result.findings)
        if (f.level >= *fail_level) return kExitFindings;
    return kExitClean;
  } catch (const std::exception& e) {
    std::cerr << "cudnnlint: error: " << e.what() << '\n';
    return kExitError;
  }
}
