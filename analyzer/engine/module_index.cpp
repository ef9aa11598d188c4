#include "engine/module_index.h"

#include "core/identifier.h"

#include <filesystem>
#include <functional>
#include <sys/stat.h>

namespace cudnnlint {

namespace fs = std::filesystem;

ModuleIndex::ModuleIndex(const std::vector<std::string>& python_files) {
  // Per folder, once: the dotted name of the package it is ("" when it is no package), found by
  // climbing while folders hold an __init__.py. Folders are spelled as the walk gave them, made
  // absolute once, so that "a/b" and "./a/b" are one folder.
  std::error_code ec;
  const std::string cwd = fs::current_path(ec).string();
  std::unordered_map<std::string, std::optional<std::string>> package_of;  // folder -> package name
  std::function<std::optional<std::string>(const std::string&, int)> package = [&](const std::string& dir,
                                                                                    int depth) -> std::optional<std::string> {
    if (const auto it = package_of.find(dir); it != package_of.end()) return it->second;
    std::optional<std::string> name;
    struct stat info {};
    const std::string init = dir + "/__init__.py";
    if (depth < 64 && ::stat(init.c_str(), &info) == 0 && S_ISREG(info.st_mode)) {
      const auto slash = dir.rfind('/');
      const std::string base = slash == std::string::npos ? dir : dir.substr(slash + 1);
      if (is_identifier(base)) {
        const std::string parent = slash == std::string::npos || slash == 0 ? "" : dir.substr(0, slash);
        const auto above = parent.empty() ? std::nullopt : package(parent, depth + 1);
        name = above ? *above + "." + base : base;
      }
    }
    package_of.emplace(dir, name);
    return name;
  };
  auto add_name = [&](const std::string& name, std::size_t index) {
    const auto [it, inserted] = by_name_.emplace(name, index);
    if (!inserted && it->second != index) it->second.reset();  // ambiguous
  };
  infos_.reserve(python_files.size());
  for (std::size_t i = 0; i < python_files.size(); ++i) {
    std::string path = python_files[i];
    if (path.empty() || path[0] != '/') path = cwd + "/" + path;
    const auto slash = path.rfind('/');
    const std::string dir = path.substr(0, slash);
    std::string file = path.substr(slash + 1);
    const auto dot = file.rfind('.');
    const std::string stem = dot == std::string::npos ? file : file.substr(0, dot);
    ModuleInfo info;
    const auto parent = package(dir, 0);
    // A notebook is a module that nothing imports: its name ends in "-ipynb", which no import
    // statement can spell (train.ipynb beside train.py leaves `import train` to train.py), yet names
    // its own definitions (its calls reach them) and its package (its relative imports resolve).
    if (file.ends_with(".ipynb")) {
      if (is_identifier(stem)) {
        info.name = (parent ? *parent + "." : std::string()) + stem + "-ipynb";
        add_name(info.name, i);
      }
      infos_.push_back(std::move(info));
      continue;
    }
    info.is_package = stem == "__init__";
    if (info.is_package) {
      if (parent) info.name = *parent;
    } else if (is_identifier(stem)) {
      info.name = parent ? *parent + "." + stem : stem;
      // A module outside any package is also importable as "<folder>.<module>" when its folder's
      // parent is on sys.path (a namespace package: `from models.resnet import x`).
      if (!parent) {
        const auto up = dir.rfind('/');
        const std::string folder = up == std::string::npos ? dir : dir.substr(up + 1);
        if (is_identifier(folder)) add_name(folder + "." + stem, i);
      }
    }
    if (!info.name.empty()) add_name(info.name, i);
    infos_.push_back(std::move(info));
  }
}

std::optional<std::size_t> ModuleIndex::file_of(std::string_view name) const {
  const auto it = by_name_.find(std::string(name));
  if (it == by_name_.end()) return std::nullopt;
  return it->second;
}

std::optional<std::pair<std::size_t, std::string>> ModuleIndex::split(std::string_view qualified) const {
  for (std::size_t dot = qualified.rfind('.'); dot != std::string_view::npos && dot > 0;
       dot = qualified.rfind('.', dot - 1)) {
    if (const auto file = file_of(qualified.substr(0, dot))) return std::pair{*file, std::string(qualified.substr(dot + 1))};
    if (dot == 0) break;
  }
  return std::nullopt;
}

std::shared_ptr<const ModuleIndex> ModuleIndexCache::index_for(const std::vector<std::string>& python_files) {
  const std::lock_guard lock(mutex_);
  if (const auto it = kept_.find(python_files); it != kept_.end()) return it->second;
  if (kept_.size() >= kMaxKept) kept_.clear();
  auto index = std::make_shared<const ModuleIndex>(python_files);
  kept_.emplace(python_files, index);
  return index;
}

}  // namespace cudnnlint
