#include "discovery/gitignore.h"

#include "core/source_file.h"

#include <cstdint>
#include <unordered_map>
#include <vector>


namespace cudnnlint {

namespace {

// The outcome of matching a pattern tail against a text tail. The two abort codes let a `*`
// stop trying further positions once no later position can help, which keeps pathological
// patterns (many stars) from going exponential; their meaning is the same as in git.
enum class Wild {
  Match,
  NoMatch,
  AbortAll,         // the text ran out: no shorter text can match either
  AbortToStarStar,  // a single `*` reached a '/': only an enclosing `**` may go further
};

bool is_glob_special(char c) {
  return c == '*' || c == '?' || c == '[' || c == '\\';
}

// Character classes are ASCII-only and independent of the process locale, as in git.
bool in_named_class(std::string_view name, unsigned char c) {
  if (c >= 0x80) return false;
  const bool upper = c >= 'A' && c <= 'Z';
  const bool lower = c >= 'a' && c <= 'z';
  const bool digit = c >= '0' && c <= '9';
  const bool graph = c > 0x20 && c < 0x7f;
  if (name == "alnum") return upper || lower || digit;
  if (name == "alpha") return upper || lower;
  if (name == "blank") return c == ' ' || c == '\t';
  if (name == "cntrl") return c < 0x20 || c == 0x7f;
  if (name == "digit") return digit;
  if (name == "graph") return graph;
  if (name == "lower") return lower;
  if (name == "print") return graph || c == ' ';
  if (name == "punct") return graph && !upper && !lower && !digit;
  if (name == "space") return c == ' ' || (c >= '\t' && c <= '\r');
  if (name == "upper") return upper;
  if (name == "xdigit") return digit || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
  return false;
}

bool is_known_class(std::string_view name) {
  static constexpr std::string_view kClasses[] = {"alnum", "alpha", "blank", "cntrl",
                                                  "digit", "graph", "lower", "print",
                                                  "punct", "space", "upper", "xdigit"};
  for (std::string_view known : kClasses) {
    if (name == known) return true;
  }
  return false;
}

// Matches `pattern` against `text`. Both are tails of the caller's strings; the start of
// `pattern` counts as a directory boundary for `**` (as the start of a sub-pattern does in git).
// Reading past either end yields '\0', which neither paths nor patterns contain, so the
// end-of-string tests read like the C algorithm they mirror.
class WildMemo;
Wild match_tail(std::string_view pattern, std::string_view text, bool pathname, WildMemo& memo);
Wild match_after_star(std::string_view rest, std::string_view text, bool crosses_slashes,
                      WildMemo& memo, std::vector<std::size_t>& tried);

// Outcomes of (pattern tail, text tail) pairs already matched. The matcher is a pure function of
// the two tails, and nested stars retry the same pairs: without the memo a pattern such as
// "**/**/a**/**/b…" takes exponential time (found by fuzz_gitignore). A tail is named by its
// length, since both are suffixes of the caller's strings.
class WildMemo {
 public:
  WildMemo(std::size_t pattern_size, std::size_t text_size, bool pathname)
      : pathname_(pathname), row_(text_size + 1), cells_((pattern_size + 1) * (text_size + 1)) {}

  Wild tail(std::string_view pattern, std::string_view text) {
    const std::size_t cell = pattern.size() * row_ + text.size();
    if (cell < kTableCells) {
      // A flat table, made on the first nested match (most matches never recurse).
      if (table_.empty()) table_.assign(cells_, kUnknown);
      if (table_[cell] != kUnknown) return static_cast<Wild>(table_[cell]);
      const Wild outcome = match_tail(pattern, text, pathname_, *this);
      table_[cell] = static_cast<std::uint8_t>(outcome);
      return outcome;
    }
    if (const auto found = overflow_.find(cell); found != overflow_.end()) return found->second;
    const Wild outcome = match_tail(pattern, text, pathname_, *this);
    overflow_.emplace(cell, outcome);
    return outcome;
  }

