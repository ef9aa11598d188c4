// The C++/CUDA front-end: Clang LibTooling parses each translation unit (with its compile
// command when a compile_commands.json has one, else documented fallback flags) and AST
// matchers turn cuDNN calls into the same Facts the Python front-end produces.
#pragma once

#include "core/progress.h"
#include "core/facts.h"
#include "core/api_table.h"
#include "core/text_search.h"

#include <span>
#include <atomic>
#include <string>
#include <string_view>
#include <vector>

namespace cudnnlint::cpp {

struct CppOptions {
  std::string compile_commands_dir;     // -p: where compile_commands.json is; empty: search upward
  std::vector<std::string> extra_args;  // --extra-arg, appended to every command
  unsigned jobs = 0;                    // 0: one per hardware thread
  // A translation unit still parsing after this many seconds stops at its next top-level
  // declaration and gives a per-file diagnostic instead of facts.
  double timeout_seconds = 60.0;
  Progress* progress = nullptr;         // told of each unit started and finished (may be null)
  // Set by another thread to stop the parses at their next top-level declaration (the language
  // server's superseded analyses); their results are then empty. May be null.
  const std::atomic<bool>* cancelled = nullptr;
  // The analysed paths: a compile command's -include, -imacros, --config or @response file must
  // lie within them (or the system's and CUDA's include folders), and clang's first error is quoted
  // in the report only when it is in such a file. Empty: no restriction (the command line and the
  // language server always name the analysed paths).
  std::vector<std::string> trusted_roots;
};

struct CppFileResult {
  FileFacts facts;
  // Headers the file includes that were not on its include path and that cudnnlint stood in for
  // with its own declarations ("torch/torch.h": analyzer/cpp/libtorch_prelude.h).
  std::vector<std::string> stand_ins;
  std::string text;                     // the main file as clang read it (for excerpts and hashes)
  std::size_t text_size = 0;            // its size (what a cached result keeps of it)
  std::vector<FileDiagnostic> diagnostics;
  // The files clang read for it (the main file, headers), absolute: what the result depends on
  // beyond its command. In-memory files (the CUDA prelude, stand-ins) are not listed.
  std::vector<std::string> dependencies;
  // Absolute paths where clang looked for a header it did not find (or stood in for): the result
  // holds while none of them exists.
  std::vector<std::string> absent;
  // Whether the result is what any later parse of the same files with the same command gives
  // (while `absent` stays absent): not after a timeout, a crash, or a header that was a FIFO.
  bool cacheable = false;
};

// .c .cc .cpp .cxx .h .hh .hpp .cu .cuh
bool is_cpp_source(std::string_view path);
bool is_cuda_source(std::string_view path);
// .h .hh .hpp .cuh
bool is_header(std::string_view path);

// Clang's built-in headers (stddef.h, ...): bundled beside an installed binary, else the build's Clang.
std::string clang_resource_dir();

// The flags used when no compilation database knows the file (README: "How C++ analysis finds its flags").
std::vector<std::string> fallback_flags(std::string_view path);

// Whether a file can hold anything the C++ front-end looks for: it names one of those
// identifiers (a whole identifier: `cudnnCreate` is not `cudnnSetTensor4dDescriptor`), or it
// converts a small float constant to half.
bool may_contain_cpp_trigger(std::string_view text);

// The clang command line cudnnlint parses each file with (`cudnnlint flags FILE...`).
std::vector<std::vector<std::string>> clang_commands(std::span<const std::string> files, const CppOptions& options);

// Each file's command as one text, with the directory clang runs it in: what the cache keys a
// translation unit's result by, beside its bytes.
std::vector<std::string> command_texts(std::span<const std::string> files, const CppOptions& options);

// Analyses the files in parallel; one result per input file, in input order.
std::vector<CppFileResult> analyze_cpp(std::span<const std::string> files, const ApiTable& table,
                                       const CppOptions& options);

}  // namespace cudnnlint::cpp
