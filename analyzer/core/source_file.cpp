#include "core/source_file.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <algorithm>
#include <fstream>
#include <cstdint>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cerrno>
#include <cstring>
#include <sstream>

namespace cudnnlint {

namespace {

// Length of the UTF-8 sequence that starts with `lead`, 0 for a byte that cannot lead one.
std::size_t sequence_length(unsigned char lead) {
  if (lead < 0x80) return 1;
  if (lead >= 0xC2 && lead <= 0xDF) return 2;
  if (lead >= 0xE0 && lead <= 0xEF) return 3;
  if (lead >= 0xF0 && lead <= 0xF4) return 4;
  return 0;
}

bool is_continuation(unsigned char byte) { return (byte & 0xC0) == 0x80; }

}  // namespace

std::size_t find_toml_non_ascii_outside_strings(std::string_view text) {
  enum class State { Code, Comment, Basic, Literal, MultiBasic, MultiLiteral } state = State::Code;
  static constexpr std::string_view kTripleQuote = "\"\"\"", kTripleApostrophe = "'''";
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    switch (state) {
      case State::Code:
        if (static_cast<unsigned char>(c) >= 0x80) return i;
        if (c == '#') {
          state = State::Comment;
        } else if (text.substr(i, 3) == kTripleQuote) {
          state = State::MultiBasic;
          i += 2;
        } else if (text.substr(i, 3) == kTripleApostrophe) {
          state = State::MultiLiteral;
          i += 2;
        } else if (c == '"') {
          state = State::Basic;
        } else if (c == '\'') {
          state = State::Literal;
        }
        break;
      case State::Comment:
        if (c == '\n') state = State::Code;
        break;
      case State::Basic:
        if (c == '\\') ++i;
        else if (c == '"' || c == '\n') state = State::Code;
        break;
      case State::Literal:
        if (c == '\'' || c == '\n') state = State::Code;
        break;
      case State::MultiBasic:
        if (c == '\\') {
          ++i;
        } else if (text.substr(i, 3) == kTripleQuote) {
          state = State::Code;
          i += 2;
        }
        break;
      case State::MultiLiteral:
        if (text.substr(i, 3) == kTripleApostrophe) {
          state = State::Code;
          i += 2;
        }
        break;
    }
  }
  return std::string_view::npos;
}

std::string toml_ascii_copy(std::string_view text) {
  std::string ascii(text);
  for (char& c : ascii)
    if (static_cast<unsigned char>(c) >= 0x80) c = 'x';
  return ascii;
}

std::string valid_utf8(std::string_view text) {
  std::string out;
  for (std::size_t bad = find_invalid_utf8(text); bad != std::string_view::npos; bad = find_invalid_utf8(text)) {
    out.append(text.substr(0, bad));
    out.append("\xEF\xBF\xBD");  // U+FFFD
    text.remove_prefix(bad + 1);
  }
  out.append(text);
  return out;
}

std::size_t find_invalid_utf8(std::string_view text) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(text.data());
  std::size_t i = 0;
  const std::size_t n = text.size();
  while (i < n) {
    // Source is mostly ASCII: skip 32, then eight bytes at a time while none has its high bit set.
    while (i + 32 <= n) {
      std::uint64_t words[4];
      std::memcpy(words, bytes + i, 32);
      if ((words[0] | words[1] | words[2] | words[3]) & 0x8080808080808080ull) break;
      i += 32;
    }
    while (i + 8 <= n) {
      std::uint64_t word;
      std::memcpy(&word, bytes + i, 8);
      if (word & 0x8080808080808080ull) break;
      i += 8;
    }
    if (i >= n) break;
    const unsigned char lead = bytes[i];
    if (lead < 0x80) {
      ++i;
      continue;
    }
    const std::size_t len = sequence_length(lead);
    if (len == 0 || i + len > n) return i;
    for (std::size_t k = 1; k < len; ++k)
      if (!is_continuation(bytes[i + k])) return i;
    // Reject overlong 3/4-byte forms, UTF-16 surrogates and code points above U+10FFFF.
    if (lead == 0xE0 && bytes[i + 1] < 0xA0) return i;
    if (lead == 0xED && bytes[i + 1] > 0x9F) return i;
    if (lead == 0xF0 && bytes[i + 1] < 0x90) return i;
    if (lead == 0xF4 && bytes[i + 1] > 0x8F) return i;
    i += len;
  }
  return std::string_view::npos;
}

std::size_t codepoint_length(std::string_view utf8) {
  return static_cast<std::size_t>(std::count_if(utf8.begin(), utf8.end(), [](char c) {
    return !is_continuation(static_cast<unsigned char>(c));
  }));
}

std::size_t utf16_length(std::string_view utf8) {
  std::size_t units = 0;
  for (char c : utf8) {
    const auto byte = static_cast<unsigned char>(c);
    if (is_continuation(byte)) continue;
    units += (byte >= 0xF0) ? 2 : 1;  // code points above U+FFFF are surrogate pairs
  }
  return units;
}

