// libtorch element-type names as the C++ front-end records them (torch::kHalf -> "kHalf").
#pragma once

#include <string_view>

namespace cudnnlint {

inline bool is_floating_dtype(std::string_view dtype) {
  return dtype == "kHalf" || dtype == "kFloat16" || dtype == "kBFloat16" || dtype == "kFloat" ||
         dtype == "kFloat32" || dtype == "kDouble" || dtype == "kFloat64";
}

// One name per element type: kFloat32 -> kFloat, kFloat16 -> kHalf, kFloat64 -> kDouble.
inline std::string_view canonical_dtype(std::string_view dtype) {
  if (dtype == "kFloat32") return "kFloat";
  if (dtype == "kFloat16") return "kHalf";
  if (dtype == "kFloat64") return "kDouble";
  return dtype;
}

}  // namespace cudnnlint