  // A star that crosses '/' followed by `rest`, tried at every start in `text`. Trying from t
  // fails over to trying from the next candidate, so every start it passed through has the
  // same outcome: remembering them all keeps "**/a/**/a/…" quadratic, not cubic.
  Wild after_star(std::string_view rest, std::string_view text, bool crosses_slashes) {
    std::vector<std::size_t> tried;
    if (!crosses_slashes) return match_after_star(rest, text, false, *this, tried);
    const Wild outcome = match_after_star(rest, text, true, *this, tried);
    for (const std::size_t text_size : tried) crossing_stars_.emplace(key(rest, text_size), outcome);
    return outcome;
  }

  const Wild* crossing_star(std::string_view rest, std::size_t text_size) const {
    const auto found = crossing_stars_.find(key(rest, text_size));
    return found == crossing_stars_.end() ? nullptr : &found->second;
  }

 private:
  static constexpr std::uint8_t kUnknown = 0xff;
  static constexpr std::size_t kTableCells = std::size_t{1} << 22;  // at most 4 MiB of table

  bool pathname_;
  std::size_t row_;
  std::size_t cells_;
  std::vector<std::uint8_t> table_;                    // cells below kTableCells
  std::unordered_map<std::size_t, Wild> overflow_;     // the rest, for very long inputs
  std::unordered_map<std::size_t, Wild> crossing_stars_;  // after_star's outcomes by start