SourceFile::SourceFile(std::string path, std::string text) : path_(std::move(path)), text_(std::move(text)) {
  if (text_.size() >= 3 && text_.compare(0, 3, "\xEF\xBB\xBF") == 0) content_offset_ = 3;
}

// Most files read are never asked for a position (the prefilter drops them): lines are
// indexed on first use.
const std::vector<std::size_t>& SourceFile::line_starts() const {
  if (!line_starts_.empty()) return line_starts_;
  line_starts_.push_back(0);
  const std::size_t n = text_.size();
  // CR, LF and CRLF all end a line, as Python and GitHub's line hashing treat them. Sixteen bytes
  // at a time: most blocks hold no line end or one.
  auto line_end_at = [&](std::size_t& i) {
    if (text_[i] == '\n') {
      line_starts_.push_back(i + 1);
    } else if (text_[i] == '\r') {
      if (i + 1 < n && text_[i + 1] == '\n') ++i;
      line_starts_.push_back(i + 1);
    }
  };
  std::size_t i = 0;
#if defined(__SSE2__)
  const __m128i lf = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r');
  while (i + 16 <= n) {
    const __m128i block = _mm_loadu_si128(reinterpret_cast<const __m128i*>(text_.data() + i));
    auto mask = static_cast<unsigned>(_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(block, lf), _mm_cmpeq_epi8(block, cr))));
    std::size_t resume = i + 16;
    while (mask != 0) {
      std::size_t at = i + static_cast<std::size_t>(__builtin_ctz(mask));
      mask &= mask - 1;
      const std::size_t before = at;
      line_end_at(at);
      if (at != before) {  // the LF of a CRLF is part of the same line end, in this block or the next
        if (at - i < 16) mask &= ~(1u << (at - i));
        resume = std::max(resume, at + 1);
      }
    }
    i = resume;
  }
#endif
  for (; i < n; ++i) line_end_at(i);
  return line_starts_;
}

std::size_t SourceFile::line_count() const { return line_starts().size(); }

std::optional<std::string> read_file_bytes(const std::string& path) {
  // One read into a buffer of the file's size (the cache reads its multi-megabyte pack with this).
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return std::nullopt;
  std::string text;
  if (const auto size = in.tellg(); size > 0) {
    text.resize(static_cast<std::size_t>(size));
    in.seekg(0);
    in.read(text.data(), size);
    if (in.gcount() != size) return std::nullopt;
    // A file that grew meanwhile: the rest too.
    std::ostringstream rest;
    rest << in.rdbuf();
    text += std::move(rest).str();
  } else {
    std::ostringstream all;
    all << in.rdbuf();
    text = std::move(all).str();
  }
  if (in.bad()) return std::nullopt;
  return text;
}

Position SourceFile::position_at(std::size_t byte_offset) const {
  byte_offset = std::min(byte_offset, text_.size());
  const auto& starts = line_starts();
  const auto it = std::upper_bound(starts.begin(), starts.end(), byte_offset);
  const std::size_t line_index = static_cast<std::size_t>(it - starts.begin()) - 1;
  std::size_t line_start = starts[line_index];
  if (line_index == 0) line_start = std::max(line_start, std::min(content_offset_, byte_offset));
  const std::string_view prefix(text_.data() + line_start, byte_offset - line_start);
  Position pos;
  pos.line = static_cast<std::uint32_t>(line_index + 1);
  pos.column = static_cast<std::uint32_t>(codepoint_length(prefix) + 1);
  pos.column_utf16 = static_cast<std::uint32_t>(utf16_length(prefix) + 1);
  pos.byte_offset = static_cast<std::uint32_t>(byte_offset);
  return pos;
}

SourceRange SourceFile::range(std::size_t begin_byte, std::size_t end_byte) const {
  return SourceRange{position_at(begin_byte), position_at(end_byte)};
}

std::string_view SourceFile::line_text(std::uint32_t line) const {
  const auto& starts = line_starts();
  if (line == 0 || line > starts.size()) return {};
  std::size_t begin = starts[line - 1];
  if (line == 1) begin = std::max(begin, content_offset_);
  std::size_t end = (line < starts.size()) ? starts[line] : text_.size();
  while (end > begin && (text_[end - 1] == '\n' || text_[end - 1] == '\r')) --end;
  return std::string_view(text_).substr(begin, end - begin);
}

