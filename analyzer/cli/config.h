// Project configuration: `.cudnnlint.toml`, or `[tool.cudnnlint]` in pyproject.toml, found in
// the working directory or its parents. Command-line flags override it.
#pragma once

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
  std::vector<std::string> exclude;
  std::optional<std::string> fail_level;
  std::optional<std::uintmax_t> max_file_size;
};

// Reads `explicit_file`, or searches upward from `start` when it is empty. Throws
// std::runtime_error naming the file and the problem when a config exists but is invalid.
ProjectConfig load_project_config(const std::filesystem::path& start, const std::filesystem::path& explicit_file);

}  // namespace cudnnlint
