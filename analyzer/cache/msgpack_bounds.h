// A cache entry is untrusted bytes: before nlohmann's MessagePack reader (which recurses once per
// nesting level) sees an entry, this iterative scan checks that it is one well-formed value whose
// nesting stays within a bound and whose every length and count fits in the bytes that remain.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace cudnnlint::cache {

// Empty when `bytes` is exactly one MessagePack value nested at most `max_depth` deep; else what is wrong.
std::string check_msgpack_bounds(std::string_view bytes, std::size_t max_depth);

}  // namespace cudnnlint::cache