  std::size_t key(std::string_view rest, std::size_t text_size) const {
    return rest.size() * row_ + text_size;
  }
};

// The body of after_star: `tried` collects the text tails (by size) it tried and failed over.
Wild match_after_star(std::string_view rest, std::string_view text, bool crosses_slashes,
                      WildMemo& memo, std::vector<std::size_t>& tried) {
  for (std::size_t t = 0;; ++t) {
    if (t >= text.size()) return Wild::AbortAll;
    if (crosses_slashes) {
      if (const Wild* known = memo.crossing_star(rest, text.size() - t)) return *known;
      tried.push_back(text.size() - t);
    }
    if (!is_glob_special(rest[0])) {
      // The star is followed by a literal: skip straight to its next occurrence, never
      // past a '/' that this star cannot cross.
      const char literal = rest[0];
      while (t < text.size() && (crosses_slashes || text[t] != '/') && text[t] != literal) ++t;
      if (t >= text.size() || text[t] != literal) return Wild::NoMatch;
    }
    const Wild outcome = memo.tail(rest, text.substr(t));
    if (outcome != Wild::NoMatch) {
      if (!crosses_slashes || outcome != Wild::AbortToStarStar) return outcome;
    } else if (!crosses_slashes && text[t] == '/') {
      return Wild::AbortToStarStar;
    }
  }
}

Wild match_tail(std::string_view pattern, std::string_view text, bool pathname, WildMemo& memo) {
  const auto pat_at = [&](std::size_t i) -> unsigned char {
    return i < pattern.size() ? static_cast<unsigned char>(pattern[i]) : 0;
  };
  const auto text_at = [&](std::size_t i) -> unsigned char {
    return i < text.size() ? static_cast<unsigned char>(text[i]) : 0;
  };

  std::size_t p = 0;
  std::size_t t = 0;
  for (; p < pattern.size(); ++p, ++t) {
    unsigned char pc = pat_at(p);
    const unsigned char tc = text_at(t);
    if (t >= text.size() && pc != '*') return Wild::AbortAll;

    switch (pc) {
      case '\\':
        // An escaped character matches itself; a dangling backslash matches nothing.
        pc = pat_at(++p);
        if (tc != pc) return Wild::NoMatch;
        continue;

      case '?':
        if (pathname && tc == '/') return Wild::NoMatch;
        continue;

      case '*': {
        const std::size_t first_star = p;
        bool crosses_slashes = !pathname;  // without pathname semantics '*' matches '/' too
        if (pat_at(p + 1) == '*') {
          while (pat_at(p + 1) == '*') ++p;
          const std::size_t after = p + 1;
          const bool starts_component = first_star == 0 || pattern[first_star - 1] == '/';
          const bool ends_component = after == pattern.size() || pat_at(after) == '/' ||
                                      (pat_at(after) == '\\' && pat_at(after + 1) == '/');
          if (!pathname) {
            crosses_slashes = true;
          } else if (starts_component && ends_component) {
            // "**/" may stand for no directory at all: "a/**/b" matches "a/b".
            if (pat_at(after) == '/' &&
                memo.tail(pattern.substr(after + 1), text.substr(t)) == Wild::Match) {
              return Wild::Match;
            }
            crosses_slashes = true;
          } else {
            crosses_slashes = false;  // "**" glued to other characters is a plain '*'
          }
        }
        p += 1;  // p now indexes the first pattern character after the stars

        if (p == pattern.size()) {
          // A trailing "**" takes everything; a trailing "*" only the rest of this component.
          if (!crosses_slashes && text.substr(t).find('/') != std::string_view::npos) {
            return Wild::NoMatch;
          }
          return Wild::Match;
        }
        if (!crosses_slashes && pattern[p] == '/') {
          // "*/" consumes exactly the rest of the current component.
          const std::size_t slash = text.find('/', t);
          if (slash == std::string_view::npos) return Wild::NoMatch;
          t = slash;  // the loop's increment steps over the '/' in both strings
          break;
        }
        return memo.after_star(pattern.substr(p), text.substr(t), crosses_slashes);
      }

      case '[': {
        pc = pat_at(++p);
        if (pc == '^') pc = '!';
        const bool negated = pc == '!';
        if (negated) pc = pat_at(++p);
        unsigned char previous = 0;  // the last single character, for ranges; 0 after a range
        bool matched = false;
        // The first character after '[' (or "[!") is a member even when it is ']'.
        do {
          if (pc == 0) return Wild::AbortAll;  // unterminated class
          if (pc == '\\') {
            pc = pat_at(++p);
            if (pc == 0) return Wild::AbortAll;
            if (tc == pc) matched = true;
          } else if (pc == '-' && previous != 0 && pat_at(p + 1) != 0 && pat_at(p + 1) != ']') {
            pc = pat_at(++p);
            if (pc == '\\') {
              pc = pat_at(++p);
              if (pc == 0) return Wild::AbortAll;
            }
            if (tc <= pc && tc >= previous) matched = true;
            pc = 0;  // a range cannot start another range
          } else if (pc == '[' && pat_at(p + 1) == ':') {
            const std::size_t name_begin = p + 2;
            std::size_t close = name_begin;
            while (pat_at(close) != 0 && pat_at(close) != ']') ++close;
            if (pat_at(close) == 0) return Wild::AbortAll;
            if (close == name_begin || pattern[close - 1] != ':') {
              // Not "[:name:]" after all: the '[' is an ordinary member.
              pc = '[';
              if (tc == pc) matched = true;
              continue;
            }
            const std::string_view name = pattern.substr(name_begin, close - name_begin - 1);
            if (!is_known_class(name)) return Wild::AbortAll;
            if (in_named_class(name, tc)) matched = true;
            p = close;
            pc = 0;
          } else if (tc == pc) {
            matched = true;
          }
        } while (previous = pc, (pc = pat_at(++p)) != ']');
        if (matched == negated || (pathname && tc == '/')) return Wild::NoMatch;
        continue;
      }

      default:
        if (tc != pc) return Wild::NoMatch;
        continue;
    }
  }
  return t < text.size() ? Wild::NoMatch : Wild::Match;
}

std::size_t literal_prefix_length(std::string_view pattern) {
  std::size_t length = 0;
  while (length < pattern.size() && !is_glob_special(pattern[length])) ++length;
  return length;
}

// git trims trailing spaces unless the last one is escaped with a backslash ("foo\ ").
std::string_view trim_trailing_spaces(std::string_view line) {
  std::size_t keep = 0;  // length up to and including the last non-space (or escaped) char
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line[i] == ' ') continue;
    if (line[i] == '\\') {
      if (i + 1 == line.size()) return line;  // a dangling backslash: leave the line alone
      ++i;
    }
    keep = i + 1;
  }
  return line.substr(0, keep);
}

} // namespace

