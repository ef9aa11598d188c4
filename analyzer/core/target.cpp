#include "core/target.h"

#include <charconv>
#include <cstdio>
#include <stdexcept>

namespace cudnnlint {

std::string Version::str() const {
  // snprintf rather than string concatenation: gcc 12 warns (-Wrestrict) on the latter spuriously.
  char buffer[48];
  if (patch != 0) std::snprintf(buffer, sizeof buffer, "%d.%d.%d", major, minor, patch);
  else std::snprintf(buffer, sizeof buffer, "%d.%d", major, minor);
  return buffer;
}

std::optional<Version> parse_version(std::string_view text) {
  int parts[3] = {0, 0, 0};
  int count = 0;
  const char* p = text.data();
  const char* end = text.data() + text.size();
  while (p < end && count < 3) {
    int value = 0;
    const auto [next, ec] = std::from_chars(p, end, value);
    if (ec != std::errc() || value < 0) return std::nullopt;
    parts[count++] = value;
    p = next;
    if (p == end) break;
    if (*p != '.') return std::nullopt;
    ++p;
    if (p == end) return std::nullopt;
  }
  if (count == 0 || p != end) return std::nullopt;
  return Version{parts[0], parts[1], parts[2]};
}

std::optional<int> Target::keras_major() const {
  if (const auto it = frameworks.find("keras"); it != frameworks.end() && it->second) return it->second->major;
  if (const auto it = frameworks.find("tensorflow"); it != frameworks.end() && it->second)
    return (*it->second >= Version{2, 16, 0}) ? 3 : 2;
  return std::nullopt;
}

std::string Target::describe_cudnn() const {
  if (!cudnn) return "cuDNN version unknown";
  return "cuDNN " + cudnn->str() + (cudnn_source.empty() ? "" : " (" + cudnn_source + ")");
}

std::pair<std::string, std::optional<Version>> parse_framework_spec(std::string_view spec) {
  const auto eq = spec.find('=');
  std::string name(spec.substr(0, eq));
  if (name.empty()) throw std::invalid_argument("empty framework name in '" + std::string(spec) + "'");
  if (eq == std::string_view::npos) return {name, std::nullopt};
  auto version_text = spec.substr(eq + 1);
  if (!version_text.empty() && version_text.front() == '=') version_text.remove_prefix(1);
  const auto version = parse_version(version_text);
  if (!version)
    throw std::invalid_argument("bad version '" + std::string(version_text) + "' for framework " + name +
                                " (expected e.g. " + name + "=2.1)");
  return {name, version};
}

}  // namespace cudnnlint
