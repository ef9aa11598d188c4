// Reading source files: every way a file can be unfit for analysis, and position mapping.
#include "core/source_file.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

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

}  // namespace
}  // namespace cudnnlint