namespace {

// Closes a file descriptor on scope exit.
struct FileDescriptor {
  int fd = -1;
  ~FileDescriptor() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

namespace {

// What every source text goes through, from a file or an editor's buffer.
std::variant<SourceFile, LoadError> checked_python_or_cpp(const std::string& path, std::string text,
                                                          const LoadLimits& limits) {
  if (text.find('\0') != std::string::npos) return LoadError{"binary file (contains NUL bytes); skipped"};
  if (const auto bad = limits.require_utf8 ? find_invalid_utf8(text) : std::string_view::npos;
      bad != std::string_view::npos) {
    SourceFile partial(path, text.substr(0, bad));
    const auto pos = partial.position_at(bad);
    std::ostringstream msg;
    msg << "invalid UTF-8 at line " << pos.line << ", column " << pos.column << " (byte offset " << bad
        << "); Python source must be UTF-8; skipped";
    return LoadError{msg.str()};
  }
  // Lone CR line endings (classic Mac OS): Python and clang take them as line breaks, tree-sitter's
  // Python grammar does not (a syntax error at 1:1 lost every finding of the file). Made LF, byte
  // for byte, so that every offset and line stays the same.
  for (std::size_t cr = text.find('\r'); cr != std::string::npos; cr = text.find('\r', cr + 1))
    if (cr + 1 == text.size() || text[cr + 1] != '\n') text[cr] = '\n';
  return SourceFile(path, std::move(text));
}

constexpr std::uintmax_t kNotebookFileFactor = 16;

// A notebook is read as the module of its code cells (core/notebook.h), checked as Python is.
std::variant<SourceFile, LoadError> checked_source(const std::string& path, std::string text, const LoadLimits& limits) {
  if (!is_notebook_path(path)) return checked_python_or_cpp(path, std::move(text), limits);
  auto module = notebook_module(text);
  if (auto* why = std::get_if<std::string>(&module)) return LoadError{"not a readable notebook: " + *why + "; skipped"};
  NotebookModule& notebook = std::get<NotebookModule>(module);
  if (notebook.python.size() > limits.max_bytes)
    return LoadError{"its code cells hold " + std::to_string(notebook.python.size()) + " bytes, above the " +
                     std::to_string(limits.max_bytes) + "-byte limit (--max-file-size); skipped"};
  LoadLimits python = limits;
  python.require_utf8 = true;
  auto loaded = checked_python_or_cpp(path, std::move(notebook.python), python);
  if (auto* file = std::get_if<SourceFile>(&loaded))
    file->set_notebook(std::make_shared<const NotebookIndex>(std::move(notebook.index)));
  return loaded;
}

}  // namespace

std::variant<SourceFile, LoadError> load_source_file(const std::string& path, const LoadLimits& limits) {
  if (limits.overlay)
    if (const auto it = limits.overlay->find(path); it != limits.overlay->end()) {
      if (it->second.size() > limits.max_bytes)
        return LoadError{"the buffer is " + std::to_string(it->second.size()) + " bytes, above the " +
                         std::to_string(limits.max_bytes) + "-byte limit (--max-file-size); skipped"};
      return checked_source(path, it->second, limits);
    }
  // One open, one fstat and one read: this runs for every file of the tree.
  // O_NONBLOCK: opening a FIFO must not wait for a writer (it is refused below as not a regular file).
  FileDescriptor file{::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK)};
  struct stat info {};
  if (file.fd < 0) {
    const int error = errno;
    if (::stat(path.c_str(), &info) != 0) return LoadError{"no such file or directory"};
    if (S_ISDIR(info.st_mode)) return LoadError{"is a directory"};
    return LoadError{std::string("cannot open: ") + std::strerror(error)};
  }
  if (::fstat(file.fd, &info) != 0) return LoadError{std::string("cannot read file size: ") + std::strerror(errno)};
  if (S_ISDIR(info.st_mode)) return LoadError{"is a directory"};
  if (!S_ISREG(info.st_mode)) return LoadError{"not a regular file"};
  const auto size = static_cast<std::uintmax_t>(info.st_size);
  // A notebook's file holds its outputs (plots as base64 images) beside the code: the limit is its
  // code's (checked once the cells are read), and the file may be kNotebookFileFactor times larger.
  const bool notebook = is_notebook_path(path);
  const std::uintmax_t file_limit =
      notebook ? std::min(limits.max_bytes, UINTMAX_MAX / kNotebookFileFactor) * kNotebookFileFactor : limits.max_bytes;
  if (size > file_limit) {
    std::ostringstream msg;
    msg << "file is " << size << " bytes, above the " << file_limit << "-byte limit ("
        << (notebook ? std::to_string(kNotebookFileFactor) + " times --max-file-size for a notebook" : "--max-file-size")
        << "); skipped";
    return LoadError{msg.str()};
  }
  std::string text(static_cast<std::size_t>(size), '\0');
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t got = ::read(file.fd, text.data() + done, text.size() - done);
    if (got < 0) {
      if (errno == EINTR) continue;
      return LoadError{std::string("read error: ") + std::strerror(errno)};
    }
    if (got == 0) break;  // the file shrank while being read
    done += static_cast<std::size_t>(got);
  }
  text.resize(done);
  return checked_source(path, std::move(text), limits);
}

}  // namespace cudnnlint
