#include "engine/module_index.h"

#include <filesystem>
#include <map>

namespace cudnnlint {

namespace {

namespace fs = std::filesystem;

bool is_identifier(std::string_view text) {
  if (text.empty() || (text[0] >= '0' && text[0] <= '9')) return false;
  for (char c : text)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
          static_cast<unsigned char>(c) >= 0x80))
      return false;
  return true;
}

}  // namespace

ModuleIndex::ModuleIndex(const std::vector<std::string>& python_files) {
  std::map<std::string, bool> has_init;  // directory -> holds __init__.py
  auto package_dir = [&](const fs::path& dir) {
    const std::string key = dir.string();
    const auto it = has_init.find(key);
    if (it != has_init.end()) return it->second;
    std::error_code ec;
    const bool yes = fs::is_regular_file(dir / "__init__.py", ec);
    has_init.emplace(key, yes);
    return yes;
  };
  auto add_name = [&](const std::string& name, std::size_t index) {
    const auto [it, inserted] = by_name_.emplace(name, index);
    if (!inserted && it->second != index) it->second.reset();  // ambiguous
  };
  infos_.reserve(python_files.size());
  for (std::size_t i = 0; i < python_files.size(); ++i) {
    std::error_code ec;
    fs::path path = fs::absolute(fs::path(python_files[i]), ec).lexically_normal();
    ModuleInfo info;
    std::string stem = path.stem().string();
    info.is_package = stem == "__init__";
    std::vector<std::string> parts;
    if (!info.is_package) parts.push_back(stem);
    fs::path dir = path.parent_path();
    bool valid = info.is_package || is_identifier(stem);
    // Climb while the folder is a package (or, for __init__.py, starting at its own folder).
    for (int guard = 0; guard < 64 && valid && !dir.empty() && package_dir(dir); ++guard) {
      const std::string name = dir.filename().string();
      if (!is_identifier(name)) {
        valid = false;
        break;
      }
      parts.insert(parts.begin(), name);
      if (dir == dir.parent_path()) break;
      dir = dir.parent_path();
    }
    if (valid && !parts.empty()) {
      for (const auto& part : parts) info.name += (info.name.empty() ? "" : ".") + part;
      add_name(info.name, i);
      // A module outside any package is also importable as "<folder>.<module>" when its folder
      // is on sys.path's parent (a namespace package: `from models.resnet import x`).
      if (parts.size() == 1 && !info.is_package && is_identifier(dir.filename().string()))
        add_name(dir.filename().string() + "." + info.name, i);
    }
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

}  // namespace cudnnlint
