// The language server's wire: LSP base protocol messages (`Content-Length: N\r\n\r\n` then N
// bytes of JSON) read from and written to streams. A malformed header is reported and skipped,
// not fatal: the server stays up for the next message.
#pragma once

#include <istream>
#include <optional>
#include <ostream>
#include <string>

namespace cudnnlint::server {

struct IncomingMessage {
  std::string body;   // the JSON text; empty when `error` is set
  std::string error;  // a malformed header ("missing Content-Length", ...), for the log
};

// The next message; nullopt at the end of the stream.
std::optional<IncomingMessage> read_message(std::istream& in);

// Writes one message and flushes.
void write_message(std::ostream& out, const std::string& body);

}  // namespace cudnnlint::server
