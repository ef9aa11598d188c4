// Reads a crash log once, streaming, into the failures it reports and the stack frames of each:
// Python tracebacks (chained, or posted without their header), error lines followed by their
// frames (seed 004's layout), PyTorch's `cuDNN error:` / `CUDA error:` lines, TensorFlow's fatal
// `F ...cuda_dnn.cc` lines and C++ `terminate called ... what():` lines. Memory stays bounded
// whatever the log's size: long lines are cut, and only the first and last failures are kept.
#pragma once

#include <cstddef>
#include <cstdint>
#include <istream>
#include <string>
#include <string_view>
#include <vector>

namespace cudnnlint::triage {

// `s` without the blanks (spaces, tabs, CRs) at either end.
std::string_view trim_blanks(std::string_view s);

// A region of the log: 1-based line, byte offset of the line's start, and the bytes kept.
struct LogRegion {
  std::size_t line = 0;
  std::uint64_t offset = 0;
  std::size_t length = 0;
};

struct Frame {
  std::string path;      // as the log spells it (another machine's absolute path, often)
  std::size_t line = 0;  // 0 when the log gives none
  std::string function;  // "" when the log gives none
  std::string code;      // the source line the log quotes under the frame, trimmed
  std::size_t log_line = 0;
};

struct Failure {
  enum class Link { None, DuringHandling, DirectCause };
  LogRegion where;
  std::string text;            // the error line, trimmed (at most kMaxLineBytes)
  std::vector<std::string> context;  // the lines that continue its message
  std::vector<Frame> frames;   // outermost first, as Python prints them
  Link link = Link::None;      // how the log chains it to the failure before it
  std::size_t repeats = 0;     // identical lines right after it that were folded into it
};

struct LogScan {
  std::uint64_t bytes = 0;
  std::size_t lines = 0;
  bool binary = false;             // NUL bytes or mostly control bytes at the start: not a text log
  std::uint64_t first_nul = 0;     // where, when binary
  std::vector<Failure> failures;   // in log order (the first and the last kMaxFailures / 2)
  std::size_t failures_dropped = 0;  // between those, to bound memory
  std::size_t lines_cut = 0;       // lines longer than kMaxLineBytes (their tails are not read)
};

inline constexpr std::size_t kMaxLineBytes = 4096;
inline constexpr std::size_t kMaxFailures = 200;

// Throws std::runtime_error when the stream fails while reading (not at its end).
LogScan scan_log(std::istream& in);

}  // namespace cudnnlint::triage
