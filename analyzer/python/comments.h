// Python comments found by a lexical scan of the whole text, outside string literals. Inline
// suppressions are read this way, not from the syntax tree: a file parsed in regions
// (python/regions.h) has no tree for the parts it skipped, and a finding settled later by the
// project step may sit on any line.
#pragma once

#include "core/facts.h"

#include <cstddef>
#include <functional>
#include <string_view>
#include <vector>

namespace cudnnlint::python {

// Calls `on_comment(offset, text)` for each comment: `text` runs from its '#' to the line's end.
void for_each_comment(std::string_view source, const std::function<void(std::size_t, std::string_view)>& on_comment);

// The suppression comments of `source`; `line_of(offset)` gives an offset's 1-based line.
std::vector<SuppressionComment> suppression_comments(std::string_view source,
                                                     const std::function<std::uint32_t(std::size_t)>& line_of);

}  // namespace cudnnlint::python
