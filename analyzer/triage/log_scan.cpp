#include "triage/log_scan.h"

#include "core/identifier.h"

#include <algorithm>
#include <array>
#include <deque>
#include <optional>
#include <stdexcept>
#include <string_view>

namespace cudnnlint::triage {

std::string_view trim_blanks(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

namespace {

constexpr std::size_t kChunkBytes = std::size_t{1} << 20;
constexpr std::size_t kBinaryProbeBytes = 64 * 1024;
constexpr std::size_t kMaxContextLines = 6;
constexpr std::size_t kMaxFramesPerFailure = 256;
// Lines at least this long may have been wrapped by the terminal they were copied from (80 columns).
constexpr std::size_t kWrapWidth = 79;

// A byte of a dotted name (`torch.AcceleratorError`).
bool is_dotted_name_char(char c) { return is_identifier_char(c) || c == '.'; }

// `File "path", line N, in function` (Python's traceback frame line), leading space allowed.
std::optional<Frame> parse_frame(std::string_view line) {
  const std::string_view t = trim_blanks(line);
  if (!t.starts_with("File \"")) return std::nullopt;
  const std::size_t close = t.find("\", line ", 6);
  if (close == std::string_view::npos) return std::nullopt;
  Frame frame;
  frame.path = std::string(t.substr(6, close - 6));
  std::size_t i = close + 8;
  while (i < t.size() && t[i] >= '0' && t[i] <= '9') {
    frame.line = frame.line * 10 + static_cast<std::size_t>(t[i] - '0');
    if (frame.line > 100'000'000) return std::nullopt;
    ++i;
  }
  if (i == close + 8) return std::nullopt;
  if (t.substr(i).starts_with(", in ")) frame.function = std::string(trim_blanks(t.substr(i + 5)));
  return frame;
}

bool is_bare_identifier(std::string_view t) {
  return !t.empty() && std::all_of(t.begin(), t.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '>';
  });
}

// "RuntimeError: ...", "torch.AcceleratorError: ...", "tensorflow.python.framework.errors_impl.UnknownError: ..."
bool is_exception_line(std::string_view t) {
  std::size_t i = 0;
  while (i < t.size() && is_dotted_name_char(t[i])) ++i;
  if (i == 0 || i >= t.size() || t[i] != ':') return false;
  const std::string_view name = t.substr(0, i);
  const std::size_t dot = name.rfind('.');
  const std::string_view last = dot == std::string_view::npos ? name : name.substr(dot + 1);
  if (last.empty() || !(last[0] >= 'A' && last[0] <= 'Z')) return false;
  return last.ends_with("Error") || last.ends_with("Exception") || last.ends_with("Failure") ||
         last == "KeyboardInterrupt" || last == "SystemExit";
}

// Lines that report a failure without Python's exception form.
bool is_error_report(std::string_view t) {
  static constexpr std::array<std::string_view, 9> kMarkers = {
      "CUDNN_STATUS_",   "cuDNN error",     "CuDNN error", "CUDA error:",     "Check failed:",
      "could not convert BatchDescriptor", "Cudnn error", "returned nan values", "cudaError"};
  for (std::string_view marker : kMarkers)
    if (t.find(marker) != std::string_view::npos) return true;
  // A device-side assert as the kernel prints it: "Loss.cu:245: ... thread: [5,0,0] Assertion `t >= 0 && t < n_classes` failed."
  return t.find("Assertion `") != std::string_view::npos && t.ends_with("failed.");
}

class Scanner {
 public:
  explicit Scanner(LogScan& scan) : scan_(scan) {}

  void line(std::string_view raw, std::size_t number, std::uint64_t offset, std::size_t full_length) {
    const std::string_view t = trim_blanks(raw);
    if (t.empty()) {
      context_open_ = false;
      return;
    }
    if (t == "Traceback (most recent call last):" || t.starts_with("Traceback (most recent call last)")) {
      in_traceback_ = true;
      pending_.clear();
      frames_after_ = std::nullopt;
      context_open_ = false;
      return;
    }
    if (t.starts_with("During handling of the above exception")) {
      next_link_ = Failure::Link::DuringHandling;
      context_open_ = false;
      return;
    }
    if (t.starts_with("The above exception was the direct cause")) {
      next_link_ = Failure::Link::DirectCause;
      context_open_ = false;
      return;
    }
    // A frame line wrapped at the terminal's width (forum posts, Windows consoles): `File "...\function.p`
    // then `y", line 56, in train`; or a function name cut after the line number: `in b` then `ackward`.
    std::string joined;
    std::string_view frame_text = t;
    if (!partial_frame_.empty()) {
      joined = partial_frame_ + std::string(t);
      partial_frame_.clear();
      if (parse_frame(joined)) frame_text = joined;
    } else if (t.starts_with("File \"") && t.find("\", line ") == std::string_view::npos && raw.size() >= kWrapWidth) {
      partial_frame_ = std::string(t);
      return;
    }
    if (last_was_frame_ && last_frame_wrapped_ && raw[0] != ' ' && raw[0] != '\t' && is_bare_identifier(t)) {
      if (Frame* frame = last_frame()) frame->function += std::string(t);
      last_frame_wrapped_ = false;
      return;
    }
    last_frame_wrapped_ = false;
    if (auto frame = parse_frame(frame_text)) {
      last_frame_wrapped_ = raw.size() >= kWrapWidth;
      frame->log_line = number;
      context_open_ = false;
      last_was_frame_ = true;
      if (!in_traceback_ && frames_after_) {
        // Seed 004's layout: the error line first, then its frames.
        Failure* failure = current(*frames_after_);
        if (failure != nullptr && failure->frames.size() < kMaxFramesPerFailure) failure->frames.push_back(*frame);
        return;
      }
      in_traceback_ = true;  // a traceback posted without its header
      if (pending_.size() < kMaxFramesPerFailure) pending_.push_back(*frame);
      return;
    }
    const bool after_frame = last_was_frame_;
    last_was_frame_ = false;
    if (after_frame && raw.starts_with(" ") && !is_exception_line(t) && !is_error_report(t)) {
      // The source line Python quotes under a frame.
      if (in_traceback_ && !pending_.empty()) pending_.back().code = std::string(t.substr(0, 400));
      else if (frames_after_) {
        Failure* failure = current(*frames_after_);
        if (failure != nullptr && !failure->frames.empty()) failure->frames.back().code = std::string(t.substr(0, 400));
      }
      return;
    }
    if (t == "..." || t.starts_with("^")) return;  // elided frames, caret markers
    const bool exception = is_exception_line(t);
    const bool report = !exception && is_error_report(t);
    if (report && context_open_ && last_failure_is_exception_) {
      // The rest of an exception's message ("Search for `cudaErrorAssert' ...", TensorFlow's
      // "(0) Unknown: CUDNN_STATUS_BAD_PARAM" under "2 root error(s) found."): context, not a new failure.
      Failure* failure = current(last_failure_);
      if (failure != nullptr && failure->context.size() < kMaxContextLines) {
        failure->context.emplace_back(t);
        return;
      }
    }
    if (exception || report) {
      add_failure(t, number, offset, full_length);
      last_failure_is_exception_ = exception;
      return;
    }
    if (context_open_) {
      Failure* failure = current(last_failure_);
      if (failure != nullptr && failure->context.size() < kMaxContextLines) failure->context.emplace_back(t);
      else context_open_ = false;
    }
  }

 private:
  // Failures are numbered as they come: the first kMaxFailures / 2 stay in head_, and tail_
  // holds a window of the newest (older ones are dropped to bound memory).
  Failure* current(std::size_t serial) {
    if (serial < head_.size()) return &head_[serial];
    const std::size_t tail_first = serial_ - tail_.size();
    if (serial < tail_first || serial >= serial_) return nullptr;
    return &tail_[serial - tail_first];
  }

  // Lines that differ only in numbers (a kernel's thread index, a retry count) are one failure.
  static bool same_but_numbers(std::string_view a, std::string_view b) {
    std::size_t i = 0, j = 0;
    auto digit = [](char c) { return c >= '0' && c <= '9'; };
    while (i < a.size() || j < b.size()) {
      if (i < a.size() && digit(a[i])) { ++i; continue; }
      if (j < b.size() && digit(b[j])) { ++j; continue; }
      if (i >= a.size() || j >= b.size() || a[i] != b[j]) return false;
      ++i;
      ++j;
    }
    return true;
  }

  void add_failure(std::string_view t, std::size_t number, std::uint64_t offset, std::size_t full_length) {
    Failure* previous = serial_ > 0 ? current(serial_ - 1) : nullptr;
    if (previous != nullptr && !in_traceback_ && same_but_numbers(previous->text, t) && previous->frames.empty() &&
        previous->where.line + previous->repeats + previous->context.size() + 1 >= number) {
      ++previous->repeats;  // the same line again (a message printed twice, a retry loop)
      return;
    }
    Failure failure;
    failure.where = LogRegion{number, offset, full_length};
    failure.text = std::string(t);
    failure.link = next_link_;
    next_link_ = Failure::Link::None;
    if (in_traceback_) {
      failure.frames = std::move(pending_);
      pending_.clear();
      in_traceback_ = false;
      frames_after_ = std::nullopt;
    } else {
      frames_after_ = serial_;
    }
    push(std::move(failure));
    last_failure_ = serial_ - 1;
    context_open_ = true;
  }

  void push(Failure failure) {
    ++serial_;
    if (head_.size() < kMaxFailures / 2 && tail_.empty()) {
      head_.push_back(std::move(failure));
      return;
    }
    tail_.push_back(std::move(failure));
    if (tail_.size() > kMaxFailures / 2) {
      tail_.pop_front();
      ++scan_.failures_dropped;
    }
  }

 public:
  void finish() {
    scan_.failures = std::move(head_);
    for (Failure& failure : tail_) scan_.failures.push_back(std::move(failure));
  }

 private:
  Frame* last_frame() {
    if (in_traceback_) return pending_.empty() ? nullptr : &pending_.back();
    if (!frames_after_) return nullptr;
    Failure* failure = current(*frames_after_);
    return failure == nullptr || failure->frames.empty() ? nullptr : &failure->frames.back();
  }

  LogScan& scan_;
  std::string partial_frame_;  // the first half of a wrapped `File "...` line
  bool last_frame_wrapped_ = false;
  bool in_traceback_ = false;
  bool last_was_frame_ = false;
  bool context_open_ = false;
  bool last_failure_is_exception_ = false;  // the newest failure is a Python exception line
  std::vector<Frame> pending_;
  std::optional<std::size_t> frames_after_;  // serial of the failure that takes the frames that follow
  std::size_t last_failure_ = 0;
  Failure::Link next_link_ = Failure::Link::None;
  std::size_t serial_ = 0;  // failures seen
  std::vector<Failure> head_;
  std::deque<Failure> tail_;
};

}  // namespace

LogScan scan_log(std::istream& in) {
  LogScan scan;
  Scanner scanner(scan);
  std::string chunk(kChunkBytes, '\0');
  std::string carry;          // the start of a line that continues into the next chunk (bounded)
  std::size_t carry_full = 0;  // its full length so far, cut part included
  std::uint64_t line_start = 0;
  std::size_t control_bytes = 0;
  std::size_t probed = 0;

  auto finish_line = [&](std::string_view kept, std::size_t full_length) {
    ++scan.lines;
    if (full_length > kMaxLineBytes) ++scan.lines_cut;
    if (!scan.binary) scanner.line(kept, scan.lines, line_start, std::min(full_length, kMaxLineBytes));
    line_start += full_length + 1;
  };

  while (in) {
    in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    const std::size_t got = static_cast<std::size_t>(in.gcount());
    if (got == 0) break;
    const std::string_view data(chunk.data(), got);
    for (std::size_t i = 0; i < got && probed < kBinaryProbeBytes; ++i, ++probed) {
      const unsigned char c = static_cast<unsigned char>(data[i]);
      if (c == 0 && !scan.binary) {
        scan.binary = true;
        scan.first_nul = scan.bytes + i;
      }
      if (c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != 0x1b && c != '\f') ++control_bytes;
    }
    if (probed > 0 && control_bytes * 10 > probed * 3) scan.binary = true;
    std::size_t start = 0;
    while (start < got) {
      const std::size_t newline = data.find('\n', start);
      const std::size_t end = newline == std::string_view::npos ? got : newline;
      const std::string_view piece = data.substr(start, end - start);
      if (carry.size() < kMaxLineBytes) carry.append(piece.substr(0, kMaxLineBytes - carry.size()));
      carry_full += piece.size();
      if (newline == std::string_view::npos) break;
      finish_line(carry, carry_full);
      carry.clear();
      carry_full = 0;
      start = newline + 1;
    }
    scan.bytes += got;
  }
  if (in.bad()) throw std::runtime_error("read error");
  if (carry_full > 0 || !carry.empty()) finish_line(carry, carry_full);
  scanner.finish();
  return scan;
}

}  // namespace cudnnlint::triage
