#include "cli/version.h"

#include "cpp/frontend.h"

#ifndef CUDNNLINT_CUDNN_HEADERS
#error "CUDNNLINT_CUDNN_HEADERS, CUDNNLINT_GRAMMAR_PIN and CUDNNLINT_CLANG_VERSION are set by CMake"
#endif

namespace cudnnlint::cli {

std::string version_text() {
  return std::string("cudnnlint ") + CUDNNLINT_VERSION +
         "\ncuDNN headers: " CUDNNLINT_CUDNN_HEADERS " (built against; gpu_check finds libcudnn at run time)"
         "\ngrammar: " CUDNNLINT_GRAMMAR_PIN
         "\nclang: " CUDNNLINT_CLANG_VERSION " (built-in headers: " + cpp::clang_resource_dir() + ")";
}

}  // namespace cudnnlint::cli
