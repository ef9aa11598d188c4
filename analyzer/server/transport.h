// The language server's wire: LSP base protocol messages (`Content-Length: N\r\n\r\n` then N
// bytes of JSON) read from and written to streams. A malformed header is reported and skipped,
// not fatal: the server stays up for the next message. What a hostile or broken client sends is
// bounded: a header line, a body and the JSON's nesting each have a fixed limit.
#pragma once

#include <cstddef>
#include <istream>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

namespace cudnnlint::server {

// A body longer than this is refused (a document far past --max-file-size); a header line longer
// than this is discarded as it is read, never held whole.
inline constexpr std::size_t kMaxBody = 256u << 20;
inline constexpr std::size_t kMaxHeaderLine = 8u << 10;
// JSON nested deeper than this is refused before it is parsed: the DOM's copies, comparisons and
// dump() recurse once per level, and 100,000 levels overflow the stack.
inline constexpr std::size_t kMaxJsonDepth = 512;

struct IncomingMessage {
  std::string body;   // the JSON text; empty when `error` is set
  std::string error;  // a malformed header ("missing Content-Length", ...), for the log
};

// The next message; nullopt at the end of the stream. After a message whose length could not be
// read, its body (of unknown length) runs into the next header: a header line in which
// "Content-Length:" follows such bytes starts the next message there.
std::optional<IncomingMessage> read_message(std::istream& in);

// Whether the arrays and objects of `text` nest no deeper than `max_depth` (strings skipped,
// escapes included). One pass, no recursion; `text` need not be valid JSON.
bool json_depth_within(std::string_view text, std::size_t max_depth);

// Writes one message and flushes.
void write_message(std::ostream& out, const std::string& body);

}  // namespace cudnnlint::server
