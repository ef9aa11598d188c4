// Host-side values in the element types cuDNN takes (float16/bfloat16 bit patterns included),
// and the NaN/Inf test on what comes back.
#pragma once

#include "core/dtype.h"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace cudnnlint::gpu {

std::uint16_t float_to_half_bits(float value);      // IEEE binary16, round to nearest even
std::uint16_t float_to_bfloat16_bits(float value);  // top half of binary32, round to nearest even

// `values` encoded as `element_type` (float32 for Unknown).
std::vector<std::byte> encode(std::span<const double> values, DType element_type);
// Whether any element of `bytes` (of `element_type`) is NaN or infinite; integers never are.
bool any_nonfinite(std::span<const std::byte> bytes, DType element_type);

}  // namespace cudnnlint::gpu
