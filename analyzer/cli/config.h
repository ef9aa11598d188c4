// Project configuration: `.cudnnlint.toml`, or `[tool.cudnnlint]` in pyproject.toml, found in
// the working directory or its parents. Command-line flags override it.
#pragma once

#include "engine/analysis.h"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace cudnnlint {

struct ProjectConfig {
  std::filesystem::path file;                 // where it was read from; empty when none
  std::optional<std::string> cudnn_version;
  std::vector<std::string> frameworks;        // "torch=2.1"
  std::vector<std::string> select;
  std::vector<std::string> ignore;
  std::vector<std::string> extend_select;     // added to select (or to every rule when select is empty)
  std::vector<std::string> extend_ignore;     // added to ignore
  std::vector<PerFileIgnore> per_file_ignores;
  std::vector<std::string> exclude;
  std::optional<std::string> fail_level;
  std::optional<std::uintmax_t> max_file_size;
};

// Reads `explicit_file`, or searches upward from `start` when it is empty. Throws
// std::runtime_error naming the file and the problem when a config exists but is invalid.
ProjectConfig load_project_config(const std::filesystem::path& start, const std::filesystem::path& explicit_file);

// The configuration's settings put into `options`: rules, excludes, the file-size limit, and the
// target's versions, each with the file as its source. Throws std::invalid_argument for a bad
// cuDNN version or an unknown framework. The command line sets its flags into `config` first; the
// language server takes the configuration as it is.
void apply_project_config(const ProjectConfig& config, AnalysisOptions& options);
// Framework pins ("torch=2.1") into `target`, with `where` as their source; throws
// std::invalid_argument naming `where` for an unknown or repeated framework.
void add_framework_pins(const std::vector<std::string>& specs, const std::string& where, Target& target);

}  // namespace cudnnlint
