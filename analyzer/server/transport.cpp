#include "server/transport.h"

#include <charconv>
#include <cctype>

namespace cudnnlint::server {

namespace {

constexpr std::size_t kMaxBody = 256u << 20;  // a document far past --max-file-size: refused

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  return true;
}

}  // namespace

std::optional<IncomingMessage> read_message(std::istream& in) {
  IncomingMessage message;
  std::optional<std::size_t> length;
  std::string line;
  bool any = false;
  // Header lines up to an empty one. A line without a colon, a bad number or a missing
  // Content-Length makes the message malformed; its body (if a length was read) is skipped.
  while (std::getline(in, line)) {
    any = true;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) break;
    const auto colon = line.find(':');
    if (colon == std::string::npos) {
      message.error = "malformed header line '" + line.substr(0, 80) + "'";
      continue;
    }
    const std::string_view name = std::string_view(line).substr(0, colon);
    std::string_view value = std::string_view(line).substr(colon + 1);
    while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    if (equals_ignoring_case(name, "Content-Length")) {
      std::size_t n = 0;
      const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
      if (ec != std::errc() || end != value.data() + value.size()) {
        message.error = "bad Content-Length '" + std::string(value.substr(0, 40)) + "'";
      } else if (n > kMaxBody) {
        message.error = "Content-Length " + std::to_string(n) + " is above the 256 MiB limit";
      } else {
        length = n;
      }
    }
  }
  if (!any) return std::nullopt;
  if (!length) {
    if (message.error.empty()) message.error = "missing Content-Length";
    return message;
  }
  std::string body(*length, '\0');
  in.read(body.data(), static_cast<std::streamsize>(body.size()));
  if (static_cast<std::size_t>(in.gcount()) != body.size()) {
    message.error = "the stream ended inside a message";
    return message;
  }
  if (message.error.empty()) message.body = std::move(body);
  return message;
}

void write_message(std::ostream& out, const std::string& body) {
  out << "Content-Length: " << body.size() << "\r\n\r\n" << body;
  out.flush();
}

}  // namespace cudnnlint::server
