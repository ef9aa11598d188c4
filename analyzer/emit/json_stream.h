// Writes a large JSON document without holding it whole: the document is built with a marker in
// place of its one big array (findings, results), and the array's elements are made and written
// one at a time. The bytes are those of document.dump(2) with the array in place, so a reader
// cannot tell; the memory is one element's, not the array's (issue 13: 65,000 findings).
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <functional>
#include <ostream>
#include <string_view>

namespace cudnnlint {

// The string value to put where the streamed array goes.
inline constexpr std::string_view kStreamedArrayMarker = "\x01cudnnlint-streamed-array\x01";

// Writes `document` indented by 2 as dump(2) does, then '\n'. The member `key` whose value is
// kStreamedArrayMarker, at nesting `depth` (1 for a top-level member), becomes an array of
// `count` elements, element(i) for each i in order. Invalid UTF-8 is replaced, as everywhere.
void write_with_streamed_array(std::ostream& out, const nlohmann::json& document, std::string_view key, int depth,
                               std::size_t count, const std::function<nlohmann::json(std::size_t)>& element);

}  // namespace cudnnlint
