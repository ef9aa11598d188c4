// The Python files of a project that a file's values may come from: the files it imports, the
// files those import, and so on, found among `project_files` by module name
// (engine/module_index.h). The language server analyses a document with them, so that
// `from .constants import EPS` is followed as on the command line without analysing the whole
// workspace on each keystroke.
#pragma once

#include "core/source_file.h"

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace cudnnlint {

class ModuleIndex;  // engine/module_index.h

struct ImportClosure {
  std::vector<std::string> files;  // `start` first, then in the order they were reached
  bool truncated = false;          // max_files was reached: some imports were not followed
};

// Imports are read from the text (LoadLimits::overlay first, then the disk); a file that cannot be
// read is left out quietly (the analysis reports it when it is the start).
ImportClosure import_closure(const std::string& start, const std::vector<std::string>& project_files,
                             const LoadLimits& limits, std::size_t max_files = 256);

// Who imports whom among a project's Python files, read once from every file's import lines: the
// language server adds a document's importers (and what they import) to its analysis, since a
// caller decides values in the callee (`conv_bn(c)` takes conv_bn's default eps).
class ImportGraph {
 public:
  // Reads every file (LoadLimits::overlay first) once.
  ImportGraph(const std::vector<std::string>& project_files, const LoadLimits& limits);
  ~ImportGraph();
  ImportGraph(ImportGraph&&) noexcept;
  ImportGraph& operator=(ImportGraph&&) noexcept;
  // The files whose import lines may load `path`, in the project's order.
  const std::vector<std::string>& importers_of(const std::string& path) const;
  // import_closure() over the graph: the files in `limits.overlay` (the editor's buffers) are read
  // again, since their imports change as one types; the others' edges are the graph's. A start
  // outside the project is handed to import_closure().
  ImportClosure closure(const std::string& start, const LoadLimits& limits, std::size_t max_files = 256) const;

 private:
  std::vector<std::size_t> imports_in(std::size_t file, std::string_view text) const;
  std::vector<std::string> files_;
  std::unique_ptr<ModuleIndex> modules_;
  std::map<std::string, std::size_t, std::less<>> index_;
  std::vector<std::vector<std::size_t>> imports_;  // by file: the files it imports (from the disk)
  std::map<std::string, std::vector<std::string>, std::less<>> importers_;
};

}  // namespace cudnnlint
