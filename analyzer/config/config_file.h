// Config files (YAML and JSON) as the values code reads from them. Parsed safely with yaml-cpp's
// event parser (nothing is executed, aliases are not expanded, nesting is bounded), into the
// scalars they set by key path ("MODEL.BN_EPS", "model.layers.0.eps") with their source
// positions, plus the Hydra `_target_` nodes that construct an API from YAML.
//
// Numbers: what a reader gets depends on the reader. JSON and YAML 1.1 floats (`1.0e-6`,
// `0.00001`) are numbers everywhere; `1e-6` is a string to plain PyYAML but a number to
// OmegaConf/Hydra and to yacs (which literal_evals strings) — measured with PyYAML 6.0.2,
// OmegaConf 2.3.0 and yacs 0.1.8. Each scalar records both readings.
#pragma once

#include "core/facts.h"
#include "core/source_file.h"

#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace cudnnlint::config {

struct ConfigScalar {
  std::vector<std::string> path;     // keys from the document root; sequence items by index
  std::string text;                  // the value as the parser read it
  bool quoted = false;               // '...' or "..." in YAML, a string in JSON
  std::optional<double> yaml_number; // the number every YAML 1.1 / JSON reader gets
  std::optional<double> python_number;  // the number literal_eval / OmegaConf get (`1e-6` too)
  Location where;                    // the value
  Location key_where;                // its key
  std::string dotted() const;
};

// A mapping with `_target_: some.api` (Hydra's instantiate builds it with the other keys as
// keyword arguments and `_args_` as positional ones).
struct TargetNode {
  std::string target;
  std::vector<std::string> path;     // where the mapping sits
  Location where;                    // the `_target_` value
  std::vector<std::size_t> keywords;   // indices into scalars(): direct children of the mapping
  std::vector<std::size_t> positional; // indices into scalars(): items of `_args_`
};

class ConfigDocument {
 public:
  enum class Format { Yaml, Json };
  // Parses `file` (its extension decides the format). A parse error, or nesting deeper than
  // the limit, is an error value naming the file, line and problem.
  static std::variant<ConfigDocument, FileDiagnostic> parse(const SourceFile& file);

  Format format() const { return format_; }
  const std::string& path() const { return path_; }
  const std::vector<ConfigScalar>& scalars() const { return scalars_; }
  const std::vector<TargetNode>& targets() const { return targets_; }
  // `# @package <name>` (Hydra): where the file's keys are mounted; "" when absent,
  // "_global_" for the root.
  const std::string& package() const { return package_; }
  // The scalar at `dotted` from the root; nullptr when absent.
  const ConfigScalar* find(std::string_view dotted) const;
  // Follows OmegaConf interpolations (`${model.eps}`, `${.eps}`, `${..eps}`) from `scalar` to the
  // scalar they end at, recording each step; nullptr when one does not resolve in this file.
  // `mounts` are the key paths Hydra may mount the file at: an absolute key under one of them
  // is also looked up below it.
  const ConfigScalar* resolve(const ConfigScalar& scalar, std::vector<ProvenanceStep>& steps,
                              std::span<const std::string> mounts = {}) const;

 private:
  friend class ConfigBuilder;
  Format format_ = Format::Yaml;
  std::string path_;
  std::vector<ConfigScalar> scalars_;
  std::vector<TargetNode> targets_;
  std::map<std::string, std::size_t, std::less<>> by_path_;
  std::string package_;
};

// The reading of a YAML 1.1 plain scalar as PyYAML's safe_load does (int or float, `.inf` and
// `.nan` included), as Python's literal_eval does, and of a JSON scalar as Python's json module
// does (`NaN`, `Infinity`); nullopt when that reader sees a string.
std::optional<double> yaml11_number(std::string_view text);
std::optional<double> python_literal_number(std::string_view text);
std::optional<double> json_number(std::string_view text);

bool is_config_file(std::string_view path);  // .yaml, .yml, .json

// No real configuration nests deeper; yaml-cpp recurses into each level, and its scanner holds a
// token per bracket (an 8 MB line of `[` took 1.2 GB), so deeper texts are refused before parsing.
inline constexpr int kMaxConfigNesting = 256;

// Whether a YAML or JSON text nests flow collections (`[`, `{`) deeper than kMaxConfigNesting.
// One pass over the bytes; brackets in strings and comments count too, an upper bound that real
// files stay far below. Every reader of YAML or JSON calls it before parsing.
bool nested_too_deep(std::string_view text);

}  // namespace cudnnlint::config
