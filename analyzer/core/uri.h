// Paths as URIs: the one percent-encoder of the SARIF emitter (artifact locations, the source
// root) and the language server (locations in other files), and the one decoder of the SARIF
// reader and the server (the editor's document URIs).
#pragma once

#include <string>
#include <string_view>

namespace cudnnlint {

// `path` with every byte but RFC 3986's unreserved ones (ASCII letters, digits, - . _ ~) and '/'
// written as %XX (upper-case hex), so that spaces, '#', '%', '?' and non-ASCII names survive.
std::string percent_encode_path(std::string_view path);

// file:///a%20b/c.py for the absolute path /a b/c.py.
std::string file_uri(std::string_view absolute_path);

// Every %XX (either case of hex) as its byte; a '%' without two hex digits after it stays as it is.
std::string percent_decode(std::string_view text);

}  // namespace cudnnlint
