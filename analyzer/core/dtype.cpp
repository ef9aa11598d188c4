#include "core/dtype.h"

#include <array>
#include <cfenv>
#include <cmath>
#include <limits>
#include <initializer_list>

namespace cudnnlint {

namespace {

struct DTypeRow {
  DType dtype;
  std::string_view name;
  std::string_view libtorch;
  std::string_view torch_cpp;
  std::string_view cudnn;
  std::size_t size;
  // Leaf spellings after any module prefix (torch., tf., np., jnp., torch::, at::, c10::).
  std::initializer_list<std::string_view> spellings;
};

// Sources: torch/_C/_VariableFunctions dtype aliases (float16 = half, float32 = float, float64 =
// double, int64 = long, int32 = int, int16 = short), c10/core/ScalarType.h (kHalf, kFloat16, ...),
// cudnn_graph.h cudnnDataType_t, tf.dtypes and numpy type names.
const std::array<DTypeRow, 12> kRows{{
    {DType::Bool, "bool", "kBool", "bool", "CUDNN_DATA_BOOLEAN", 1, {"bool", "bool_", "kBool"}},
    {DType::UInt8, "uint8", "kByte", "uint8_t", "CUDNN_DATA_UINT8", 1, {"uint8", "kByte", "kUInt8"}},
    {DType::Int8, "int8", "kChar", "int8_t", "CUDNN_DATA_INT8", 1, {"int8", "kChar", "kInt8"}},
    {DType::Int16, "int16", "kShort", "int16_t", "", 2, {"int16", "short", "kShort", "kInt16"}},
    {DType::Int32, "int32", "kInt", "int", "CUDNN_DATA_INT32", 4, {"int32", "int", "kInt", "kInt32", "intc"}},
    {DType::Int64, "int64", "kLong", "int64_t", "CUDNN_DATA_INT64", 8, {"int64", "long", "kLong", "kInt64", "int_"}},
    {DType::Float16, "float16", "kHalf", "c10::Half", "CUDNN_DATA_HALF", 2,
     {"float16", "half", "kHalf", "kFloat16", "fp16", "mixed_float16"}},
    {DType::BFloat16, "bfloat16", "kBFloat16", "c10::BFloat16", "CUDNN_DATA_BFLOAT16", 2,
     {"bfloat16", "kBFloat16", "bf16", "mixed_bfloat16"}},
    {DType::Float32, "float32", "kFloat", "float", "CUDNN_DATA_FLOAT", 4,
     {"float32", "float", "kFloat", "kFloat32", "fp32", "single"}},
    {DType::Float64, "float64", "kDouble", "double", "CUDNN_DATA_DOUBLE", 8,
     {"float64", "double", "kDouble", "kFloat64", "fp64", "float_"}},
    {DType::Complex64, "complex64", "kComplexFloat", "c10::complex<float>", "", 8,
     {"complex64", "cfloat", "kComplexFloat"}},
    {DType::Complex128, "complex128", "kComplexDouble", "c10::complex<double>", "", 16,
     {"complex128", "cdouble", "kComplexDouble", "complex_"}},
}};

const DTypeRow* row_of(DType dtype) {
  for (const auto& row : kRows)
    if (row.dtype == dtype) return &row;
  return nullptr;
}

// "torch.float16" -> "float16", "torch::kHalf" -> "kHalf", "tf.dtypes.int32" -> "int32".
std::string_view leaf_of(std::string_view spelling) {
  const auto colons = spelling.rfind("::");
  if (colons != std::string_view::npos) spelling = spelling.substr(colons + 2);
  const auto dot = spelling.rfind('.');
  if (dot != std::string_view::npos) spelling = spelling.substr(dot + 1);
  return spelling;
}

}  // namespace

std::string_view dtype_name(DType dtype) {
  const DTypeRow* row = row_of(dtype);
  return row ? row->name : std::string_view{};
}

DType dtype_from_name(std::string_view name) {
  for (const auto& row : kRows)
    if (row.name == name) return row.dtype;
  return DType::Unknown;
}

DType dtype_from_spelling(std::string_view spelling) {
  // String literals reach here with their quotes when a front-end passes the text as written.
  while (!spelling.empty() && (spelling.front() == '\'' || spelling.front() == '"')) spelling.remove_prefix(1);
  while (!spelling.empty() && (spelling.back() == '\'' || spelling.back() == '"')) spelling.remove_suffix(1);
  for (const auto& row : kRows)
    if (row.cudnn == spelling && !row.cudnn.empty()) return row.dtype;
  // A bare Python builtin `int`/`float`/`bool` names an element type only through a framework
  // (torch.tensor(..., dtype=float) is float64 in NumPy terms but float32 in torch): a leaf
  // without a module is taken only for the unambiguous spellings.
  const std::string_view leaf = leaf_of(spelling);
  const bool qualified = leaf.size() != spelling.size();
  for (const auto& row : kRows)
    for (const auto s : row.spellings)
      if (s == leaf) {
        if (!qualified && (leaf == "int" || leaf == "float" || leaf == "bool" || leaf == "long" ||
                           leaf == "short" || leaf == "double" || leaf == "single"))
          return DType::Unknown;
        return row.dtype;
      }
  return DType::Unknown;
}

std::string_view libtorch_name(DType dtype) {
  const DTypeRow* row = row_of(dtype);
  return row ? row->libtorch : std::string_view{};
}

std::string_view torch_cpp_type_name(DType dtype) {
  const DTypeRow* row = row_of(dtype);
  return row ? row->torch_cpp : std::string_view{};
}

std::string_view cudnn_data_type_name(DType dtype) {
  const DTypeRow* row = row_of(dtype);
  return row ? row->cudnn : std::string_view{};
}

bool is_floating(DType dtype) {
  return dtype == DType::Float16 || dtype == DType::BFloat16 || dtype == DType::Float32 || dtype == DType::Float64;
}

bool is_integer(DType dtype) {
  return dtype == DType::Bool || dtype == DType::UInt8 || dtype == DType::Int8 || dtype == DType::Int16 ||
         dtype == DType::Int32 || dtype == DType::Int64;
}

namespace {

struct FloatFormat {
  int fraction_bits;
  int min_exponent;  // of the smallest normal: 2^min_exponent
  double largest;
};

std::optional<FloatFormat> format_of(DType dtype) {
  switch (dtype) {
    case DType::Float16: return FloatFormat{10, -14, 65504.0};
    case DType::BFloat16: return FloatFormat{7, -126, 3.3895313892515355e38};
    case DType::Float32: return FloatFormat{23, -126, static_cast<double>(std::numeric_limits<float>::max())};
    default: return std::nullopt;
  }
}

}  // namespace

double round_to(DType dtype, double value) {
  const auto format = format_of(dtype);
  if (!format || value == 0.0 || !std::isfinite(value)) return value;
  // The spacing of representable values around `value`: 2^(e - fraction bits) for a normal with
  // exponent e, and the subnormal spacing below the smallest normal.
  const int exponent = std::max(std::ilogb(value), format->min_exponent);
  const double quantum = std::ldexp(1.0, exponent - format->fraction_bits);
  const double rounded = std::nearbyint(value / quantum) * quantum;  // FE_TONEAREST: ties to even
  if (std::fabs(rounded) > format->largest) return std::copysign(std::numeric_limits<double>::infinity(), value);
  return rounded;
}

double smallest_normal(DType dtype) {
  const auto format = format_of(dtype);
  return format ? std::ldexp(1.0, format->min_exponent) : 0.0;
}

double largest_finite(DType dtype) {
  const auto format = format_of(dtype);
  return format ? format->largest : 0.0;
}

std::optional<std::size_t> element_size(DType dtype) {
  const DTypeRow* row = row_of(dtype);
  return row ? std::optional<std::size_t>(row->size) : std::nullopt;
}

}  // namespace cudnnlint
