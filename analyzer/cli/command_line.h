// The command line: every option and subcommand cudnnlint takes, parsed into one CommandLine
// that main() hands to the subcommand that runs (cli/subcommands.h, server/run_server.h,
// triage/run_triage.h).
#pragma once

#include "core/finding.h"
#include "engine/analysis.h"
#include "engine/baseline.h"
#include "gpu_check/gpu_check.h"

#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cudnnlint::cli {

// Exit codes: 0 nothing at or above --fail-level, 1 findings at or above it, 2 usage or tool error.
inline constexpr int kExitClean = 0;
inline constexpr int kExitFindings = 1;
inline constexpr int kExitError = 2;

struct CommandLine {
  // The analysis (no subcommand), and what triage and gpu-check share of it.
  std::vector<std::string> paths;
  std::string format = "text";
  std::string output_file;
  std::string fail_level_text;
  std::string cudnn_version_text;
  std::vector<std::string> framework_specs, select, ignore, extend_select, extend_ignore, exclude;
  bool exit_zero = false;     // exit 0 whatever the findings (2 still for a usage or tool error)
  bool statistics = false;    // counts per rule instead of the findings
  bool show_files = false, show_settings = false;
  std::string stdin_filename;  // the path a `-` input (standard input) is analysed as
  unsigned jobs = 0;
  std::int64_t max_file_size = 0;  // 0: not given
  bool no_gitignore = false, full_parse = false, isolated = false;
  std::string color_mode = "auto";
  bool no_color = false;
  std::string config_file, baseline_file, write_baseline_file;
  bool no_progress = false;
  std::string sarif_category, source_root_text;
  std::string compile_commands_dir;
  std::vector<std::string> extra_args;
  double cpp_timeout = 60.0;
  bool fix = false, unsafe_fixes = false, diff = false, add_noqa = false;
  bool no_cache = false;
  std::string cache_dir;
  std::uint64_t cache_size_mib = 256;
  bool timings = false;
  bool gpu_check = false;
  std::string gpu_check_tier = "all";
  std::string python;  // --python: the framework tier's interpreter
  std::string cudnn_library;
  // Subcommands' own arguments.
  std::string explain_id, explain_lang = "en";
  std::vector<std::string> flag_files;
  std::string sarif_input;
  std::string server_lang;
  std::string triage_log;
  std::vector<std::string> triage_paths;
};

// Which subcommand the command line named; none parsed: the analysis.
struct Subcommands {
  CLI::App* explain = nullptr;
  CLI::App* rules = nullptr;
  CLI::App* flags = nullptr;
  CLI::App* gpu_check = nullptr;
  CLI::App* server = nullptr;
  CLI::App* triage = nullptr;
  CLI::App* doctor = nullptr;
};

// Declares every option and subcommand on `app`, each parsing into `line` (which must outlive it).
Subcommands define_command_line(CLI::App& app, CommandLine& line);

// What an analysis run (and triage's) takes from the command line and the project configuration,
// checked before anything runs: an unknown rule, a bad version or fail level, a baseline that
// cannot be read throw std::invalid_argument or std::runtime_error.
struct PreparedAnalysis {
  AnalysisOptions options;
  std::optional<Level> fail_level;  // nullopt: --fail-level none
  std::optional<Baseline> baseline;
  std::filesystem::path config_file;  // the configuration read; empty when none (or --isolated)
};
PreparedAnalysis prepare_analysis(const CommandLine& line, std::vector<std::string> paths);

gpu::GpuCheckOptions gpu_check_options(const CommandLine& line);

}  // namespace cudnnlint::cli
