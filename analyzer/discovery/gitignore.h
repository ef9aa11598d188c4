// A gitignore matcher that follows git's own rules (gitignore(5), and git's dir.c/wildmatch
// where the manual is silent), so that "cudnnlint ." and "git status" agree on what a project's
// files are.
//
// One IgnoreRules holds the patterns of one source (a .gitignore file, .git/info/exclude, or
// --exclude patterns from the command line) and answers for paths relative to that source's
// directory. Combining sources (deeper .gitignore files win over shallower ones, which win over
// info/exclude) and pruning excluded directories is the walker's job: git never looks inside
// an excluded directory, which is why a file in it cannot be re-included.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace cudnnlint {

// git's wildmatch(): `*`, `?`, `[...]` (with `!`/`^` negation, ranges and `[:class:]`), and
// backslash escapes. With `pathname` set (git's WM_PATHNAME), `*`, `?` and `[...]` never match
// '/', and `**` between slashes (or at either end) matches across directories; a `**/` may
// also match nothing. Exposed for tests and for callers that need plain globbing.
[[nodiscard]] bool wildmatch(std::string_view pattern, std::string_view text, bool pathname = true);

class IgnoreRules {
 public:
  enum class Verdict {
    None,      // no pattern matched; the next (lower-precedence) source decides
    Ignored,   // the last matching pattern excludes the path
    Included,  // the last matching pattern is a negation (`!pattern`)
  };

  // Adds every pattern in `text`, which has .gitignore syntax: one pattern per line, a UTF-8
  // BOM and CR before LF are dropped, blank lines and lines starting with '#' are skipped,
  // unescaped trailing spaces are trimmed.
  void add_text(std::string_view text);

  // Adds one line of .gitignore syntax (a comment or blank line adds nothing).
  void add_line(std::string_view line);

  // Reads a .gitignore-syntax file. Returns false, adding nothing, when it cannot be read.
  bool add_file(const std::filesystem::path& file);

  // The verdict of the last pattern matching `path`. `path` is relative to the directory the
  // patterns belong to, '/'-separated, with no leading "./", leading '/' or trailing '/'.
  // Only the path itself is tested: that a parent directory is excluded is for the caller
  // to know (it should not have descended there).
  [[nodiscard]] Verdict match(std::string_view path, bool is_dir) const;

  [[nodiscard]] bool empty() const noexcept { return patterns_.empty(); }
  [[nodiscard]] std::size_t size() const noexcept { return patterns_.size(); }

 private:
  // A pattern line, parsed once so that matching does no string work beyond the comparison.
  struct Pattern {
    std::string body;                 // without '!', without the trailing '/', and for an
                                      // anchored pattern without the leading '/'
    std::size_t literal_prefix = 0;   // length of body's leading run with no glob character
    bool negated = false;             // `!pattern`
    bool dir_only = false;            // `pattern/`
    bool basename_only = false;       // no '/' except a trailing one: matches at any depth
    bool ends_with = false;           // `*literal` on a basename: a plain suffix comparison
  };

  [[nodiscard]] static bool matches(const Pattern& pattern, std::string_view path,
                                    std::string_view basename);

  std::vector<Pattern> patterns_;
};

} // namespace cudnnlint
