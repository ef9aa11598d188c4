#include "core/progress.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <filesystem>

namespace cudnnlint {

namespace {

void write_all(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t n = ::write(fd, text.data(), text.size());
    if (n <= 0) return;  // a closed terminal: progress is not worth an error
    text.remove_prefix(static_cast<std::size_t>(n));
  }
}

std::size_t terminal_width(int fd) {
  winsize size{};
  if (::ioctl(fd, TIOCGWINSZ, &size) == 0 && size.ws_col > 1) return size.ws_col - 1;
  return 79;
}

}  // namespace

Progress::Progress(int fd, bool enabled, std::chrono::milliseconds delay) : fd_(fd), delay_(delay) {
  if (enabled) drawer_ = std::jthread([this](std::stop_token stop) { draw_loop(stop); });
}

Progress::~Progress() {
  if (drawer_.joinable()) {
    drawer_.request_stop();
    wake_.notify_all();
    drawer_.join();
  }
  if (drawn_) write_all(fd_, "\r\x1b[K");
}

void Progress::add_files(std::size_t count) { total_ += count; }
void Progress::file_done(std::size_t count) { done_ += count; }

void Progress::unit_started(const std::string& path) {
  const std::lock_guard lock(mutex_);
  ++in_flight_[path];
}

void Progress::unit_finished(const std::string& path) {
  const std::lock_guard lock(mutex_);
  const auto it = in_flight_.find(path);
  if (it != in_flight_.end() && --it->second == 0) in_flight_.erase(it);
}

std::string Progress::line(std::size_t width) const {
  std::string text = "cudnnlint: " + std::to_string(done_.load()) + "/" + std::to_string(total_.load()) + " files";
  {
    const std::lock_guard lock(mutex_);
    std::string units;
    for (const auto& [path, count] : in_flight_)
      units += (units.empty() ? "" : ", ") + std::filesystem::path(path).filename().string();
    if (!units.empty()) text += "; clang: " + units;
  }
  if (text.size() > width) {
    std::size_t cut = width;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
    text.resize(cut);
  }
  return text;
}

void Progress::draw_loop(std::stop_token stop) {
  std::mutex sleep_mutex;
  std::unique_lock sleep(sleep_mutex);
  // Waits are cut short by the stop request (std::condition_variable_any with a stop_token).
  wake_.wait_for(sleep, stop, delay_, [] { return false; });
  while (!stop.stop_requested()) {
    write_all(fd_, "\r\x1b[K" + line(terminal_width(fd_)));
    drawn_ = true;
    wake_.wait_for(sleep, stop, std::chrono::milliseconds(200), [] { return false; });
  }
}

}  // namespace cudnnlint
