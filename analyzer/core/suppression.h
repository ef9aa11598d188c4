// Inline suppressions, in every language's comment syntax: `# cudnnlint: ignore[rule-a, rule-b]`,
// `# cudnnlint: ignore` (every rule), `# noqa: rule-a` (named rules only: a bare `# noqa` belongs
// to other tools). C++'s NOLINT forms are read by the C++ front-end.
#pragma once

#include "core/facts.h"

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace cudnnlint {

// The suppression a comment's text (from its '#') holds, on `line`.
std::optional<SuppressionComment> parse_suppression(std::string_view comment, std::uint32_t line);

// Suppressions in a file whose comments start with '#' at a line start or after a blank (YAML).
std::vector<SuppressionComment> hash_comment_suppressions(std::string_view text);

}  // namespace cudnnlint
