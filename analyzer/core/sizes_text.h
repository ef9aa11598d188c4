// Spatial sizes as messages spell them: "4×4", "−1×−1" (a true minus sign), for the shape facts'
// step labels and the shape rule's size chains.
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace cudnnlint {

inline std::string sizes_text(std::span<const std::int64_t> sizes) {
  std::string out;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    if (i > 0) out += "×";
    out += sizes[i] < 0 ? "−" + std::to_string(-sizes[i]) : std::to_string(sizes[i]);
  }
  return out;
}

}  // namespace cudnnlint
