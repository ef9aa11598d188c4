// Where the language server runs its slow analyses (C, C++ and CUDA: a clang parse of a
// translation unit takes seconds): one worker thread, so that the server keeps answering
// hovers and Python edits meanwhile. A job waits `debounce` after it is scheduled; scheduling
// again under the same key replaces a job not started yet and cancels one running (a newer
// save supersedes it: the job is told through its flag and its result is dropped).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace cudnnlint::server {

class BackgroundQueue {
 public:
  using Job = std::function<void(const std::atomic<bool>& cancelled)>;

  explicit BackgroundQueue(std::chrono::milliseconds debounce);
  ~BackgroundQueue();  // cancels the running job and waits for it; pending jobs never run
  BackgroundQueue(const BackgroundQueue&) = delete;
  BackgroundQueue& operator=(const BackgroundQueue&) = delete;

  void schedule(const std::string& key, Job job);
  void cancel(const std::string& key);  // drops a pending job, cancels a running one

 private:
  void work(std::stop_token stop);

  struct Pending {
    Job job;
    std::chrono::steady_clock::time_point due;
  };
  std::chrono::milliseconds debounce_;
  std::mutex mutex_;
  std::condition_variable_any wake_;
  std::map<std::string, Pending> pending_;
  std::string running_key_;
  std::shared_ptr<std::atomic<bool>> running_cancelled_;
  std::jthread thread_;  // last: it starts once the rest is built, and stops first
};

}  // namespace cudnnlint::server
