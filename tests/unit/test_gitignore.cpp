// The gitignore matcher against git's documented rules (gitignore(5)) and, for the glob
// engine, against the conformance table of git's own wildmatch tests (t3070).
#include "discovery/gitignore.h"

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <string_view>

namespace cudnnlint {
namespace {

namespace fs = std::filesystem;
using Verdict = IgnoreRules::Verdict;

IgnoreRules rules_from(std::string_view text) {
  IgnoreRules rules;
  rules.add_text(text);
  return rules;
}

Verdict file_verdict(const IgnoreRules& rules, std::string_view path) {
  return rules.match(path, /*is_dir=*/false);
}

Verdict dir_verdict(const IgnoreRules& rules, std::string_view path) {
  return rules.match(path, /*is_dir=*/true);
}

// ---------------------------------------------------------------------------------------------
// wildmatch

struct WildCase {
  std::string_view text;
  std::string_view pattern;
  bool with_pathname;     // git's "wildmatch" column: WM_PATHNAME, as .gitignore patterns use
  bool without_pathname;  // git's "pathmatch" column: '*' crosses '/'
};

// From git's t/t3070-wildmatch.sh (case-sensitive columns).
constexpr WildCase kWildCases[] = {
    // Basic features
    {"foo", "foo", true, true},
    {"foo", "bar", false, false},
    {"", "", true, true},
    {"foo", "???", true, true},
    {"foo", "??", false, false},
    {"foo", "*", true, true},
    {"foo", "f*", true, true},
    {"foo", "*f", false, false},
    {"foo", "*foo*", true, true},
    {"foobar", "*ob*a*r*", true, true},
    {"aaaaaaabababab", "*ab", true, true},
    {"foo*", R"(foo\*)", true, true},
    {"foobar", R"(foo\*bar)", false, false},
    {R"(f\oo)", R"(f\\oo)", true, true},
    {"ball", "*[al]?", true, true},
    {"ten", "[ten]", false, false},
    {"ten", "**[!te]", true, true},
    {"ten", "**[!ten]", false, false},
    {"ten", "t[a-g]n", true, true},
    {"ten", "t[!a-g]n", false, false},
    {"ton", "t[!a-g]n", true, true},
    {"ton", "t[^a-g]n", true, true},
    {"a]b", "a[]]b", true, true},
    {"a-b", "a[]-]b", true, true},
    {"a]b", "a[]-]b", true, true},
    {"aab", "a[]-]b", false, false},
    {"aab", "a[]a-]b", true, true},
    {"]", "]", true, true},
    // Slash-matching features
    {"foo/baz/bar", "foo*bar", false, true},
    {"foo/baz/bar", "foo**bar", false, true},
    {"foobazbar", "foo**bar", true, true},
    {"foo/baz/bar", "foo/**/bar", true, true},
    {"foo/baz/bar", "foo/**/**/bar", true, false},
    {"foo/b/a/z/bar", "foo/**/bar", true, true},
    {"foo/b/a/z/bar", "foo/**/**/bar", true, true},
    {"foo/bar", "foo/**/bar", true, false},
    {"foo/bar", "foo/**/**/bar", true, false},
    {"foo/bar", "foo?bar", false, true},
    {"foo/bar", "foo[/]bar", false, true},
    {"foo/bar", "foo[^a-z]bar", false, true},
    {"foo/bar", "f[^eiu][^eiu][^eiu][^eiu][^eiu]r", false, true},
    {"foo-bar", "f[^eiu][^eiu][^eiu][^eiu][^eiu]r", true, true},
    {"foo", "**/foo", true, false},
    {"XXX/foo", "**/foo", true, true},
    {"bar/baz/foo", "**/foo", true, true},
    {"bar/baz/foo", "*/foo", false, true},
    {"foo/bar/baz", "**/bar*", false, true},
    {"deep/foo/bar/baz", "**/bar/*", true, true},
    {"deep/foo/bar/baz/", "**/bar/*", false, true},
    {"deep/foo/bar/baz/", "**/bar/**", true, true},
    {"deep/foo/bar", "**/bar/*", false, false},
    {"deep/foo/bar/", "**/bar/**", true, true},
    {"foo/bar/baz", "**/bar**", false, true},
    {"foo/bar/baz/x", "*/bar/**", true, true},
    {"deep/foo/bar/baz/x", "*/bar/**", false, true},
    {"deep/foo/bar/baz/x", "**/bar/*/*", true, true},
    // Various
    {"acrt", "a[c-c]st", false, false},
    {"acrt", "a[c-c]rt", true, true},
    {"]", "[!]-]", false, false},
    {"a", "[!]-]", true, true},
    {"", R"(\)", false, false},
    {R"(\)", R"(\)", false, false},
    {R"(XXX/\)", R"(*/\)", false, false},
    {R"(XXX/\)", R"(*/\\)", true, true},
    {"@foo", "@foo", true, true},
    {"foo", "@foo", false, false},
    {"[ab]", R"(\[ab])", true, true},
    {"[ab]", "[[]ab]", true, true},
    {"[ab]", "[[:]ab]", true, true},
    {"[ab]", "[[::]ab]", false, false},
    {"[ab]", "[[:digit]ab]", true, true},
    {"[ab]", R"([\[:]ab])", true, true},
    {"?a?b", R"(\??\?b)", true, true},
    {"abc", R"(\a\b\c)", true, true},
    {"foo", "", false, false},
    {"foo/bar/baz/to", "**/t[o]", true, true},
    // Character classes
    {"a1B", "[[:alpha:]][[:digit:]][[:upper:]]", true, true},
    {"a", "[[:digit:][:upper:][:space:]]", false, false},
    {"A", "[[:digit:][:upper:][:space:]]", true, true},
    {"1", "[[:digit:][:upper:][:space:]]", true, true},
    {"1", "[[:digit:][:upper:][:spaci:]]", false, false},
    {" ", "[[:digit:][:upper:][:space:]]", true, true},
    {".", "[[:digit:][:upper:][:space:]]", false, false},
    {".", "[[:digit:][:punct:][:space:]]", true, true},
    {"5", "[[:xdigit:]]", true, true},
    {"f", "[[:xdigit:]]", true, true},
    {"D", "[[:xdigit:]]", true, true},
    {"_", "[[:alnum:][:alpha:][:blank:][:cntrl:][:digit:][:graph:][:lower:][:print:][:punct:][:space:][:upper:][:xdigit:]]", true, true},
    {".", "[^[:alnum:][:alpha:][:blank:][:cntrl:][:digit:][:lower:][:space:][:upper:][:xdigit:]]", true, true},
    {"5", "[a-c[:digit:]x-z]", true, true},
    {"b", "[a-c[:digit:]x-z]", true, true},
    {"y", "[a-c[:digit:]x-z]", true, true},
    {"q", "[a-c[:digit:]x-z]", false, false},
    // Malformed and corner-case classes
    {"]", R"([\\-^])", true, true},
    {"[", R"([\\-^])", false, false},
    {"-", R"([\-_])", true, true},
    {"]", R"([\]])", true, true},
    {R"(\])", R"([\]])", false, false},
    {R"(\)", R"([\]])", false, false},
    {"ab", "a[]b", false, false},
    {"a[]b", "a[]b", false, false},
    {"ab[", "ab[", false, false},
    {"ab", "[!", false, false},
    {"ab", "[-", false, false},
    {"-", "[-]", true, true},
    {"-", "[a-", false, false},
    {"-", "[!a-", false, false},
    {"-", "[--A]", true, true},
    {"5", "[--A]", true, true},
    {" ", "[ --]", true, true},
    {"$", "[ --]", true, true},
    {"-", "[ --]", true, true},
    {"0", "[ --]", false, false},
    {"-", "[---]", true, true},
    {"-", "[------]", true, true},
    {"j", "[a-e-n]", false, false},
    {"-", "[a-e-n]", true, true},
    {"a", "[!------]", true, true},
    {"[", "[]-a]", false, false},
    {"^", "[]-a]", true, true},
    {"^", "[!]-a]", false, false},
    {"[", "[!]-a]", true, true},
    {"^", "[a^bc]", true, true},
    {"-b]", "[a-]b]", true, true},
    {R"(\)", R"([\])", false, false},
    {R"(\)", R"([\\])", true, true},
    {R"(\)", R"([!\\])", false, false},
    {"G", R"([A-\\])", true, true},
    {"aaabbb", "b*a", false, false},
    {"aabcaa", "*ba*", false, false},
    {",", "[,]", true, true},
    {",", R"([\\,])", true, true},
    {R"(\)", R"([\\,])", true, true},
    {"-", "[,-.]", true, true},
    {"+", "[,-.]", false, false},
    {"-.]", "[,-.]", false, false},
    {"2", R"([\1-\3])", true, true},
    {"3", R"([\1-\3])", true, true},
    {"4", R"([\1-\3])", false, false},
    {R"(\)", R"([[-\]])", true, true},
    {"[", R"([[-\]])", true, true},
    {"]", R"([[-\]])", true, true},
    {"-", R"([[-\]])", false, false},
    // Recursion
    {"-adobe-courier-bold-o-normal--12-120-75-75-m-70-iso8859-1", "-*-*-*-*-*-*-12-*-*-*-m-*-*-*", true, true},
    {"-adobe-courier-bold-o-normal--12-120-75-75-X-70-iso8859-1", "-*-*-*-*-*-*-12-*-*-*-m-*-*-*", false, false},
    {"-adobe-courier-bold-o-normal--12-120-75-75-/-70-iso8859-1", "-*-*-*-*-*-*-12-*-*-*-m-*-*-*", false, false},
    {"XXX/adobe/courier/bold/o/normal//12/120/75/75/m/70/iso8859/1", "XXX/*/*/*/*/*/*/12/*/*/*/m/*/*/*", true, true},
    {"XXX/adobe/courier/bold/o/normal//12/120/75/75/X/70/iso8859/1", "XXX/*/*/*/*/*/*/12/*/*/*/m/*/*/*", false, false},
    {"abcd/abcdefg/abcdefghijk/abcdefghijklmnop.txt", "**/*a*b*g*n*t", true, true},
    {"abcd/abcdefg/abcdefghijk/abcdefghijklmnop.txtz", "**/*a*b*g*n*t", false, false},
    {"foo", "*/*/*", false, false},
    {"foo/bar", "*/*/*", false, false},
    {"foo/bba/arr", "*/*/*", true, true},
    {"foo/bb/aa/rr", "*/*/*", false, true},
    {"foo/bb/aa/rr", "**/**/**", true, true},
    {"abcXdefXghi", "*X*i", true, true},
    {"ab/cXd/efXg/hi", "*X*i", false, true},
    {"ab/cXd/efXg/hi", "*/*X*/*/*i", true, true},
    {"ab/cXd/efXg/hi", "**/*X*/**/*i", true, true},
    // Path matching
    {"foo", "fo", false, false},
    {"foo/bar", "foo/bar", true, true},
    {"foo/bar", "foo/*", true, true},
    {"foo/bba/arr", "foo/*", false, true},
    {"foo/bba/arr", "foo/**", true, true},
    {"foo/bba/arr", "foo*", false, true},
    {"foo/bba/arr", "foo**", false, true},
    {"foo/bba/arr", "foo/*arr", false, true},
    {"foo/bba/arr", "foo/**arr", false, true},
    {"foo/bba/arr", "foo/*z", false, false},
    {"foo/bba/arr", "foo/**z", false, false},
    {"ab/cXd/efXg/hi", "*Xg*i", false, true},
    // Case sensitivity
    {"a", "[A-Z]", false, false},
    {"A", "[A-Z]", true, true},
    {"A", "[a-z]", false, false},
    {"a", "[[:upper:]]", false, false},
    {"A", "[[:lower:]]", false, false},
    {"A", "[B-Za]", false, false},
    {"a", "[B-Za]", true, true},
    {"z", "[Z-y]", false, false},
    {"Z", "[Z-y]", true, true},
};

TEST(Wildmatch, AgreesWithGitConformanceTable) {
  int checked = 0;
  for (const WildCase& c : kWildCases) {
    EXPECT_EQ(wildmatch(c.pattern, c.text, true), c.with_pathname)
        << "pattern '" << c.pattern << "' text '" << c.text << "' with WM_PATHNAME";
    EXPECT_EQ(wildmatch(c.pattern, c.text, false), c.without_pathname)
        << "pattern '" << c.pattern << "' text '" << c.text << "' without WM_PATHNAME";
    ++checked;
  }
  EXPECT_EQ(checked, static_cast<int>(std::size(kWildCases)));
}

TEST(Wildmatch, PathologicalStarsFinishQuickly) {
  // Without the abort codes this is exponential in the number of stars.
  const std::string text(200, 'a');
  EXPECT_FALSE(wildmatch("*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b", text));
  EXPECT_FALSE(wildmatch("**/**/**/**/**/**/**/**/**/**/b", "a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/c"));
}

TEST(Wildmatch, NestedDoubleStarsWithLiteralsFinish) {
  // fuzz_gitignore's timeout: each "**/" may stand for no directory or for many, and the abort
  // codes cannot prune "**/a/" against "a/a/…": without the memo this took longer than a minute.
  std::string pattern;
  std::string text;
  for (int i = 0; i < 40; ++i) pattern += "**/a/";
  for (int i = 0; i < 80; ++i) text += "a/";
  EXPECT_FALSE(wildmatch(pattern + "c", text + "b"));
  EXPECT_TRUE(wildmatch(pattern + "b", text + "b"));
  EXPECT_FALSE(wildmatch(pattern + "b", "a/a/b"));  // fewer a/ than the pattern asks for
}

// ---------------------------------------------------------------------------------------------
// Line syntax

TEST(Gitignore, BlankLinesAndCommentsAddNothing) {
  const IgnoreRules rules = rules_from("# a comment\n\n   \n\t#not at start?\n");
  // "\t#not at start?" is a pattern (only a '#' in column 1 starts a comment).
  EXPECT_EQ(rules.size(), 1u);
  EXPECT_EQ(file_verdict(rules, "# a comment"), Verdict::None);
  EXPECT_EQ(file_verdict(rules, "\t#not at start!"), Verdict::Ignored);
}

TEST(Gitignore, EscapedHashAndBangAreLiterals) {
  const IgnoreRules rules = rules_from("\\#hash.py\n\\!bang.py\n");
  EXPECT_EQ(rules.size(), 2u);
  EXPECT_EQ(file_verdict(rules, "#hash.py"), Verdict::Ignored);
  EXPECT_EQ(file_verdict(rules, "!bang.py"), Verdict::Ignored);  // not a negation
  EXPECT_EQ(file_verdict(rules, "bang.py"), Verdict::None);
  EXPECT_EQ(file_verdict(rules, "hash.py"), Verdict::None);
}

TEST(Gitignore, TrailingSpacesTrimmedUnlessEscaped) {
  const IgnoreRules rules = rules_from("plain.py   \nkept\\ \nmid dle.py\n");
  EXPECT_EQ(file_verdict(rules, "plain.py"), Verdict::Ignored);
  EXPECT_EQ(file_verdict(rules, "plain.py "), Verdict::None);
  EXPECT_EQ(file_verdict(rules, "kept "), Verdict::Ignored);
  EXPECT_EQ(file_verdict(rules, "kept"), Verdict::None);
  EXPECT_EQ(file_verdict(rules, "mid dle.py"), Verdict::Ignored);
}

TEST(Gitignore, CrLfLinesBomAndMissingFinalNewline) {
  const IgnoreRules rules = rules_from("\xEF\xBB\xBF" "first.py\r\nsecond.py\r\nlast.py");
  EXPECT_EQ(file_verdict(rules, "first.py"), Verdict::Ignored);  // the BOM is not part of it
  EXPECT_EQ(file_verdict(rules, "second.py"), Verdict::Ignored);
  EXPECT_EQ(file_verdict(rules, "last.py"), Verdict::Ignored);
  EXPECT_EQ(rules.size(), 3u);
}

TEST(Gitignore, PatternsThatCanMatchNothingAreDropped) {
  const IgnoreRules rules = rules_from("/\n!\n!/\n");
  EXPECT_TRUE(rules.empty());
}

// ---------------------------------------------------------------------------------------------
// Matching

TEST(Gitignore, NegationAndLastMatchWins) {
  const IgnoreRules rules = rules_from("*.py\n!keep*.py\nkeep_not.py\n");
  EXPECT_EQ(file_verdict(rules, "model.py"), Verdict::Ignored);
  EXPECT_EQ(file_verdict(rules, "keep.py"), Verdict::Included);
  EXPECT_EQ(file_verdict(rules, "sub/keep_me.py"), Verdict::Included);
  EXPECT_EQ(file_verdict(rules, "keep_not.py"), Verdict::Ignored);  // the later line wins
  EXPECT_EQ(file_verdict(rules, "README.md"), Verdict::None);

  const IgnoreRules reversed = rules_from("!keep.py\n*.py\n");
  EXPECT_EQ(file_verdict(reversed, "keep.py"), Verdict::Ignored);
}

TEST(Gitignore, TrailingSlashMatchesDirectoriesOnly) {
  const IgnoreRules rules = rules_from("out/\nsrc/gen/\n");
  EXPECT_EQ(dir_verdict(rules, "out"), Verdict::Ignored);
  EXPECT_EQ(dir_verdict(rules, "deep/er/out"), Verdict::Ignored);  // no other slash: any depth
  EXPECT_EQ(file_verdict(rules, "out"), Verdict::None);
  EXPECT_EQ(dir_verdict(rules, "src/gen"), Verdict::Ignored);
  EXPECT_EQ(dir_verdict(rules, "lib/src/gen"), Verdict::None);  // a middle slash anchors
  EXPECT_EQ(file_verdict(rules, "src/gen"), Verdict::None);
}

TEST(Gitignore, LeadingOrMiddleSlashAnchorsToTheFilesDirectory) {
  const IgnoreRules rules = rules_from("/root_only.py\ndoc/frotz.py\n");
  EXPECT_EQ(file_verdict(rules, "root_only.py"), Verdict::Ignored);
  EXPECT_EQ(file_verdict(rules, "sub/root_only.py"), Verdict::None);
  EXPECT_EQ(file_verdict(rules, "doc/frotz.py"), Verdict::Ignored);
  EXPECT_EQ(file_verdict(rules, "a/doc/frotz.py"), Verdict::None);
}

TEST(Gitignore, NoSlashMatchesAtAnyDepth) {
  const IgnoreRules rules = rules_from("frotz.py\n*_pb2.py\n");
  EXPECT_EQ(file_verdict(rules, "frotz.py"), Verdict::Ignored);
  EXPECT_EQ(file_verdict(rules, "a/b/c/frotz.py"), Verdict::Ignored);
  EXPECT_EQ(file_verdict(rules, "a/b/model_pb2.py"), Verdict::Ignored);
  EXPECT_EQ(file_verdict(rules, "a/frotz.py.bak"), Verdict::None);
  EXPECT_EQ(dir_verdict(rules, "frotz.py"), Verdict::Ignored);  // directories too
}

TEST(Gitignore, StarAndQuestionMarkStopAtSlashes) {
  const IgnoreRules rules = rules_from("doc/*.txt\nlayer?.py\n");
  EXPECT_EQ(file_verdict(rules, "doc/notes.txt"), Verdict::Ignored);
  EXPECT_EQ(file_verdict(rules, "doc/sub/notes.txt"), Verdict::None);
  EXPECT_EQ(file_verdict(rules, "layer1.py"), Verdict::Ignored);
  EXPECT_EQ(file_verdict(rules, "layer12.py"), Verdict::None);
}

TEST(Gitignore, BracketClassesAndNegatedClasses) {
  const IgnoreRules rules = rules_from("model_[0-9].py\ntest_[!a-m]*.py\n");
  EXPECT_EQ(file_verdict(rules, "model_7.py"), Verdict::Ignored);
  EXPECT_EQ(file_verdict(rules, "model_x.py"), Verdict::None);
  EXPECT_EQ(file_verdict(rules, "test_zeta.py"), Verdict::Ignored);
  EXPECT_EQ(file_verdict(rules, "test_alpha.py"), Verdict::None);
}

TEST(Gitignore, LeadingDoubleStarMatchesInEveryDirectory) {
  const IgnoreRules rules = rules_from("**/cache\n**/gen/out.py\n");
  EXPECT_EQ(dir_verdict(rules, "cache"), Verdict::Ignored);
  EXPECT_EQ(dir_verdict(rules, "a/b/cache"), Verdict::Ignored);
  EXPECT_EQ(file_verdict(rules, "gen/out.py"), Verdict::Ignored);
  EXPECT_EQ(file_verdict(rules, "x/y/gen/out.py"), Verdict::Ignored);
  EXPECT_EQ(file_verdict(rules, "x/gen/y/out.py"), Verdict::None);
}

TEST(Gitignore, TrailingDoubleStarMatchesEverythingInside) {
  const IgnoreRules rules = rules_from("abc/**\n");
  EXPECT_EQ(file_verdict(rules, "abc/x.py"), Verdict::Ignored);
  EXPECT_EQ(file_verdict(rules, "abc/d/e/x.py"), Verdict::Ignored);
  EXPECT_EQ(dir_verdict(rules, "abc/d"), Verdict::Ignored);
  EXPECT_EQ(dir_verdict(rules, "abc"), Verdict::None);  // the directory itself is not inside
  EXPECT_EQ(file_verdict(rules, "x/abc/y.py"), Verdict::None);  // anchored
}

TEST(Gitignore, MiddleDoubleStarMatchesZeroOrMoreDirectories) {
  const IgnoreRules rules = rules_from("a/**/b.py\n");
  EXPECT_EQ(file_verdict(rules, "a/b.py"), Verdict::Ignored);
  EXPECT_EQ(file_verdict(rules, "a/x/b.py"), Verdict::Ignored);
  EXPECT_EQ(file_verdict(rules, "a/x/y/b.py"), Verdict::Ignored);
  EXPECT_EQ(file_verdict(rules, "a/xb.py"), Verdict::None);
  EXPECT_EQ(file_verdict(rules, "z/a/b.py"), Verdict::None);
}

TEST(Gitignore, OtherConsecutiveStarsAreOrdinaryStars) {
  const IgnoreRules rules = rules_from("data/x**y.py\n");
  EXPECT_EQ(file_verdict(rules, "data/x123y.py"), Verdict::Ignored);
  EXPECT_EQ(file_verdict(rules, "data/x1/2y.py"), Verdict::None);
}

TEST(Gitignore, DirOnlyNegationReincludesADirectory) {
  const IgnoreRules rules = rules_from("/*\n!/src/\n");
  EXPECT_EQ(dir_verdict(rules, "src"), Verdict::Included);
  EXPECT_EQ(file_verdict(rules, "src"), Verdict::Ignored);
  EXPECT_EQ(dir_verdict(rules, "docs"), Verdict::Ignored);
  EXPECT_EQ(file_verdict(rules, "setup.py"), Verdict::Ignored);
  EXPECT_EQ(file_verdict(rules, "src/model.py"), Verdict::None);  // anchored "/*" is one level
}

TEST(Gitignore, AddFileReadsAndReportsUnreadable) {
  static std::atomic<int> counter{0};
  const fs::path file = fs::temp_directory_path() /
                        ("cudnnlint-gitignore-" + std::to_string(std::random_device{}()) + "-" +
                         std::to_string(counter++));
  {
    std::ofstream out(file, std::ios::binary);
    out << "*.log\n!keep.log\n";
  }
  IgnoreRules rules;
  EXPECT_TRUE(rules.add_file(file));
  EXPECT_EQ(file_verdict(rules, "a.log"), Verdict::Ignored);
  EXPECT_EQ(file_verdict(rules, "keep.log"), Verdict::Included);
  std::error_code ec;
  fs::remove(file, ec);

  IgnoreRules missing;
  EXPECT_FALSE(missing.add_file(file));
  EXPECT_TRUE(missing.empty());
}

TEST(Gitignore, EmptyRulesAndEmptyPathMatchNothing) {
  const IgnoreRules none;
  EXPECT_EQ(file_verdict(none, "a.py"), Verdict::None);
  const IgnoreRules all = rules_from("*\n");
  EXPECT_EQ(file_verdict(all, ""), Verdict::None);
  EXPECT_EQ(file_verdict(all, "a/b"), Verdict::Ignored);
}

} // namespace
} // namespace cudnnlint
