// The modules of the analysed tree: which Python file is which module ("pkg.sub.mod", a
// package's "__init__.py" is "pkg.sub"), found from the __init__.py files above each file, so
// that `from pkg.sub import x` and `from .sub import x` lead to the file that defines x.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace cudnnlint {

struct ModuleInfo {
  std::string name;         // "pkg.sub.mod"
  bool is_package = false;  // an __init__.py
};

class ModuleIndex {
 public:
  explicit ModuleIndex(const std::vector<std::string>& python_files);

  const ModuleInfo& of(std::size_t file) const { return infos_[file]; }
  // The file that is module `name`; nullopt when none is, or when several files could be
  // (two scripts named train.py in different folders without packages).
  std::optional<std::size_t> file_of(std::string_view name) const;
  // The longest prefix of `qualified` ("pkg.sub.mod.NAME") that is a module of the tree, with
  // the rest ("NAME"); nullopt when no prefix is.
  std::optional<std::pair<std::size_t, std::string>> split(std::string_view qualified) const;

 private:
  std::vector<ModuleInfo> infos_;
  std::unordered_map<std::string, std::optional<std::size_t>> by_name_;  // nullopt: ambiguous
};

// Indexes kept from one analysis to the next, by their file list: the language server analyses a
// document with the same files keystroke after keystroke, and an index stats every folder's
// __init__.py. Whoever keeps one replaces it when files come or go. Thread-safe.
class ModuleIndexCache {
 public:
  std::shared_ptr<const ModuleIndex> index_for(const std::vector<std::string>& python_files);

 private:
  static constexpr std::size_t kMaxKept = 16;  // lists: one per open document, about
  std::mutex mutex_;
  std::map<std::vector<std::string>, std::shared_ptr<const ModuleIndex>> kept_;
};

}  // namespace cudnnlint
