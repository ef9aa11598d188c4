// libFuzzer harness: the language server's input. The bytes are its stdin: every message the
// framing reads (server/transport.h) goes through the depth check and, when within the bound, to
// nlohmann's parser, as Server::handle takes it. Memory stays bounded by the input (a body is read
// as it arrives, an over-long header line is skipped unheld) and nothing recurses past the bound.
#include "server/transport.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace cudnnlint::server;
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  std::size_t read = 0;
  while (auto message = read_message(in)) {
    // Each message consumes input: a reader that looped without reading would hang here.
    if (++read > size + 1) __builtin_trap();
    if (!message->error.empty() || !json_depth_within(message->body, kMaxJsonDepth)) continue;
    const nlohmann::json parsed = nlohmann::json::parse(message->body, nullptr, /*allow_exceptions=*/false);
    if (!parsed.is_discarded()) (void)parsed.dump();  // the server's responses dump what it was sent
  }
  return 0;
}
