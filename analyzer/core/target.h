// The target a verdict depends on: the cuDNN version and the framework versions the code
// will run with. Every field may be unknown; rules then say so in their message instead of
// guessing.
#pragma once

#include <compare>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace cudnnlint {

struct Version {
  int major = 0;
  int minor = 0;
  int patch = 0;
  auto operator<=>(const Version&) const = default;
  std::string str() const;  // "7.4.1"; patch omitted when 0
};

// Parses "9", "7.4", "8.9.5"; nullopt for anything else.
std::optional<Version> parse_version(std::string_view text);

// A version constraint as a project pins it: `==2.4.0` (exact), `>=2.1,<2.5`, `~=2.1`, `^2.1`.
struct VersionRange {
  std::optional<Version> lower;   // none: no lower bound
  bool lower_inclusive = true;
  std::optional<Version> upper;   // none: no upper bound
  bool upper_inclusive = false;
  std::string text;               // as written: ">=2.1,<2.5"
  bool contains(const Version& v) const;
  bool exact() const { return lower && upper && *lower == *upper && lower_inclusive && upper_inclusive; }
};

struct Target {
  std::optional<Version> cudnn;
  std::string cudnn_source;  // where the cuDNN version came from: "--cudnn-version", "pyproject.toml"
  std::map<std::string, std::optional<Version>> frameworks;  // "torch" -> 2.1; a key with no version = declared, version unknown
  std::map<std::string, std::string> framework_sources;  // "torch" -> "--framework" or "pyproject.toml"
  // Frameworks the project pins to a range (the version in `frameworks` is then unset): the
  // engine judges each rule at the releases the range holds (variants()) and says where the
  // verdict changes.
  std::map<std::string, VersionRange> framework_ranges;
  // The target's variant this is, within the ranges ("torch 2.4.1"); empty for a target without ranges.
  std::string variant;

  // " (--framework)" for a framework the target names, "" otherwise.
  std::string source_note(const std::string& framework) const;

  // Keras major version for code that uses tf.keras / keras: from a keras pin, else from a
  // tensorflow pin (TF >= 2.16 ships Keras 3 as tf.keras), else unknown.
  std::optional<int> keras_major() const;
  // "cuDNN 7.4 (--cudnn-version)" or "cuDNN version unknown".
  std::string describe_cudnn() const;
};

// Parses a release as packages spell it: "2.1", "2.1.0", "2.1.0+cu118", "2.12.0rc1" (the release it
// belongs to); nullopt for anything else.
std::optional<Version> parse_release(std::string_view text);

// Parses one --framework value: "torch", "torch=2.1", "keras==2.15". Throws std::invalid_argument.
std::pair<std::string, std::optional<Version>> parse_framework_spec(std::string_view spec);

}  // namespace cudnnlint
