#pragma once

#include <string>

namespace cudnnlint::cli {

// What `cudnnlint --version` prints: the version, then what the binary was built against (the
// cuDNN headers, the tree-sitter grammar pin, Clang and the built-in headers it reads).
std::string version_text();

}  // namespace cudnnlint::cli
