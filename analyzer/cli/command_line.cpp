#include "cli/command_line.h"

#include "cli/config.h"
#include "cli/version.h"
#include "core/suggest.h"
#include "kb/kb.h"
#include "rules/rule.h"

#include <cstdlib>
#include <functional>
#include <nlohmann/json.hpp>
#include <limits>
#include <stdexcept>

namespace cudnnlint::cli {

namespace {

// List options take one value per occurrence (comma-separated, repeatable) so that
// `--select a,b path/` never swallows the path.
void add_list_option(CLI::App& app, const char* name, std::vector<std::string>& into, const char* help) {
  app.add_option(name, into, help)->delimiter(',')->allow_extra_args(false)->expected(1)->multi_option_policy(
      CLI::MultiOptionPolicy::TakeAll);
}

void define_report_options(CLI::App& app, CommandLine& line) {
  app.add_option("paths", line.paths,
                 "Files or directories to analyse (directories are walked for Python and C/C++/CUDA sources); "
                 "- reads one Python file from standard input");
  app.add_option("-f,--format,--output-format", line.format,
                 "Output format: text (each finding with its source line and notes), concise (one line per "
                 "finding), grouped (the findings under their file), json, sarif, github (workflow commands), facts")
      ->check(CLI::IsMember({"text", "concise", "grouped", "json", "sarif", "github", "facts"}));
  app.add_option("--stdin-filename", line.stdin_filename,
                 "The path standard input (-) is analysed as: its messages, configuration and per-file-ignores use it "
                 "(default stdin.py)");
  app.add_flag("--exit-zero", line.exit_zero, "Exit 0 even when findings are reported (2 still for usage or tool errors)");
  app.add_flag("--statistics", line.statistics, "Print the number of findings per rule instead of the findings");
  app.add_flag("--show-files", line.show_files, "Print the files an analysis of the paths would read, then exit");
  app.add_flag("--show-settings", line.show_settings,
               "Print the settings an analysis would use (configuration file, rules, target), then exit");
  app.add_option("-o,--output", line.output_file, "Write the report to this file instead of standard output");
  app.add_option("--fail-level", line.fail_level_text,
                 "Exit 1 when a finding at or above this level exists: note, warning (default), error, none")
      ->check(CLI::IsMember({"note", "warning", "error", "none"}));
  app.add_option("--cudnn-version", line.cudnn_version_text, "Target cuDNN version, e.g. 7.4 or 9.1");
  add_list_option(app, "--framework", line.framework_specs, "Target framework version, repeatable: torch=2.1, tensorflow=2.15, keras=3");
  add_list_option(app, "--select", line.select, "Only report these rule ids (comma-separated, repeatable)");
  add_list_option(app, "--ignore", line.ignore, "Do not report these rule ids (comma-separated, repeatable)");
  add_list_option(app, "--extend-select", line.extend_select, "Report these rule ids too, beside --select or the configuration's select");
  add_list_option(app, "--extend-ignore", line.extend_ignore, "Do not report these rule ids either, beside --ignore or the configuration's ignore");
  add_list_option(app, "--exclude", line.exclude, "Extra gitignore-style patterns to skip during directory walks");
  app.add_option("-j,--jobs", line.jobs, "Worker threads (default: one per core)");
  // A positive number of bytes, as the config's max-file-size: -5 would wrap to 2^64 and 0 would
  // look like "not given".
  app.add_option("--max-file-size", line.max_file_size, "Skip files larger than this many bytes (default 4 MiB)")
      ->check(CLI::Range(std::int64_t{1}, std::numeric_limits<std::int64_t>::max()).description("a positive integer"));
  app.add_flag("--no-gitignore", line.no_gitignore, "Do not honour .gitignore files");
  app.add_flag("--full-parse", line.full_parse,
               "Parse every file whole (no skipping of files and regions that cannot matter); slower; same findings on files that parse");
  app.add_flag("--isolated", line.isolated, "Ignore .cudnnlint.toml and pyproject.toml configuration");
  app.add_option("--config", line.config_file, "Read configuration from this file");
  app.add_option("--color", line.color_mode, "Colour: auto (on a terminal), always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  app.add_flag("--no-color", line.no_color, "Same as --color never");
  app.add_option("--source-root", line.source_root_text,
                 "Root that SARIF URIs are relative to (default: the enclosing git repository, else the cwd)");
}

void define_cpp_options(CLI::App& app, CommandLine& line) {
  app.add_option("-p", line.compile_commands_dir,
                 "Directory holding compile_commands.json for C++/CUDA files (default: searched upward from each file)");
  app.add_option("--cpp-timeout", line.cpp_timeout,
                 "Seconds a C++/CUDA translation unit may take before it is skipped with a diagnostic (default 60)")
      ->check(CLI::PositiveNumber);
  app.add_option("--extra-arg", line.extra_args, "Extra compiler argument for C++/CUDA files, repeatable")
      ->allow_extra_args(false)
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
}

void define_run_options(CLI::App& app, CommandLine& line) {
  app.add_option("--category", line.sarif_category,
                 "SARIF: the code-scanning category (automationDetails.id), to keep several uploads apart");
  app.add_option("--baseline", line.baseline_file,
                 "Report only findings this baseline (from --write-baseline) does not record");
  app.add_option("--write-baseline", line.write_baseline_file,
                 "Record the findings of this run in FILE (sorted JSON) and exit 0; later runs take it with --baseline");
  auto* fix_option = app.add_flag("--fix", line.fix,
                                  "Apply the findings' safe fixes (none today; with --unsafe-fixes, all), then report what remains");
  auto* diff_option = app.add_flag("--diff", line.diff,
                                   "Print the fixes --fix would apply as a unified diff, write nothing (exit 1 when there are some)");
  fix_option->excludes(diff_option);
  app.add_flag("--add-noqa", line.add_noqa,
               "Add a `cudnnlint: ignore[rule]` comment to each line that has findings (adopting cudnnlint on a "
               "project: later runs report only new findings), then exit");
  app.add_flag("--unsafe-fixes", line.unsafe_fixes,
               "With --fix or --diff: also the unsafe fixes (every fix today changes numerics or behaviour)");
  app.add_flag("--no-progress", line.no_progress, "No progress line on stderr (drawn only on a terminal)");
  app.add_flag("--no-cache", line.no_cache, "Neither read nor write the cache of facts and findings");
  app.add_option("--cache-dir", line.cache_dir,
                 "The cache's folder (default: $CUDNNLINT_CACHE_DIR, else .cudnnlint_cache in the working directory)");
  app.add_option("--cache-size-limit", line.cache_size_mib,
                 "MiB the cache may hold; the least recently used entries go first (default 256)")
      ->check(CLI::PositiveNumber);
  app.add_flag("--timings", line.timings,
               "Print to stderr how long the analysis and its project step took (for benchmarks)");
  app.add_flag("--gpu-check", line.gpu_check,
               "After analysis, replay each finding's configuration against the installed cuDNN (see README: gpu_check)");
  app.add_option("--gpu-check-tier", line.gpu_check_tier,
                 "gpu_check tiers: all (descriptor, execution when a GPU is present, framework), descriptor (only "
                 "the descriptor tier: never touch the GPU), cudnn (descriptor and execution) or framework (only "
                 "the framework tier, on the CPU)")
      ->check(CLI::IsMember({"all", "descriptor", "cudnn", "framework"}));
  app.add_option("--python", line.python,
                 "gpu_check's framework tier: run the framework with this Python interpreter (default: the active "
                 "virtual or conda environment's, then the first python3 on PATH that has the framework)");
  app.add_option("--cudnn-library", line.cudnn_library,
                 "gpu_check: load this libcudnn file instead of searching CUDNN_PATH, the CUDA toolkit and pip wheels");
}

Subcommands define_subcommands(CLI::App& app, CommandLine& line) {
  Subcommands sub;
  sub.explain = app.add_subcommand("explain", "Print a knowledge-base entry (or a rule's entry) as Markdown");
  sub.explain->add_option("id", line.explain_id, "KB id such as cuda/cudnn-bn-epsilon-too-small, or a rule id")->required();
  sub.explain->add_option("--lang", line.explain_lang, "en or zh");
  sub.rules = app.add_subcommand("rules", "List the rules with their levels and KB entries");
  sub.flags =
      app.add_subcommand("flags", "Print, as JSON, the clang command each C++/CUDA file is parsed with (uses -p and --extra-arg)");
  sub.flags->add_option("files", line.flag_files, "C++/CUDA files")->required();
  sub.flags->fallthrough();  // -p and --extra-arg may follow the subcommand
  sub.gpu_check = app.add_subcommand(
      "gpu-check", "Replay the findings of an earlier SARIF report against the installed cuDNN (text, or -f sarif for "
                   "the report annotated with properties.gpuCheck)");
  sub.gpu_check->add_option("report", line.sarif_input, "SARIF file written by cudnnlint -f sarif")->required();
  sub.gpu_check->fallthrough();
  sub.server = app.add_subcommand(
      "server", "Run as a language server (LSP 3.17 over stdio) for editors: diagnostics of the open files");
  sub.server->add_option("--lang", line.server_lang, "the KB's language in hovers: en or zh (default: the editor's locale)");
  sub.triage = app.add_subcommand(
      "triage", "From a crash log to the code: recognise the failure (KB), map its frames onto PATH (default .), "
                "rank the findings near them, and say what to do (-f json / -f sarif for data)");
  sub.triage->add_option("log", line.triage_log, "The failed job's log, or - for standard input")->required();
  sub.triage->add_option("paths", line.triage_paths, "The tree the job ran (default: .)");
  sub.triage->fallthrough();
  sub.doctor =
      app.add_subcommand("doctor", "Print the cuDNN and CUDA versions found, the GPU, and which gpu_check tiers can run");
  sub.doctor->fallthrough();
  return sub;
}

// The configuration, with the command line's flags in its place where given, into `options`.
void apply_configuration(const CommandLine& line, const ProjectConfig& config, AnalysisOptions& options) {
  ProjectConfig effective = config;
  if (!line.exclude.empty()) effective.exclude = line.exclude;
  if (!line.select.empty()) effective.select = line.select;
  if (!line.ignore.empty()) effective.ignore = line.ignore;
  effective.extend_select.insert(effective.extend_select.end(), line.extend_select.begin(), line.extend_select.end());
  effective.extend_ignore.insert(effective.extend_ignore.end(), line.extend_ignore.begin(), line.extend_ignore.end());
  if (line.max_file_size > 0) effective.max_file_size = static_cast<std::uintmax_t>(line.max_file_size);
  if (!line.cudnn_version_text.empty()) effective.cudnn_version.reset();
  apply_project_config(effective, options);
  std::vector<std::string> ids;
  for (const RuleInfo& rule : all_rules()) ids.emplace_back(rule.id);
  // Where a list came from, for the message: the flag, else the configuration file's key.
  const std::string from = config.file.empty() ? "" : config.file.string() + ": ";
  const auto check = [&](const std::vector<std::string>& list, const std::string& where) {
    for (const auto& id : list)
      if (!find_rule(id))
        throw std::invalid_argument(where + ": unknown rule '" + id + "'" + did_you_mean(id, ids) + " (see `cudnnlint rules`)");
  };
  check(effective.select, line.select.empty() ? from + "select" : "--select");
  check(effective.ignore, line.ignore.empty() ? from + "ignore" : "--ignore");
  check(line.extend_select, "--extend-select");
  check(line.extend_ignore, "--extend-ignore");
  check(config.extend_select, from + "extend-select");
  check(config.extend_ignore, from + "extend-ignore");
  for (const auto& entry : config.per_file_ignores) check(entry.rules, from + "per-file-ignores \"" + entry.pattern + "\"");
}

void apply_cache_and_target(const CommandLine& line, AnalysisOptions& options) {
  options.cache.enabled = !line.no_cache;
  std::string cache_dir = line.cache_dir;
  if (cache_dir.empty())
    if (const char* from_env = std::getenv("CUDNNLINT_CACHE_DIR"); from_env != nullptr) cache_dir = from_env;
  options.cache.dir = cache_dir;
  options.cache.max_bytes = line.cache_size_mib << 20;
  if (!line.cudnn_version_text.empty()) {
    options.target.cudnn = parse_version(line.cudnn_version_text);
    if (!options.target.cudnn)
      throw std::invalid_argument("bad cuDNN version '" + line.cudnn_version_text + "' (expected e.g. 7.4 or 8.9.5)");
    options.target.cudnn_source = "--cudnn-version";
  }
  // --framework per framework on top of the configuration's.
  add_framework_pins(line.framework_specs, "--framework", options.target);
}

std::optional<Level> fail_level_of(const CommandLine& line, const ProjectConfig& config) {
  const std::string fail_text = !line.fail_level_text.empty() ? line.fail_level_text : config.fail_level.value_or("warning");
  if (fail_text == "none") return std::nullopt;
  const std::optional<Level> level = parse_level(fail_text);
  if (!level) throw std::invalid_argument("bad fail-level '" + fail_text + "'");
  return level;
}

}  // namespace

Subcommands define_command_line(CLI::App& app, CommandLine& line) {
  app.set_version_flag("--version", std::function<std::string()>(version_text));
  define_report_options(app, line);
  define_cpp_options(app, line);
  define_run_options(app, line);
  const Subcommands sub = define_subcommands(app, line);
  app.require_subcommand(0, 1);
  return sub;
}

PreparedAnalysis prepare_analysis(const CommandLine& line, std::vector<std::string> paths) {
  ProjectConfig config;
  if (!line.isolated) config = load_project_config(std::filesystem::current_path(), line.config_file);
  PreparedAnalysis prepared;
  AnalysisOptions& options = prepared.options;
  options.paths = std::move(paths);
  options.jobs = line.jobs;
  options.full_parse = line.full_parse;
  options.keep_facts = line.format == "facts";
  options.cpp.compile_commands_dir = line.compile_commands_dir;
  options.cpp.extra_args = line.extra_args;
  options.cpp.timeout_seconds = line.cpp_timeout;
  options.line_hashes = line.format == "sarif" || line.format == "json";
  options.discovery.respect_gitignore = !line.no_gitignore;
  apply_configuration(line, config, options);
  apply_cache_and_target(line, options);
  prepared.fail_level = fail_level_of(line, config);
  prepared.config_file = config.file;
  if (!line.baseline_file.empty() && !line.write_baseline_file.empty())
    throw std::invalid_argument("--baseline and --write-baseline: give one (a new baseline records every finding)");
  if (!line.baseline_file.empty()) prepared.baseline = Baseline::read(line.baseline_file);  // a bad file fails before the run
  return prepared;
}

gpu::GpuCheckOptions gpu_check_options(const CommandLine& line) {
  gpu::GpuCheckOptions options;
  options.cudnn_library = line.cudnn_library;
  options.execution = line.gpu_check_tier == "all" || line.gpu_check_tier == "cudnn";
  options.cudnn = line.gpu_check_tier != "framework";
  options.framework = line.gpu_check_tier == "all" || line.gpu_check_tier == "framework";
  options.framework_options.python = line.python;
  options.framework_options.kb_regex = [](std::string_view kb_id) -> std::string {
    const kb::Entry* entry = kb::find(kb_id);
    if (entry == nullptr || !entry->data) return "";
    const auto it = entry->data->find("regex");
    return it != entry->data->end() && it->is_string() ? it->get<std::string>() : "";
  };
  options.framework_options.kb_versions = [](std::string_view kb_id, FrameworkName framework) -> std::string {
    const kb::Entry* entry = kb::find(kb_id);
    if (entry == nullptr || !entry->data || !entry->data->contains("versions")) return "";
    const auto& versions = (*entry->data)["versions"];
    std::string out;
    for (const auto& v : versions.is_array() ? versions : nlohmann::json::array()) {
      const std::string text = v.is_object() && v.contains("version") && v["version"].is_string() ? v["version"].get<std::string>() : "";
      const bool about = framework == FrameworkName::Torch
                             ? text.find("PyTorch") != std::string::npos || text.find("torch") != std::string::npos
                             : text.find("TensorFlow") != std::string::npos || text.find("Keras") != std::string::npos;
      if (about && out.size() < 400) out += (out.empty() ? "" : "; ") + text;
    }
    return out;
  };
  return options;
}

}  // namespace cudnnlint::cli