bool wildmatch(std::string_view pattern, std::string_view text, bool pathname) {
  WildMemo memo(pattern.size(), text.size(), pathname);
  return match_tail(pattern, text, pathname, memo) == Wild::Match;
}

void IgnoreRules::add_text(std::string_view text) {
  static constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";
  if (text.starts_with(kUtf8Bom)) text.remove_prefix(kUtf8Bom.size());
  while (!text.empty()) {
    const std::size_t newline = text.find('\n');
    std::string_view line = text.substr(0, newline);
    text.remove_prefix(newline == std::string_view::npos ? text.size() : newline + 1);
    if (line.ends_with('\r')) line.remove_suffix(1);
    add_line(line);
  }
}

void IgnoreRules::add_line(std::string_view line) {
  // Comments are recognised before trimming: " #x" is a pattern, "\#x" a literal '#'.
  if (line.empty() || line.front() == '#') return;
  line = trim_trailing_spaces(line);

  Pattern pattern;
  if (line.starts_with('!')) {
    pattern.negated = true;
    line.remove_prefix(1);
  }
  if (line.ends_with('/')) {
    pattern.dir_only = true;
    line.remove_suffix(1);
  }
  pattern.basename_only = line.find('/') == std::string_view::npos;
  if (!pattern.basename_only && line.starts_with('/')) {
    line.remove_prefix(1);  // any slash anchors; a leading one has no other meaning
  }
  if (line.empty()) return;  // "/", "!" and the like match nothing in git either

  pattern.body = std::string(line);
  pattern.literal_prefix = literal_prefix_length(pattern.body);
  pattern.ends_with = pattern.basename_only && pattern.body.front() == '*' &&
                      literal_prefix_length(line.substr(1)) == line.size() - 1;
  patterns_.push_back(std::move(pattern));
}

bool IgnoreRules::add_file(const std::filesystem::path& file) {
  const auto contents = read_file_bytes(file.string());
  if (!contents) return false;
  add_text(*contents);
  return true;
}

bool IgnoreRules::matches(const Pattern& pattern, std::string_view path,
                          std::string_view basename) {
  const std::string_view body = pattern.body;
  if (pattern.basename_only) {
    if (pattern.literal_prefix == body.size()) return basename == body;
    if (pattern.ends_with) return basename.ends_with(body.substr(1));
    // A basename has no '/', so pathname semantics would change nothing.
    return wildmatch(body, basename, false);
  }

  // Anchored: the whole relative path. Comparing the literal prefix first is both the fast
  // path and git's exact behaviour (the rest is then matched as a pattern of its own).
  std::string_view rest = body;
  std::string_view name = path;
  if (pattern.literal_prefix > 0) {
    if (pattern.literal_prefix > name.size()) return false;
    if (name.substr(0, pattern.literal_prefix) != rest.substr(0, pattern.literal_prefix)) {
      return false;
    }
    rest.remove_prefix(pattern.literal_prefix);
    name.remove_prefix(pattern.literal_prefix);
    if (rest.empty() && name.empty()) return true;
  }
  return wildmatch(rest, name, true);
}

IgnoreRules::Verdict IgnoreRules::match(std::string_view path, bool is_dir) const {
  if (path.empty() || patterns_.empty()) return Verdict::None;
  const std::size_t slash = path.rfind('/');
  const std::string_view basename =
      slash == std::string_view::npos ? path : path.substr(slash + 1);
  // The last matching pattern decides, so search from the end.
  for (auto it = patterns_.rbegin(); it != patterns_.rend(); ++it) {
    if (it->dir_only && !is_dir) continue;
    if (matches(*it, path, basename)) {
      return it->negated ? Verdict::Included : Verdict::Ignored;
    }
  }
  return Verdict::None;
}

} // namespace cudnnlint
