// The Python files of a workspace that may read a config file's values. A value that code reads
// from a YAML or JSON file (`nn.BatchNorm2d(c, eps=cfg.model.bn_eps)`) is a finding at its line in
// that file, and only the code says which layer takes it: the language server analyses a config
// document with its readers, as `cudnnlint .` would. A reader names one of the file's keys as a word
// (the project step looks the other way, for the config files that name the code's last key:
// engine/project.cpp).
#pragma once

#include "core/source_file.h"

#include <cstddef>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cudnnlint::server {

// The keys a YAML or JSON text defines (`bn_eps:`, `- name:`, `"bn_eps":`) that are identifiers,
// each once, in order of appearance.
std::vector<std::string> config_keys(std::string_view text);

class ConfigReaders {
 public:
  // The files of `python` that name one of `keys` as a whole identifier (python::mentions_identifier),
  // those naming more keys first (then in the list's
  // order). Files in `limits.overlay` (the editor's buffers) are read from it on every call; the
  // others once per key, until clear().
  std::vector<std::string> readers(std::span<const std::string> keys, const std::vector<std::string>& python,
                                   const LoadLimits& limits);
  // Modules changed on disk, or came or went.
  void clear() { naming_.clear(); }

 private:
  std::map<std::string, std::vector<std::size_t>, std::less<>> naming_;  // key -> files (indices) naming it on disk
};

}  // namespace cudnnlint::server
