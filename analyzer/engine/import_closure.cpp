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

ImportGraph::ImportGraph(const std::vector<std::string>& project_files, const LoadLimits& limits) {
  const ModuleIndex modules(project_files);
  for (std::size_t i = 0; i < project_files.size(); ++i) {
    auto loaded = load_source_file(project_files[i], limits);
    if (!std::holds_alternative<SourceFile>(loaded)) continue;
    const SourceFile& file = std::get<SourceFile>(loaded);
    const ModuleInfo& info = modules.of(i);
    const std::string_view text = std::string_view(file.text()).substr(file.content_offset());
    std::set<std::size_t> seen;
    for (const std::string& module : python::imported_module_candidates(text, {info.name, info.is_package}))
      if (const auto found = modules.file_of(module); found && *found != i && seen.insert(*found).second)
        importers_[project_files[*found]].push_back(project_files[i]);
  }
}

const std::vector<std::string>& ImportGraph::importers_of(const std::string& path) const {
  static const std::vector<std::string> none;
  const auto it = importers_.find(path);
  return it == importers_.end() ? none : it->second;
}

}  // namespace cudnnlint
