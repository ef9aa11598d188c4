#include "core/tree_bounds.h"

namespace cudnnlint {

namespace fs = std::filesystem;

fs::path tree_bound(const fs::path& root) {
  std::error_code ec;
  const fs::path absolute = fs::absolute(root, ec).lexically_normal();
  if (ec) return {};
  fs::path named = absolute;
  if (!named.has_filename() && named.has_parent_path()) named = named.parent_path();  // "src/" is "src"
  if (fs::is_symlink(fs::symlink_status(named, ec))) {
    const fs::path holder = fs::canonical(named.parent_path(), ec);
    return ec ? fs::path() : holder;
  }
  const fs::path real = fs::canonical(named, ec);
  return ec ? fs::path() : real;
}

bool lies_within(const fs::path& real, const fs::path& bound) {
  if (real.empty() || bound.empty()) return false;
  auto r = real.begin();
  for (auto b = bound.begin(); b != bound.end(); ++b, ++r) {
    if (b->empty()) continue;  // a trailing separator
    if (r == real.end() || *r != *b) return false;
  }
  return true;
}

bool resolves_within(const fs::path& path, const fs::path& bound) {
  std::error_code ec;
  const fs::path real = fs::canonical(path, ec);
  return !ec && lies_within(real, bound);
}

fs::path linked_folder_below_cwd(const fs::path& path) {
  std::error_code ec;
  const fs::path cwd = fs::current_path(ec);
  if (ec) return {};
  fs::path relative = path.lexically_normal();
  if (relative.is_absolute()) {
    relative = relative.lexically_relative(cwd);
    if (relative.empty() || *relative.begin() == "..") return {};  // outside: the user's own place
  }
  fs::path walked = cwd;
  for (const fs::path& part : relative.parent_path()) {
    if (part.empty() || part == ".") continue;
    if (part == "..") return {};  // leaves the working directory: the user's own place
    walked /= part;
    if (fs::is_symlink(fs::symlink_status(walked, ec))) return walked;
  }
  return {};
}

}  // namespace cudnnlint
