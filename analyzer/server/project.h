// The workspace as one project, as `cudnnlint .` run in its folder sees it: its configuration
// (.cudnnlint.toml, pyproject.toml), its Python and config files, who imports whom, and the target
// its pins give. It decides what a document is analysed with: the files it imports, the files
// that import it (a caller decides a callee's parameter values) and what those import, and the
// config files code may read. Thread-safe: the background thread records targets too.
#pragma once

#include "engine/analysis.h"
#include "engine/import_closure.h"
#include "engine/module_index.h"
#include "engine/session_cache.h"
#include "server/config_readers.h"

#include <cstddef>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace cudnnlint::server {

bool is_python(std::string_view path);
// Whether a change to `path` may change every document's findings: the configuration, the pins,
// the compile database.
bool is_project_file(const std::filesystem::path& path);
// Whether `path` is an open document (in `limits.overlay`) that is not on disk: a new file the
// editor has not saved. Analysed from its buffer (not C, C++ or CUDA: clang reads saved files).
bool only_in_editor(const std::string& path, const LoadLimits& limits);

class Project {
 public:
  static constexpr std::size_t kMaxAnalysed = 256, kMaxImporters = 32;

  explicit Project(std::ostream& log) : log_(log) {}
  // The workspace folder ("": none; each document is then analysed alone, with the configuration
  // found above it).
  void set_root(std::string root);
  const std::string& root() const { return root_; }

  // The options for the document at `path`, with the editor's buffers (`overlay`) and the open
  // Python documents' trees. A Python document comes with what it imports and what imports it; a
  // YAML or JSON document with the Python files that may read it (server/config_readers.h) and
  // what they import. `note` is set, once per session, when the scope had to be cut.
  AnalysisOptions options_for(const std::string& path,
                              std::shared_ptr<const std::map<std::string, std::string, std::less<>>> overlay,
                              ParsedPythonFiles parsed, std::shared_ptr<SessionCache> session, std::string& note);
  // An analysis done with options_for's options: the target its pins gave is kept for next time.
  void remember(const AnalysisOptions& options, const AnalysisResult& result);

  // What the editor reported: the configuration or the pins changed; files came or went; a
  // module's text changed on disk.
  void configuration_changed();
  void files_came_or_went();
  void module_changed();

 private:
  struct Files {
    std::vector<std::string> python, configs;
  };
  const Files& files(const AnalysisOptions& options);  // the caller holds mutex_
  // The caller holds mutex_. Each sets options.paths for a document of the workspace.
  void add_python_neighbours(const std::string& path, AnalysisOptions& options, std::string& note);
  void add_config_readers(const std::string& path, AnalysisOptions& options, std::string& note);
  void note_cut(const std::string& path, std::string& note);
  bool inside(const std::string& path) const;
  static std::string pins_key(const std::vector<std::string>& paths);
  const std::string& pins_key_of(const std::vector<std::string>& paths);  // the caller holds mutex_
  void drop_module_indexes();                                             // the caller holds mutex_

  std::ostream& log_;
  std::mutex mutex_;
  std::string root_;
  std::optional<Files> files_;               // found by a walk, as the command line's
  std::optional<ImportGraph> import_graph_;  // of the files on disk; rebuilt when they change
  std::map<std::string, Target> targets_;    // by pins_key(): the target the pins gave
  // The last paths' pins key: a document is analysed with the same files keystroke after keystroke.
  std::vector<std::string> pins_paths_;
  std::string pins_key_;
  std::shared_ptr<ModuleIndexCache> module_indexes_ = std::make_shared<ModuleIndexCache>();
  ConfigReaders config_readers_;  // which workspace files name which config keys
  bool cut_noted_ = false;
};

}  // namespace cudnnlint::server
