// Reading source files: every way a file can be unfit for analysis, and position mapping.
#include "core/source_file.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <vector>

namespace cudnnlint {
namespace {

class TempDir {
 public:
  TempDir() {
    path_ = std::filesystem::temp_directory_path() /
            ("cudnnlint-src-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::string write(const std::string& name, const std::string& bytes) const {
    const auto file = path_ / name;
    std::ofstream(file, std::ios::binary) << bytes;
    return file.string();
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

std::string error_of(const std::string& path, LoadLimits limits = {}) {
  auto loaded = load_source_file(path, limits);
  const auto* error = std::get_if<LoadError>(&loaded);
  return error ? error->message : "";
}

TEST(LoadSourceFile, ReadsUtf8) {
  TempDir dir;
  auto loaded = load_source_file(dir.write("a.py", "x = 'é'\n"), {});
  ASSERT_TRUE(std::holds_alternative<SourceFile>(loaded));
  EXPECT_EQ(std::get<SourceFile>(loaded).text(), "x = 'é'\n");
}

TEST(LoadSourceFile, EveryRejectionNamesItsProblem) {
  TempDir dir;
  EXPECT_EQ(error_of((dir.path() / "missing.py").string()), "no such file or directory");
  EXPECT_EQ(error_of(dir.path().string()), "is a directory");
  EXPECT_NE(error_of(dir.write("bin.py", std::string("ab\0cd", 5))).find("binary file"), std::string::npos);
  const std::string bad_utf8 = error_of(dir.write("latin1.py", "x = 1\ny = '\xe9t\xe9'\n"));
  EXPECT_NE(bad_utf8.find("invalid UTF-8 at line 2, column 6"), std::string::npos) << bad_utf8;
  LoadLimits small;
  small.max_bytes = 10;
  EXPECT_NE(error_of(dir.write("big.py", std::string(11, 'x')), small).find("above the 10-byte limit"),
            std::string::npos);
}

TEST(Utf8, ValidationRejectsOverlongsAndSurrogates) {
  EXPECT_EQ(find_invalid_utf8("abc é 😀"), std::string_view::npos);
  EXPECT_EQ(find_invalid_utf8("a\xC0\x80"), 1u);          // overlong NUL
  EXPECT_EQ(find_invalid_utf8("ab\xED\xA0\x80"), 2u);     // UTF-16 surrogate
  EXPECT_EQ(find_invalid_utf8("\xF4\x90\x80\x80"), 0u);   // above U+10FFFF
  EXPECT_EQ(find_invalid_utf8("x\xE2\x82"), 1u);          // truncated
}

TEST(SourceFile, PositionsAcrossLineEndingsAndBom) {
  const SourceFile file("f.py", "\xEF\xBB\xBF" "a\r\nbé\rc😀d\n");
  EXPECT_EQ(file.content_offset(), 3u);
  EXPECT_EQ(file.position_at(3).line, 1u);
  EXPECT_EQ(file.position_at(3).column, 1u);  // the BOM is not a column
  const Position d = file.position_at(file.text().find('d'));
  EXPECT_EQ(d.line, 3u);
  EXPECT_EQ(d.column, 3u);
  EXPECT_EQ(d.column_utf16, 4u);
  EXPECT_EQ(file.line_text(1), "a");
  EXPECT_EQ(file.line_text(2), "bé");
  EXPECT_EQ(file.line_text(3), "c😀d");
  EXPECT_EQ(file.line_text(9), "");
}

// Line starts are found sixteen bytes at a time: a CRLF split across two blocks, runs of line
// ends and a tail shorter than a block must give what a byte-by-byte reading gives.
TEST(SourceFile, LineStartsAcrossBlockBoundaries) {
  auto reference = [](const std::string& text) {
    std::vector<std::size_t> starts{0};
    for (std::size_t i = 0; i < text.size(); ++i) {
      if (text[i] == '\n') {
        starts.push_back(i + 1);
      } else if (text[i] == '\r') {
        if (i + 1 < text.size() && text[i + 1] == '\n') ++i;
        starts.push_back(i + 1);
      }
    }
    return starts;
  };
  std::vector<std::string> texts = {std::string(15, 'a') + "\r\n" + std::string(20, 'b') + "\n",
                                    std::string(31, 'a') + "\r\nx\r\r\n\n\r",
                                    "\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\n",
                                    std::string(16, '\r') + std::string(16, '\n'), "no line end", ""};
  for (std::size_t offset = 0; offset < 16; ++offset)  // a CRLF at every position of a block
    texts.push_back(std::string(offset, 'x') + "\r\n" + std::string(40, 'y') + "\r\n\rz");
  for (const auto& text : texts) {
    const SourceFile file("f.py", text);
    const auto expected = reference(text);
    ASSERT_EQ(file.line_count(), expected.size()) << text;
    for (std::size_t line = 0; line < expected.size(); ++line)
      EXPECT_EQ(file.position_at(expected[line]).line, line + 1) << "line start " << expected[line];
  }
}

}  // namespace
}  // namespace cudnnlint
