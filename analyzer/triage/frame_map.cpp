#include "triage/frame_map.h"

#include <algorithm>

namespace cudnnlint::triage {

namespace {

constexpr std::size_t kLibraryMinComponents = 3;
constexpr std::size_t kDriftWindow = 40;

}  // namespace

void check_against_tree(MappedFrame& frame, std::string_view file_text) {
  std::vector<std::string_view> lines;
  for (std::size_t start = 0; start < file_text.size();) {
    const std::size_t end = std::min(file_text.find('\n', start), file_text.size());
    lines.push_back(file_text.substr(start, end - start));
    start = end + 1;
  }
  const std::size_t n = frame.frame.line;
  const std::string_view code = trim_blanks(frame.frame.code);
  if (n == 0) return;
  if (code.empty()) {
    if (n > lines.size()) frame.drift = "line " + std::to_string(n) + " is past the end of the tree's file (" +
                                        std::to_string(lines.size()) + " lines): the tree is not the version that ran";
    else frame.tree_line = n;
    return;
  }
  if (n <= lines.size() && trim_blanks(lines[n - 1]) == code) {
    frame.tree_line = n;
    return;
  }
  for (std::size_t d = 1; d <= kDriftWindow; ++d)
    for (const std::size_t k : {n - std::min(n, d), n + d}) {
      if (k == 0 || k > lines.size() || trim_blanks(lines[k - 1]) != code) continue;
      frame.tree_line = k;
      frame.drift = "the log's code is at line " + std::to_string(k) + " in the tree, not " + std::to_string(n) +
                    ": the file changed since the run";
      return;
    }
  frame.drift = n > lines.size() ? "line " + std::to_string(n) + " is past the end of the tree's file (" +
                                       std::to_string(lines.size()) + " lines): the tree is not the version that ran"
                                 : "line " + std::to_string(n) + " of the tree's file holds other code than the log "
                                   "quotes: the tree is not the version that ran";
}

std::vector<std::string> path_components(std::string_view path) {
  std::vector<std::string> out;
  std::string current;
  auto flush = [&] {
    if (current.empty() || current == ".") {
    } else if (current == "..") {
      if (!out.empty()) out.pop_back();
    } else if (current == "..." || current == "…") {
      out.clear();  // "..." elides the start of the path: nothing before it is known
    } else {
      out.push_back(current);
    }
    current.clear();
  };
  for (char c : path) {
    if (c == '/' || c == '\\') flush();
    else current.push_back(c);
  }
  flush();
  return out;
}

bool is_library_path(std::string_view path) {
  for (std::string_view marker : {"site-packages", "dist-packages", "/lib/python", "\\lib\\python", "/lib64/python",
                                  "<frozen ", "/usr/lib/python", "\\Lib\\"})
    if (path.find(marker) != std::string_view::npos) return true;
  return false;
}

TreeIndex::TreeIndex(const std::vector<std::string>& files) : files_(files) {
  components_.reserve(files.size());
  for (std::size_t i = 0; i < files.size(); ++i) {
    components_.push_back(path_components(files[i]));
    if (!components_.back().empty()) by_basename_[components_.back().back()].push_back(i);
  }
}

MappedFrame TreeIndex::map(const Frame& frame) const {
  MappedFrame out;
  out.frame = frame;
  out.library = is_library_path(frame.path);
  const std::vector<std::string> wanted = path_components(frame.path);
  if (wanted.empty()) return out;
  const auto found = by_basename_.find(wanted.back());
  if (found == by_basename_.end()) return out;
  std::size_t best = 0;
  std::vector<std::size_t> best_files;
  for (const std::size_t i : found->second) {
    const auto& have = components_[i];
    std::size_t n = 0;
    while (n < have.size() && n < wanted.size() && have[have.size() - 1 - n] == wanted[wanted.size() - 1 - n]) ++n;
    if (n > best) {
      best = n;
      best_files = {i};
    } else if (n == best) {
      best_files.push_back(i);
    }
  }
  if (best == 0 || (out.library && best < kLibraryMinComponents)) return out;
  out.file = files_[best_files.front()];
  out.components = best;
  for (std::size_t k = 1; k < best_files.size(); ++k) out.others.push_back(files_[best_files[k]]);
  return out;
}

}  // namespace cudnnlint::triage
