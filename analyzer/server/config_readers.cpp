#include "server/config_readers.h"

#include "core/identifier.h"
#include "python/regions.h"

#include <algorithm>
#include <set>
#include <variant>

namespace cudnnlint::server {

namespace {

std::size_t skip_blanks(std::string_view text, std::size_t at) {
  while (at < text.size() && (text[at] == ' ' || text[at] == '\t')) ++at;
  return at;
}

}  // namespace

std::vector<std::string> config_keys(std::string_view text) {
  std::vector<std::string> keys;
  std::set<std::string, std::less<>> seen;
  auto add = [&](std::string_view key) {
    if (is_identifier(key) && seen.insert(std::string(key)).second) keys.emplace_back(key);
  };
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(at, end - at);
    at = end + 1;
    // A YAML block key: `key:`, `- key:`, `"key":` at the start of the line.
    std::size_t i = skip_blanks(line, 0);
    while (i + 1 < line.size() && line[i] == '-' && (line[i + 1] == ' ' || line[i + 1] == '\t')) i = skip_blanks(line, i + 1);
    const char quote = i < line.size() && (line[i] == '"' || line[i] == '\'') ? line[i] : '\0';
    if (quote != '\0') ++i;
    std::size_t n = i;
    while (n < line.size() && is_identifier_char(line[n])) ++n;
    std::size_t after = n;
    if (quote != '\0' && after < line.size() && line[after] == quote) ++after;
    after = skip_blanks(line, after);
    if (n > i && after < line.size() && line[after] == ':' &&
        (after + 1 == line.size() || line[after + 1] == ' ' || line[after + 1] == '\t' || line[after + 1] == '\r' ||
         line[after + 1] == '#'))
      add(line.substr(i, n - i));
    // JSON, and YAML's flow maps: `"key": value` anywhere on the line.
    for (std::size_t q = line.find('"'); q != std::string_view::npos; q = line.find('"', q + 1)) {
      std::size_t k = q + 1;
      while (k < line.size() && is_identifier_char(line[k])) ++k;
      if (k >= line.size() || line[k] != '"') continue;
      const std::size_t colon = skip_blanks(line, k + 1);
      if (colon < line.size() && line[colon] == ':') add(line.substr(q + 1, k - q - 1));
      q = k;  // the closing quote opens nothing
    }
  }
  return keys;
}

std::vector<std::string> ConfigReaders::readers(std::span<const std::string> keys, const std::vector<std::string>& python,
                                                const LoadLimits& limits) {
  // Each key not yet looked for: one read of every file on disk for all of them.
  std::vector<std::string> missing;
  for (const std::string& key : keys)
    if (!naming_.contains(key)) missing.push_back(key);
  if (!missing.empty()) {
    LoadLimits disk = limits;
    disk.overlay.reset();
    for (const std::string& key : missing) naming_[key];
    for (std::size_t i = 0; i < python.size(); ++i) {
      const auto loaded = load_source_file(python[i], disk);
      if (!std::holds_alternative<SourceFile>(loaded)) continue;
      const std::string_view text = std::get<SourceFile>(loaded).text();
      for (const std::string& key : missing)
        if (python::mentions_identifier(text, key)) naming_[key].push_back(i);
    }
  }
  auto buffered = [&](std::size_t i) { return limits.overlay && limits.overlay->contains(python[i]); };
  std::vector<std::size_t> count(python.size(), 0);
  for (const std::string& key : keys)
    for (const std::size_t i : naming_.at(key))
      if (!buffered(i)) ++count[i];
  if (limits.overlay)
    for (std::size_t i = 0; i < python.size(); ++i)
      if (const auto it = limits.overlay->find(python[i]); it != limits.overlay->end())
        for (const std::string& key : keys) count[i] += python::mentions_identifier(it->second, key) ? 1 : 0;
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < python.size(); ++i)
    if (count[i] > 0) order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return count[a] > count[b]; });
  std::vector<std::string> out;
  out.reserve(order.size());
  for (const std::size_t i : order) out.push_back(python[i]);
  return out;
}

}  // namespace cudnnlint::server
