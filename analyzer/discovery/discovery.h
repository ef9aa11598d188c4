// File discovery: turns the paths named on the command line into the list of files to lint.
//
// A named file is taken as it is (whatever its extension, even if ignored), as Ruff and
// clang-tidy do: naming it is the user's decision. A named directory is walked: files with a
// listed extension, minus what git ignores (.gitignore files from the enclosing repository's
// root down, .git/info/exclude), minus Ruff's default excluded directory names and any
// virtualenv (a directory holding pyvenv.cfg), minus the --exclude patterns.
#pragma once

#include "core/facts.h"

#include <span>
#include <string>
#include <vector>

namespace cudnnlint {

struct DiscoveryOptions {
  // What a directory walk picks up ("py" is read as ".py"): Python and notebooks, C++/CUDA
  // (cpp::is_cpp_source), and the config files code reads values from (config::is_config_file;
  // they are read only when some code reads a key they may set).
  std::vector<std::string> extensions = {".py", ".pyi", ".ipynb", ".c", ".cc", ".cpp", ".cxx", ".h", ".hh",
                                         ".hpp", ".cu", ".cuh", ".yaml", ".yml", ".json"};
  bool respect_gitignore = true;
  // Extra patterns in gitignore syntax, relative to the current directory, that prune the walk
  // (they win over .gitignore files). Like gitignore patterns they never drop a named file.
  std::vector<std::string> exclude;
};

struct DiscoveryResult {
  // Sorted, unique, spelled with the user's own prefix: "examples/" gives "examples/a.py",
  // "./examples" too, "." gives "a.py"; "./" and "//" never appear.
  std::vector<std::string> files;
  // A named path that does not exist (Error), an unreadable directory or .gitignore (Warning).
  std::vector<FileDiagnostic> diagnostics;
  bool usage_error = false;  // true when a named path does not exist
};

// Never throws for bad input; every problem becomes a diagnostic.
[[nodiscard]] DiscoveryResult discover(std::span<const std::string> paths,
                                       const DiscoveryOptions& options);

// Ruff's default excluded directory names, skipped at any depth of a walk.
[[nodiscard]] bool is_default_excluded_directory(std::string_view name);

// "./a//b/." -> "a/b", "." and "./" -> ".", "/x/../y" -> "/y". Lexical: ".." cancels the
// component before it, as Python's os.path.normpath does.
[[nodiscard]] std::string normalize_path_spelling(std::string_view path);

} // namespace cudnnlint
