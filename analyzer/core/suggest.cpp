#include "core/suggest.h"

#include <algorithm>
#include <vector>

namespace cudnnlint {

namespace {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

std::optional<std::string> closest_name(std::string_view typed, std::span<const std::string> candidates) {
  // Names are short (rule ids, flags): bound the work on hostile input all the same.
  if (typed.empty() || typed.size() > 128) return std::nullopt;
  std::optional<std::string> best;
  std::size_t best_distance = 0;
  for (const std::string& candidate : candidates) {
    if (candidate.size() > 128) continue;
    const std::size_t distance = edit_distance(typed, candidate);
    const std::size_t allowed = std::min<std::size_t>(3, std::max(typed.size(), candidate.size()) / 3);
    if (distance == 0 || distance > allowed) continue;
    if (!best || distance < best_distance) {
      best = candidate;
      best_distance = distance;
    }
  }
  return best;
}

std::string did_you_mean(std::string_view typed, std::span<const std::string> candidates) {
  const auto best = closest_name(typed, candidates);
  return best ? "; did you mean '" + *best + "'?" : "";
}

}  // namespace cudnnlint
