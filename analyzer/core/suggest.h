// "Did you mean" for a mistyped name: the closest of the candidates by edit distance.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace cudnnlint {

// The candidate closest to `typed` (Levenshtein distance, ties to the first), when it is at most
// a third of the longer name's length away (and at most 3 edits): a likely typo, not a guess.
std::optional<std::string> closest_name(std::string_view typed, std::span<const std::string> candidates);

// ", did you mean 'x'?" for the closest candidate, or "".
std::string did_you_mean(std::string_view typed, std::span<const std::string> candidates);

}  // namespace cudnnlint
