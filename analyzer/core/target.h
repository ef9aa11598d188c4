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

struct Target {
  std::optional<Version> cudnn;
  std::string cudnn_source;  // where the cuDNN version came from: "--cudnn-version", "pyproject.toml"
  std::map<std::string, std::optional<Version>> frameworks;  // "torch" -> 2.1; a key with no version = declared, version unknown
  std::map<std::string, std::string> framework_sources;  // "torch" -> "--framework" or "pyproject.toml"

  // " (--framework)" for a framework the target names, "" otherwise.
  std::string source_note(const std::string& framework) const;

  // Keras major version for code that uses tf.keras / keras: from a keras pin, else from a
  // tensorflow pin (TF >= 2.16 ships Keras 3 as tf.keras), else unknown.
  std::optional<int> keras_major() const;
  // "cuDNN 7.4 (--cudnn-version)" or "cuDNN version unknown".
  std::string describe_cudnn() const;
};

// Parses one --framework value: "torch", "torch=2.1", "keras==2.15". Throws std::invalid_argument.
std::pair<std::string, std::optional<Version>> parse_framework_spec(std::string_view spec);

}  // namespace cudnnlint
