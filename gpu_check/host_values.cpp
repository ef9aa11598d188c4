#include "gpu_check/host_values.h"

#include <bit>
#include <cmath>
#include <cstring>

namespace cudnnlint::gpu {

std::uint16_t float_to_half_bits(float value) {
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
  const std::uint16_t sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000u);
  const std::uint32_t exponent = (bits >> 23) & 0xffu;
  std::uint32_t mantissa = bits & 0x7fffffu;
  if (exponent == 0xff) return static_cast<std::uint16_t>(sign | 0x7c00u | (mantissa ? 0x200u : 0u));
  const int e = static_cast<int>(exponent) - 127 + 15;
  if (e >= 31) return static_cast<std::uint16_t>(sign | 0x7c00u);  // overflow: infinity
  if (e <= 0) {                                                    // subnormal or zero
    if (e < -10) return sign;
    mantissa |= 0x800000u;
    const int shift = 14 - e;
    std::uint32_t half = mantissa >> shift;
    const std::uint32_t rest = mantissa & ((1u << shift) - 1);
    const std::uint32_t halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (half & 1u))) ++half;
    return static_cast<std::uint16_t>(sign | half);
  }
  std::uint32_t half = (static_cast<std::uint32_t>(e) << 10) | (mantissa >> 13);
  const std::uint32_t rest = mantissa & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1u))) ++half;  // may carry into the exponent: correct
  return static_cast<std::uint16_t>(sign | half);
}

std::uint16_t float_to_bfloat16_bits(float value) {
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
  if (std::isnan(value)) return static_cast<std::uint16_t>((bits >> 16) | 0x40u);
  const std::uint32_t rounding = 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<std::uint16_t>((bits + rounding) >> 16);
}

namespace {

template <class T>
void append(std::vector<std::byte>& out, T value) {
  const auto* p = reinterpret_cast<const std::byte*>(&value);
  out.insert(out.end(), p, p + sizeof(T));
}

template <class T>
T read(std::span<const std::byte> bytes, std::size_t index) {
  T value;
  std::memcpy(&value, bytes.data() + index * sizeof(T), sizeof(T));
  return value;
}

}  // namespace

std::vector<std::byte> encode(std::span<const double> values, DType element_type) {
  std::vector<std::byte> out;
  for (double v : values) {
    if (element_type == DType::Float64) append(out, v);
    else if (element_type == DType::Float16) append(out, float_to_half_bits(static_cast<float>(v)));
    else if (element_type == DType::BFloat16) append(out, float_to_bfloat16_bits(static_cast<float>(v)));
    else if (element_type == DType::Int8) append(out, static_cast<std::int8_t>(std::lround(v)));
    else if (element_type == DType::UInt8) append(out, static_cast<std::uint8_t>(std::lround(v < 0 ? 0 : v)));
    else if (element_type == DType::Int32) append(out, static_cast<std::int32_t>(std::lround(v)));
    else if (element_type == DType::Int64) append(out, static_cast<std::int64_t>(std::llround(v)));
    else append(out, static_cast<float>(v));
  }
  return out;
}

bool any_nonfinite(std::span<const std::byte> bytes, DType element_type) {
  if (element_type == DType::Float64) {
    for (std::size_t i = 0; i < bytes.size() / 8; ++i)
      if (!std::isfinite(read<double>(bytes, i))) return true;
  } else if (element_type == DType::Float16) {
    for (std::size_t i = 0; i < bytes.size() / 2; ++i)
      if ((read<std::uint16_t>(bytes, i) & 0x7c00u) == 0x7c00u) return true;
  } else if (element_type == DType::BFloat16) {
    for (std::size_t i = 0; i < bytes.size() / 2; ++i)
      if ((read<std::uint16_t>(bytes, i) & 0x7f80u) == 0x7f80u) return true;
  } else if (element_type == DType::Float32) {
    for (std::size_t i = 0; i < bytes.size() / 4; ++i)
      if (!std::isfinite(read<float>(bytes, i))) return true;
  }
  return false;
}

}  // namespace cudnnlint::gpu
