// Fixes: edits checked against the file, applied in memory, re-parsed, written atomically.
#include "emit/unified_diff.h"
#include "engine/fixes.h"
#include "core/content_hash.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace cudnnlint {
namespace {

namespace fs = std::filesystem;

class FixFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("cudnnlint-fixes-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }
  static std::string read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  }
  // A finding whose fix replaces bytes [begin, end) of its file's text by `replacement`.
  static Finding finding_with_fix(const std::string& path, std::uint32_t begin, std::uint32_t end,
                                  std::string expected, std::string replacement, bool safe = false) {
    Finding finding;
    finding.rule_id = "bn-eps-zero";
    finding.location.path = path;
    finding.location.range.begin = {1, begin + 1, begin + 1, begin};
    finding.location.range.end = {1, end + 1, end + 1, end};
    finding.fix = Fix{"set eps", safe, {{finding.location.range, std::move(replacement), std::move(expected), false}},
                      content_hash(read(path))};
    return finding;
  }
  std::vector<std::string> analysed() const { return {dir_.string()}; }
  fs::path dir_;
};

TEST_F(FixFiles, AnUnsafeFixIsAppliedOnlyWhenAskedAndWrittenAtomically) {
  const std::string text = "bn = BatchNorm2d(8, eps=0)\n";
  const std::string path = write("model.py", text);
  ::chmod(path.c_str(), 0640);
  std::vector<Finding> findings{finding_with_fix(path, 24, 25, "0", "1e-5")};

  FixPlan safe_only = plan_fixes(findings, false, analysed());
  EXPECT_TRUE(safe_only.files.empty());
  EXPECT_EQ(safe_only.unsafe_left, 1u);

  FixPlan plan = plan_fixes(findings, true, analysed());
  ASSERT_EQ(plan.files.size(), 1u);
  EXPECT_EQ(plan.files[0].after, "bn = BatchNorm2d(8, eps=1e-5)\n");
  struct stat before {};
  ::stat(path.c_str(), &before);
  write_fixes(plan);
  EXPECT_EQ(plan.files[0].error, "");
  EXPECT_EQ(read(path), "bn = BatchNorm2d(8, eps=1e-5)\n");
  struct stat after {};
  ::stat(path.c_str(), &after);
  EXPECT_NE(before.st_ino, after.st_ino) << "written in place, not renamed over";
  EXPECT_EQ(after.st_mode & 07777, 0640u) << "the permissions are kept";
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator{}), 1) << "a temporary file is left";
}

TEST_F(FixFiles, AResultThatNoLongerParsesIsRolledBackAndTheFileKept) {
  const std::string text = "bn = BatchNorm2d(8, eps=0)\n";
  const std::string path = write("model.py", text);
  std::vector<Finding> findings{finding_with_fix(path, 24, 25, "0", "1e-5 +")};
  FixPlan plan = plan_fixes(findings, true, analysed());
  ASSERT_EQ(plan.files.size(), 1u);
  EXPECT_NE(plan.files[0].error.find("would not parse"), std::string::npos) << plan.files[0].error;
  write_fixes(plan);
  EXPECT_EQ(read(path), text);
}

TEST_F(FixFiles, AFileThatChangedSinceTheAnalysisIsLeftAlone) {
  const std::string path = write("model.py", "bn = BatchNorm2d(8, eps=0)\n");
  std::vector<Finding> findings{finding_with_fix(path, 24, 25, "0", "1e-5")};
  FixPlan plan = plan_fixes(findings, true, analysed());
  write("model.py", "bn = BatchNorm2d(8, eps=0)  # edited meanwhile\n");
  write_fixes(plan);
  EXPECT_NE(plan.files[0].error.find("changed while cudnnlint ran"), std::string::npos);
  EXPECT_EQ(read(path), "bn = BatchNorm2d(8, eps=0)  # edited meanwhile\n");
}

TEST_F(FixFiles, AnEditWhoseBytesDifferFromWhatTheRuleSawIsNotApplied) {
  const std::string path = write("model.py", "bn = BatchNorm2d(8, eps=0)\n");
  std::vector<Finding> findings{finding_with_fix(path, 24, 25, "7", "1e-5")};
  const FixPlan plan = plan_fixes(findings, true, analysed());
  ASSERT_EQ(plan.files.size(), 1u);
  EXPECT_EQ(plan.files[0].after, plan.files[0].before);
  EXPECT_EQ(plan.overlapping, 1u);
}

// A finding can come from a cache entry or a stale run: --fix writes only a regular file inside
// the analysed paths whose bytes are those the finding was made on.
TEST_F(FixFiles, AFileOutsideTheAnalysedPathsIsRefused) {
  const std::string path = write("model.py", "bn = BatchNorm2d(8, eps=0)\n");
  std::vector<Finding> findings{finding_with_fix(path, 24, 25, "0", "1e-5")};
  const fs::path elsewhere = dir_ / "tree";
  fs::create_directories(elsewhere);
  FixPlan plan = plan_fixes(findings, true, std::vector<std::string>{elsewhere.string()});
  ASSERT_EQ(plan.files.size(), 1u);
  EXPECT_NE(plan.files[0].error.find("outside the analysed paths"), std::string::npos) << plan.files[0].error;
  write_fixes(plan);
  EXPECT_EQ(read(path), "bn = BatchNorm2d(8, eps=0)\n");
}

