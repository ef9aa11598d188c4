#include "core/suppression.h"

#include <cctype>
#include <cstring>

namespace cudnnlint {

// `# cudnnlint: ignore[rule-a, rule-b]`, `# cudnnlint: ignore`, `# noqa: rule-a`.
std::optional<SuppressionComment> parse_suppression(std::string_view comment, uint32_t line) {
  auto parse_list = [](std::string_view rest) {
    std::vector<std::string> rules;
    std::string current;
    for (char c : rest) {
      if (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_') {
        current.push_back(c);
      } else if (c == ',' || c == ' ' || c == '\t') {
        if (!current.empty()) rules.push_back(std::move(current)), current.clear();
      } else {
        break;
      }
    }
    if (!current.empty()) rules.push_back(std::move(current));
    return rules;
  };
  if (const auto at = comment.find("cudnnlint:"); at != std::string_view::npos) {
    auto rest = comment.substr(at + std::strlen("cudnnlint:"));
    while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
    if (rest.substr(0, 6) != "ignore") return std::nullopt;
    rest.remove_prefix(6);
    if (rest.empty() || rest.front() != '[') return SuppressionComment{line, {}};
    const auto close = rest.find(']');
    return SuppressionComment{line, parse_list(rest.substr(1, close == std::string_view::npos ? rest.size() - 1 : close - 1))};
  }
  // Bare `# noqa` is left to the tools it belongs to: only named rules suppress ours.
  if (const auto at = comment.find("noqa:"); at != std::string_view::npos) {
    auto rules = parse_list(comment.substr(at + 5));
    if (!rules.empty()) return SuppressionComment{line, std::move(rules)};
  }
  return std::nullopt;
}

std::vector<SuppressionComment> hash_comment_suppressions(std::string_view text) {
  std::vector<SuppressionComment> out;
  std::uint32_t line = 1;
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    const std::string_view line_text = text.substr(at, end - at);
    // A '#' that starts the line or follows a blank starts a YAML comment.
    for (std::size_t hash = line_text.find('#'); hash != std::string_view::npos; hash = line_text.find('#', hash + 1)) {
      if (hash != 0 && line_text[hash - 1] != ' ' && line_text[hash - 1] != '\t') continue;
      if (auto s = parse_suppression(line_text.substr(hash), line)) out.push_back(std::move(*s));
      break;
    }
    if (end == text.size()) break;
    at = end + 1;
    ++line;
  }
  return out;
}

}  // namespace cudnnlint
