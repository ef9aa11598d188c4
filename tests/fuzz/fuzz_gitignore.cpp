// libFuzzer harness: the gitignore matcher. The input's first half is a .gitignore, its lines
// after the first blank-line pair are paths to match, as files and as directories; wildmatch() is
// also run on every pair of neighbouring lines.
#include "discovery/gitignore.h"

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace cudnnlint;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto split = text.find("\n\n");
  const std::string_view rules_text = text.substr(0, split);
  const std::string_view paths_text = split == std::string_view::npos ? text : text.substr(split + 2);
  IgnoreRules rules;
  rules.add_text(rules_text);
  std::vector<std::string_view> lines;
  for (std::size_t start = 0; start <= paths_text.size();) {
    const auto end = std::min(paths_text.find('\n', start), paths_text.size());
    lines.push_back(paths_text.substr(start, end - start));
    start = end + 1;
  }
  for (std::size_t i = 0; i < lines.size(); ++i) {
    (void)rules.match(lines[i], false);
    (void)rules.match(lines[i], true);
    if (i + 1 < lines.size()) (void)wildmatch(lines[i], lines[i + 1]);
  }
  return 0;
}