TEST_F(FixFiles, ALinkInsideTheTreeToAFileOutsideIsRefused) {
  const std::string outside = write("victim.py", "bn = BatchNorm2d(8, eps=0)\n");
  fs::create_directories(dir_ / "tree");
  const std::string link = (dir_ / "tree" / "model.py").string();
  fs::create_symlink(outside, link);
  std::vector<Finding> findings{finding_with_fix(link, 24, 25, "0", "1e-5")};
  FixPlan plan = plan_fixes(findings, true, std::vector<std::string>{(dir_ / "tree").string()});
  ASSERT_EQ(plan.files.size(), 1u);
  EXPECT_NE(plan.files[0].error.find("symbolic link"), std::string::npos) << plan.files[0].error;
  write_fixes(plan);
  EXPECT_EQ(read(outside), "bn = BatchNorm2d(8, eps=0)\n");
  EXPECT_TRUE(fs::is_symlink(link));
}

TEST_F(FixFiles, AFixWhoseHashIsNotTheFilesIsRefused) {
  const std::string path = write("model.py", "bn = BatchNorm2d(8, eps=0)\n");
  std::vector<Finding> findings{finding_with_fix(path, 24, 25, "0", "1e-5")};
  findings[0].fix->file_hash = content_hash("another text");
  FixPlan unsettled = plan_fixes(findings, true, analysed());
  ASSERT_EQ(unsettled.files.size(), 1u);
  EXPECT_NE(unsettled.files[0].error.find("not those the findings were made on"), std::string::npos);
  findings[0].fix->file_hash.clear();  // never settled: refused too
  EXPECT_FALSE(plan_fixes(findings, true, analysed()).files[0].error.empty());
  write_fixes(unsettled);
  EXPECT_EQ(read(path), "bn = BatchNorm2d(8, eps=0)\n");
}

TEST(SettleFix, ANewArgumentGoesAfterTheLastOneKeepingATrailingComma) {
  const std::string text = "DataLoader(ds, batch_size=3,\n           )\n";
  Finding finding;
  finding.location.path = "a.py";
  const std::uint32_t paren = static_cast<std::uint32_t>(text.find(')'));
  finding.fix = Fix{"set drop_last=True", false, {{{{2, 12, 12, paren}, {2, 12, 12, paren}}, "drop_last=True", "", true}}, ""};
  settle_fix(finding, SourceFile("a.py", text));
  ASSERT_TRUE(finding.fix);
  const TextEdit& edit = finding.fix->edits.front();
  EXPECT_EQ(edit.replacement, " drop_last=True,");
  EXPECT_EQ(edit.range.begin.byte_offset, text.find(',', 20) + 1);
  EXPECT_EQ(edit.range.begin.line, 1u);
  EXPECT_EQ(edit.range.begin.column, 29u);
}

TEST(SettleFix, ACommentBeforeTheParenthesisMeansNoFix) {
  const std::string text = "DataLoader(ds  # the data\n)\n";
  Finding finding;
  const std::uint32_t paren = static_cast<std::uint32_t>(text.find(')'));
  finding.fix = Fix{"set drop_last=True", false, {{{{2, 1, 1, paren}, {2, 1, 1, paren}}, "drop_last=True", "", true}}, ""};
  settle_fix(finding, SourceFile("a.py", text));
  EXPECT_FALSE(finding.fix);
}

TEST(UnifiedDiff, HunksWithContextAndNoNewlineMarker) {
  std::string before, after;
  for (int i = 1; i <= 20; ++i) {
    before += "line " + std::to_string(i) + "\n";
    after += (i == 2 ? "LINE 2" : i == 18 ? "LINE 18" : "line " + std::to_string(i)) + "\n";
  }
  const std::string diff = unified_diff("m.py", before, after);
  EXPECT_EQ(diff.rfind("--- a/m.py\n+++ b/m.py\n@@ -1,5 +1,5 @@\n line 1\n-line 2\n+LINE 2\n line 3\n", 0), 0u) << diff;
  EXPECT_NE(diff.find("@@ -15,6 +15,6 @@\n line 15\n line 16\n line 17\n-line 18\n+LINE 18\n line 19\n line 20\n"),
            std::string::npos)
      << diff;
  EXPECT_EQ(unified_diff("m.py", "x = 1", "x = 2"),
            "--- a/m.py\n+++ b/m.py\n@@ -1,1 +1,1 @@\n-x = 1\n\\ No newline at end of file\n+x = 2\n\\ No newline at end of file\n");
  EXPECT_EQ(unified_diff("m.py", "same\n", "same\n"), "");
}

}  // namespace
}  // namespace cudnnlint
