// The hash a fix carries of the bytes it was made against (XXH3-128, 32 hex digits): --fix
// refuses a file whose bytes hash otherwise. It detects a file that is not the one analysed; the
// cache's entries, which carry fixes across runs, are authenticated separately (cache/authenticator.h).
#pragma once

#include <string>
#include <string_view>

namespace cudnnlint {

std::string content_hash(std::string_view bytes);

}  // namespace cudnnlint
