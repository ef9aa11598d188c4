// The tree's YAML and JSON config files as the project step reads them: each file's text and
// parsed document read once, on first use; the files that may set a key path, from an index of
// their words; every file's value for a key path the code reads (`cfg.MODEL.BN_EPS`), through
// interpolations and Hydra's mounts. And the step's third phase: Hydra `_target_` nodes that
// build a normalization API from YAML.
#pragma once

#include "config/config_file.h"
#include "core/api_table.h"
#include "core/facts.h"
#include "core/source_file.h"

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace cudnnlint {

// A key path specific enough to tie a config value to the code that reads it: two or more
// components (`MODEL.BN_EPS`, `model.bn_eps`), or one compound name (`batch_norm_eps`). A bare
// `eps` could be any optimizer's or scheduler's.
bool distinctive_key_path(const std::string& path);

// One config file's value for a key path.
struct ConfigHit {
  const config::ConfigScalar* scalar = nullptr;  // where the key is set
  double value = 0.0;
  std::vector<ProvenanceStep> steps;             // interpolations crossed, definition first
  std::string file;
};

class ConfigFiles {
 public:
  // A file that cannot be read or parsed is a diagnostic in `diagnostics`; the suppression
  // comments of those read go to `suppressions`.
  ConfigFiles(const std::vector<std::string>& files, const LoadLimits& limits, std::vector<FileDiagnostic>& diagnostics,
              std::map<std::string, std::vector<SuppressionComment>>& suppressions);

  std::size_t size() const { return files_.size(); }
  const std::string& path(std::size_t index) const { return files_[index]; }
  // The parsed document; nullptr when the file cannot be read or parsed.
  const config::ConfigDocument* document(std::size_t index);
  // The text, read once; "" when it cannot be read (over --max-file-size, binary, not UTF-8).
  const std::string& text(std::size_t index);
  // Files that may set `path`: their text names its last key as a word.
  const std::vector<std::size_t>& candidates(const std::string& path);
  // Every config file's value for `path` (the code's key path below its config object).
  // `yacs_reader`: the code reads the files through Python's YAML loader the way yacs does.
  std::vector<ConfigHit> values(const std::string& path, bool yacs_reader);
  // Where Hydra may mount a config file's keys: under its config group's folder name (one or two
  // levels) unless `# @package` says otherwise; "" is the root.
  static std::vector<std::string> mount_prefixes(const config::ConfigDocument& doc);

 private:
  const std::vector<std::string>& files_;
  const LoadLimits& limits_;
  std::vector<FileDiagnostic>& diagnostics_;
  std::map<std::string, std::vector<SuppressionComment>>& suppressions_;
  std::unordered_map<std::size_t, std::unique_ptr<config::ConfigDocument>> documents_;
  std::unordered_map<std::size_t, bool> omegaconf_;
  std::unordered_map<std::size_t, std::optional<std::string>> texts_;
  std::optional<std::unordered_map<std::string, std::vector<std::size_t>>> words_;
  std::unordered_map<std::string, std::optional<std::vector<std::size_t>>> spellings_;
};

// The normalizations Hydra builds from `_target_` nodes of the config files, one FileFacts per
// file that has any (with the file's suppression comments from `suppressions`).
std::vector<FileFacts> hydra_normalizations(ConfigFiles& configs, const ApiTable& table,
                                            const std::map<std::string, std::vector<SuppressionComment>>& suppressions);

}  // namespace cudnnlint
