// Progress of a long run on stderr, on a terminal only (issue 14, part 7): files done of the total,
// and the C++ translation units clang is parsing. A line redrawn in place ("\r", erase to the end)
// a few times a second, from the first half second on, so that short runs print nothing; erased
// when the run ends, so that the report and the diagnostics start on a clean line.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

namespace cudnnlint {

class Progress {
 public:
  // Draws on file descriptor `fd` when `enabled` (the caller checks that it is a terminal).
  Progress(int fd, bool enabled, std::chrono::milliseconds delay = std::chrono::milliseconds(500));
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  void add_files(std::size_t count);
  void file_done(std::size_t count = 1);
  void unit_started(const std::string& path);
  void unit_finished(const std::string& path);

  // "cudnnlint: 12/3164 files; clang: a.cpp, b.cu", clipped to `width` bytes (whole UTF-8 characters).
  std::string line(std::size_t width) const;

 private:
  void draw_loop(std::stop_token stop);
  int fd_;
  std::atomic<std::size_t> total_{0};
  std::atomic<std::size_t> done_{0};
  mutable std::mutex mutex_;
  std::condition_variable_any wake_;
  std::map<std::string, std::size_t> in_flight_;  // a path may be in flight twice (-p with two commands)
  bool drawn_ = false;
  std::chrono::milliseconds delay_;
  std::jthread drawer_;  // last: started after the members it reads, stopped first
};

}  // namespace cudnnlint
