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

// "2" when every axis has the same value, else "2×3".
inline std::string uniform_text(std::span<const std::int64_t> values) {
  for (const auto v : values)
    if (v != values.front()) return sizes_text(values);
  return values.empty() ? std::string() : sizes_text(values.first(1));
}

// " pad 1 dilation 2" for a step's label: only what differs from the defaults (0 and 1).
inline std::string padding_dilation_text(std::span<const std::int64_t> padding, std::span<const std::int64_t> dilation) {
  std::string out;
  for (const auto p : padding)
    if (p != 0) {
      out += " pad " + uniform_text(padding);
      break;
    }
  for (const auto d : dilation)
    if (d != 1) {
      out += " dilation " + uniform_text(dilation);
      break;
    }
  return out;
}

}  // namespace cudnnlint
