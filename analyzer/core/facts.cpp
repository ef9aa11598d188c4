#include "core/facts.h"

#include <algorithm>
#include <cctype>

namespace cudnnlint {

NumberKind number_kind_of_text(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  if (!text.empty() && (text.front() == '-' || text.front() == '+')) text.remove_prefix(1);
  if (text.empty()) return NumberKind::Unknown;
  const auto digit = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; };
  if (std::all_of(text.begin(), text.end(), [&](char c) { return digit(c) || c == '_'; }) && digit(text.front()))
    return NumberKind::Integer;
  std::string lowered(text);
  std::transform(lowered.begin(), lowered.end(), lowered.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (lowered == ".inf" || lowered == "inf" || lowered == "infinity" || lowered == ".nan" || lowered == "nan")
    return NumberKind::Float;
  // A number with a point or an exponent: digits, at most one point, then an optional exponent.
  const bool numeric = std::all_of(lowered.begin(), lowered.end(), [&](char c) {
    return digit(c) || c == '.' || c == 'e' || c == '-' || c == '+' || c == '_';
  });
  if (numeric && std::any_of(lowered.begin(), lowered.end(), digit) &&
      (lowered.find('.') != std::string::npos || lowered.find('e') != std::string::npos))
    return NumberKind::Float;
  return NumberKind::Unknown;
}

}  // namespace cudnnlint
