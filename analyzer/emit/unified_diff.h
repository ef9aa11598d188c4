// `--diff`: a file's fixes as a unified diff (what `diff -u` and `git apply` read).
#pragma once

#include <string>
#include <string_view>

namespace cudnnlint {

// The unified diff from `before` to `after` of `path` (headers a/path, b/path; 3 lines of context);
// "" when they are equal. Lines are compared whole (Myers' algorithm: the fixes touch few lines).
// Nothing of the file reaches the output raw: a name with a control character, a quote or a
// backslash is quoted as git quotes it, and control characters in lines are escaped (printable()).
std::string unified_diff(std::string_view path, std::string_view before, std::string_view after);

}  // namespace cudnnlint
