// Data files compiled into the binary (KB entries, the API table). See analyzer/embed_files.cmake.
#pragma once

#include <span>
#include <string_view>

namespace cudnnlint {

struct EmbeddedFile {
  std::string_view path;      // relative to the repository root, e.g. "kb/cuda/x.json"
  std::string_view contents;
};

std::span<const EmbeddedFile> embedded_files();

}  // namespace cudnnlint
