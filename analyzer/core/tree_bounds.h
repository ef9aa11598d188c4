// Where an analysed path ends, for reading through links and for writing fixes. A tree may hold
// symbolic links (git commits them as such); one that leads out of the tree must not make
// cudnnlint read, quote or write what lies outside. The bound of a path named on the command line
// is its real location, except when the name itself is a link: then the tree controls where it
// leads, and the bound is the real folder that holds the link (a link to a sibling folder stays
// inside, `src -> ../outside` does not).
#pragma once

#include <filesystem>

namespace cudnnlint {

// The real folder (or file) within which everything reached through `root` must lie; empty
// when `root` cannot be resolved.
std::filesystem::path tree_bound(const std::filesystem::path& root);

// Whether the real path `real` is `bound` or lies below it (component-wise).
bool lies_within(const std::filesystem::path& real, const std::filesystem::path& bound);

// Whether `path`, with its links resolved, lies within `bound`; false when it cannot be resolved.
bool resolves_within(const std::filesystem::path& path, const std::filesystem::path& bound);

// The first folder of `path`'s parent, below the working directory, that is a symbolic link ("" when
// none): a path the user gives relative to (or inside) the working directory runs through the
// tree's folders, which the tree may have made links out of it (`reports -> ../outside`).
std::filesystem::path linked_folder_below_cwd(const std::filesystem::path& path);

}  // namespace cudnnlint
