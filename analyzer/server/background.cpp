#include "server/background.h"

#include <algorithm>

namespace cudnnlint::server {

BackgroundQueue::BackgroundQueue(std::chrono::milliseconds debounce)
    : debounce_(debounce), thread_([this](std::stop_token stop) { work(stop); }) {}

BackgroundQueue::~BackgroundQueue() {
  {
    const std::lock_guard lock(mutex_);
    pending_.clear();
    if (running_cancelled_) running_cancelled_->store(true);
  }
  thread_.request_stop();
  wake_.notify_all();
  // thread_ joins as it is destroyed.
}

void BackgroundQueue::schedule(const std::string& key, Job job) {
  {
    const std::lock_guard lock(mutex_);
    pending_[key] = Pending{std::move(job), std::chrono::steady_clock::now() + debounce_};
    if (running_cancelled_ && running_key_ == key) running_cancelled_->store(true);
  }
  wake_.notify_all();
}

void BackgroundQueue::cancel(const std::string& key) {
  const std::lock_guard lock(mutex_);
  pending_.erase(key);
  if (running_cancelled_ && running_key_ == key) running_cancelled_->store(true);
}

void BackgroundQueue::work(std::stop_token stop) {
  std::unique_lock lock(mutex_);
  while (!stop.stop_requested()) {
    if (pending_.empty()) {
      wake_.wait(lock, stop, [&] { return !pending_.empty(); });
      continue;
    }
    const auto next = std::min_element(pending_.begin(), pending_.end(),
                                       [](const auto& a, const auto& b) { return a.second.due < b.second.due; });
    if (std::chrono::steady_clock::now() < next->second.due) {
      // Until it is due, or until the queue changes (a job rescheduled later, or a new one).
      const auto due = next->second.due;
      wake_.wait_until(lock, stop, due, [&] { return false; });
      continue;
    }
    Job job = std::move(next->second.job);
    running_key_ = next->first;
    pending_.erase(next);
    auto cancelled = std::make_shared<std::atomic<bool>>(false);
    running_cancelled_ = cancelled;
    lock.unlock();
    job(*cancelled);
    lock.lock();
    running_key_.clear();
    running_cancelled_.reset();
  }
}

}  // namespace cudnnlint::server
