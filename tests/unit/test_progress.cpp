// The progress line: counts, the units in flight by file name, clipping to the terminal width on a
// UTF-8 boundary, and no drawing at all when disabled.
#include "core/progress.h"

#include <gtest/gtest.h>

#include <unistd.h>

namespace cudnnlint {
namespace {

TEST(Progress, LineCountsFilesAndNamesUnitsInFlight) {
  Progress progress(-1, /*enabled=*/false);
  progress.add_files(10);
  progress.file_done(3);
  EXPECT_EQ(progress.line(200), "cudnnlint: 3/10 files");
  progress.unit_started("/src/a/conv.cpp");
  progress.unit_started("/src/b/kernels.cu");
  progress.unit_started("/src/b/kernels.cu");  // the same file under two compile commands
  EXPECT_EQ(progress.line(200), "cudnnlint: 3/10 files; clang: conv.cpp, kernels.cu");
  progress.unit_finished("/src/b/kernels.cu");
  progress.unit_finished("/src/a/conv.cpp");
  EXPECT_EQ(progress.line(200), "cudnnlint: 3/10 files; clang: kernels.cu");
  progress.unit_finished("/src/b/kernels.cu");
  progress.unit_finished("/src/never/started.cpp");  // ignored
  EXPECT_EQ(progress.line(200), "cudnnlint: 3/10 files");
}

TEST(Progress, LineIsClippedOnACharacterBoundary) {
  Progress progress(-1, false);
  progress.add_files(1);
  progress.unit_started("/src/\xc3\xa9\xc3\xa9.cpp");  // "éé.cpp"
  const std::string full = progress.line(200);
  ASSERT_EQ(full, "cudnnlint: 0/1 files; clang: \xc3\xa9\xc3\xa9.cpp");
  const std::size_t inside_second = full.find("\xc3\xa9") + 3;  // between the bytes of the second é
  EXPECT_EQ(progress.line(inside_second), full.substr(0, inside_second - 1));
  EXPECT_EQ(progress.line(5), "cudnn");
}

TEST(Progress, DisabledDrawsNothing) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  {
    Progress progress(fds[1], /*enabled=*/false, std::chrono::milliseconds(0));
    progress.add_files(1);
  }
  close(fds[1]);
  char byte;
  EXPECT_EQ(read(fds[0], &byte, 1), 0);
  close(fds[0]);
}

TEST(Progress, EnabledDrawsAfterTheDelayAndErasesAtTheEnd) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  {
    // No delay: the first line may be drawn before the counts are set (0/0); it is redrawn every
    // 200 ms, so the counts appear within the 600 ms waited here.
    Progress progress(fds[1], /*enabled=*/true, std::chrono::milliseconds(0));
    progress.add_files(2);
    progress.file_done();
    usleep(600 * 1000);
  }
  close(fds[1]);
  std::string drawn;
  char buffer[256];
  for (ssize_t n; (n = read(fds[0], buffer, sizeof buffer)) > 0;) drawn.append(buffer, static_cast<std::size_t>(n));
  close(fds[0]);
  EXPECT_EQ(drawn.rfind("\r\x1b[Kcudnnlint: ", 0), 0u) << drawn;
  EXPECT_NE(drawn.find("\r\x1b[Kcudnnlint: 1/2 files"), std::string::npos) << drawn;
  EXPECT_TRUE(drawn.ends_with("\r\x1b[K")) << drawn;
}

}  // namespace
}  // namespace cudnnlint
