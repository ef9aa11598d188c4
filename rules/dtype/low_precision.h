// What float16 and bfloat16 make of a small constant, for the dtype rules' messages: the value
// after IEEE round-to-nearest-even, and which of "rounds to 0", "subnormal" and "normal" applies.
#pragma once

#include "core/dtype.h"

#include <string>

namespace cudnnlint::dtype_rules {

// "1e-08", "1.0133e-06": short, round-trip enough for a message.
std::string number(double value);

struct Rounded {
  double value = 0;       // after rounding to the type
  bool zero = false;      // a positive constant became 0
  bool subnormal = false; // below the type's smallest normal, not 0
};
Rounded rounded(DType dtype, double value);

// "1e-08 → 0.0 in float16", "1e-06 → 1.0133e-06 in float16 (a subnormal)".
std::string rounding_text(DType dtype, double value);

}  // namespace cudnnlint::dtype_rules
