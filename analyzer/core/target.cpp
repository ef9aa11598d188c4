#include "core/target.h"

#include <cctype>
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

bool VersionRange::contains(const Version& v) const {
  if (lower && (lower_inclusive ? v < *lower : v <= *lower)) return false;
  if (upper && (upper_inclusive ? v > *upper : v >= *upper)) return false;
  return true;
}

std::optional<Version> parse_release(std::string_view text) {
  std::string_view release = text.substr(0, text.find('+'));
  const auto suffix = release.find_first_not_of("0123456789.");
  if (suffix != std::string_view::npos && suffix > 0 && std::isalpha(static_cast<unsigned char>(release[suffix])))
    release = release.substr(0, suffix);
  while (!release.empty() && release.back() == '.') release.remove_suffix(1);  // "2.1." of "2.1.post1"
  // "8.9.2.26" (nvidia-cudnn-cu12, conda's cudnn): the first three parts are the release.
  std::size_t dots = 0, cut = release.size();
  for (std::size_t i = 0; i < release.size(); ++i)
    if (release[i] == '.' && ++dots == 3) cut = i;
  return parse_version(release.substr(0, cut));
}

std::optional<int> Target::keras_major() const {
  if (const auto it = frameworks.find("keras"); it != frameworks.end() && it->second) return it->second->major;
  if (const auto it = frameworks.find("tensorflow"); it != frameworks.end() && it->second)
    return (*it->second >= Version{2, 16, 0}) ? 3 : 2;
  return std::nullopt;
}

std::string Target::source_note(const std::string& framework) const {
  const auto it = framework_sources.find(framework);
  return it == framework_sources.end() || it->second.empty() ? "" : " (" + it->second + ")";
}

std::string Target::describe_cudnn() const {
  if (!cudnn) return "cuDNN version unknown";
  return "cuDNN " + cudnn->str() + (cudnn_source.empty() ? "" : " (" + cudnn_source + ")");
}

std::pair<std::string, std::optional<Version>> parse_framework_spec(std::string_view spec) {
  const auto eq = spec.find('=');
  std::string name(spec.substr(0, eq));
  if (name.empty()) throw std::invalid_argument("empty framework name in '" + std::string(spec) + "'");
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  // The names users also write: the PyPI/import spellings of the same frameworks.
  if (name == "pytorch") name = "torch";
  else if (name == "tf") name = "tensorflow";
  else if (name == "tf_keras" || name == "tf-keras") name = "keras";
  if (eq == std::string_view::npos) return {name, std::nullopt};
  auto version_text = spec.substr(eq + 1);
  if (!version_text.empty() && version_text.front() == '=') version_text.remove_prefix(1);
  // "2.12.0+cu128" (torch.__version__) and "2.12.0rc1": the release they belong to.
  const auto version = parse_release(version_text);
  if (!version)
    throw std::invalid_argument("bad version '" + std::string(version_text) + "' for framework " + name +
                                " (expected e.g. " + name + "=2.1)");
  return {name, version};
}

}  // namespace cudnnlint
