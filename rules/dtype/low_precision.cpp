#include "rules/dtype/low_precision.h"

#include <cmath>
#include <cstdio>

namespace cudnnlint::dtype_rules {

std::string number(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.5g", value);
  return buffer;
}

Rounded rounded(DType dtype, double value) {
  Rounded r;
  r.value = round_to(dtype, value);
  r.zero = value != 0 && r.value == 0;
  r.subnormal = !r.zero && std::fabs(r.value) < smallest_normal(dtype);
  return r;
}

std::string rounding_text(DType dtype, double value) {
  const Rounded r = rounded(dtype, value);
  std::string text = number(value) + " → " + (r.zero ? std::string("0.0") : number(r.value)) + " in " +
                     std::string(dtype_name(dtype));
  if (r.subnormal) text += " (a subnormal: below " + number(smallest_normal(dtype)) + ")";
  return text;
}

}  // namespace cudnnlint::dtype_rules
