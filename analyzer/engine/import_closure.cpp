#include "engine/import_closure.h"

#include "engine/module_index.h"
#include "python/imports.h"

#include <algorithm>
#include <deque>
#include <set>

namespace cudnnlint {

ImportClosure import_closure(const std::string& start, const std::vector<std::string>& project_files,
                             const LoadLimits& limits, std::size_t max_files) {
  // The start may be a file the project's list lacks (new, or excluded): it is indexed with them.
  std::vector<std::string> files = project_files;
  std::size_t start_index = static_cast<std::size_t>(std::find(files.begin(), files.end(), start) - files.begin());
  if (start_index == files.size()) files.push_back(start);
  const ModuleIndex modules(files);

  ImportClosure closure;
  std::set<std::size_t> seen{start_index};
  std::deque<std::size_t> queue{start_index};
  closure.files.push_back(start);
  while (!queue.empty()) {
    const std::size_t current = queue.front();
    queue.pop_front();
    auto loaded = load_source_file(files[current], limits);
    if (!std::holds_alternative<SourceFile>(loaded)) continue;
    const SourceFile& file = std::get<SourceFile>(loaded);
    const ModuleInfo& info = modules.of(current);
    const std::string_view text = std::string_view(file.text()).substr(file.content_offset());
    for (const std::string& module : python::imported_module_candidates(text, {info.name, info.is_package})) {
      const auto found = modules.file_of(module);
      if (!found || !seen.insert(*found).second) continue;
      if (closure.files.size() >= max_files) {
        closure.truncated = true;
        return closure;
      }
      closure.files.push_back(files[*found]);
      queue.push_back(*found);
    }
  }
  return closure;
}

ImportGraph::ImportGraph(const std::vector<std::string>& project_files, const LoadLimits& limits)
    : files_(project_files), modules_(std::make_unique<ModuleIndex>(project_files)), imports_(project_files.size()) {
  for (std::size_t i = 0; i < files_.size(); ++i) index_.emplace(files_[i], i);
  for (std::size_t i = 0; i < files_.size(); ++i) {
    auto loaded = load_source_file(files_[i], limits);
    if (!std::holds_alternative<SourceFile>(loaded)) continue;
    const SourceFile& file = std::get<SourceFile>(loaded);
    imports_[i] = imports_in(i, std::string_view(file.text()).substr(file.content_offset()));
    for (const std::size_t imported : imports_[i]) importers_[files_[imported]].push_back(files_[i]);
  }
}

ImportGraph::~ImportGraph() = default;
ImportGraph::ImportGraph(ImportGraph&&) noexcept = default;
ImportGraph& ImportGraph::operator=(ImportGraph&&) noexcept = default;

std::vector<std::size_t> ImportGraph::imports_in(std::size_t file, std::string_view text) const {
  const ModuleInfo& info = modules_->of(file);
  std::vector<std::size_t> out;
  std::set<std::size_t> seen;
  for (const std::string& module : python::imported_module_candidates(text, {info.name, info.is_package}))
    if (const auto found = modules_->file_of(module); found && *found != file && seen.insert(*found).second)
      out.push_back(*found);
  return out;
}

const std::vector<std::string>& ImportGraph::importers_of(const std::string& path) const {
  static const std::vector<std::string> none;
  const auto it = importers_.find(path);
  return it == importers_.end() ? none : it->second;
}

ImportClosure ImportGraph::closure(const std::string& start, const LoadLimits& limits, std::size_t max_files) const {
  const auto at = index_.find(start);
  if (at == index_.end()) return import_closure(start, files_, limits, max_files);
  ImportClosure closure;
  std::set<std::size_t> seen{at->second};
  std::deque<std::size_t> queue{at->second};
  closure.files.push_back(start);
  while (!queue.empty()) {
    const std::size_t current = queue.front();
    queue.pop_front();
    std::vector<std::size_t> edges;
    if (limits.overlay && limits.overlay->contains(files_[current])) {
      auto loaded = load_source_file(files_[current], limits);
      if (std::holds_alternative<SourceFile>(loaded)) {
        const SourceFile& file = std::get<SourceFile>(loaded);
        edges = imports_in(current, std::string_view(file.text()).substr(file.content_offset()));
      }
    } else {
      edges = imports_[current];
    }
    for (const std::size_t next : edges) {
      if (!seen.insert(next).second) continue;
      if (closure.files.size() >= max_files) {
        closure.truncated = true;
        return closure;
      }
      closure.files.push_back(files_[next]);
      queue.push_back(next);
    }
  }
  return closure;
}

}  // namespace cudnnlint
