#include "server/transport.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <limits>

namespace cudnnlint::server {

namespace {

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  return true;
}

// A character of a header name (RFC 9110's tchar).
bool is_token_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

// Where "Content-Length:" (in any case) starts in `line`; npos when it is not there.
std::size_t find_content_length(std::string_view line) {
  constexpr std::string_view key = "content-length:";
  for (std::size_t at = 0; at + key.size() <= line.size(); ++at)
    if (equals_ignoring_case(line.substr(at, key.size()), key)) return at;
  return std::string_view::npos;
}

enum class LineRead { Line, TooLong, End };

// One header line into `line`, without its \n or \r\n. A line longer than kMaxHeaderLine is never
// held whole (a client could send gigabytes without a newline): the rest of it is skipped up to
// its newline, and it is reported as too long.
LineRead read_header_line(std::istream& in, std::string& line) {
  line.clear();
  char c = 0;
  while (in.get(c)) {
    if (c == '\n') {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      return LineRead::Line;
    }
    if (line.size() == kMaxHeaderLine) {
      in.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
      return LineRead::TooLong;
    }
    line.push_back(c);
  }
  return line.empty() ? LineRead::End : LineRead::Line;  // the last line, without a newline
}

// The header lines of one message, up to the empty line.
struct HeaderBlock {
  std::optional<std::size_t> length;
  std::string error;  // the message is skipped (its body too, when its length is known)

  void add(std::string_view line) {
    const auto colon = line.find(':');
    if (colon == std::string_view::npos) {
      error = "malformed header line '" + std::string(line.substr(0, 80)) + "'";
      return;
    }
    const std::string_view name = line.substr(0, colon);
    std::string_view value = line.substr(colon + 1);
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
    while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
    if (equals_ignoring_case(name, "Content-Length")) set_length(value);
  }

  void set_length(std::string_view value) {
    // Digits only: from_chars refuses a sign, so "-5" is a bad length, not a huge one.
    std::size_t n = 0;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
    if (ec == std::errc::result_out_of_range || (ec == std::errc() && end == value.data() + value.size() && n > kMaxBody)) {
      error = "Content-Length " + std::string(value.substr(0, 40)) + " is above the 256 MiB limit";
    } else if (ec != std::errc() || end != value.data() + value.size()) {
      error = "bad Content-Length '" + std::string(value.substr(0, 40)) + "'";
    } else {
      length = n;
    }
  }
};

// `length` bytes, read as they arrive: a Content-Length that promises more than the stream holds
// costs no more memory than what was sent. nullopt when the stream ends first.
std::optional<std::string> read_body(std::istream& in, std::size_t length) {
  constexpr std::size_t kChunk = 64u << 10;
  std::string body;
  body.reserve(std::min(length, kChunk));
  while (body.size() < length) {
    const std::size_t had = body.size(), want = std::min(kChunk, length - had);
    body.resize(had + want);
    in.read(body.data() + had, static_cast<std::streamsize>(want));
    const auto got = static_cast<std::size_t>(in.gcount());
    body.resize(had + got);
    if (got != want) return std::nullopt;
  }
  return body;
}

}  // namespace

std::optional<IncomingMessage> read_message(std::istream& in) {
  HeaderBlock block;
  std::string line;
  bool any = false;
  for (;;) {
    const LineRead read = read_header_line(in, line);
    if (read == LineRead::End) break;
    any = true;
    if (read == LineRead::TooLong) {
      block.error = "a header line longer than " + std::to_string(kMaxHeaderLine) + " bytes (discarded)";
      continue;
    }
    if (line.empty()) break;
    // "Content-Length:" after bytes that cannot end a header name: the body of a message whose
    // length was unknown ran into this header. The next message starts here; what came before
    // it in this block was that body.
    if (const auto at = find_content_length(line); at != std::string::npos && at > 0 && !is_token_char(line[at - 1])) {
      block = HeaderBlock{};
      line.erase(0, at);
    }
    block.add(line);
  }
  if (!any) return std::nullopt;
  IncomingMessage message;
  message.error = std::move(block.error);
  if (!block.length) {
    if (message.error.empty()) message.error = "missing Content-Length";
    return message;
  }
  std::optional<std::string> body = read_body(in, *block.length);
  if (!body) {
    message.error = "the stream ended inside a message";
    return message;
  }
  if (message.error.empty()) message.body = std::move(*body);
  return message;
}

bool json_depth_within(std::string_view text, std::size_t max_depth) {
  std::size_t depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;  // the escaped character, a quote included
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) return false;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return true;
}

void write_message(std::ostream& out, const std::string& body) {
  out << "Content-Length: " << body.size() << "\r\n\r\n" << body;
  out.flush();
}

}  // namespace cudnnlint::server
