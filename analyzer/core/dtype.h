// The one element-type vocabulary of cudnnlint. Front-ends read framework spellings into it
// (torch.float16, torch::kHalf, tf.int32, jnp.bfloat16, "mixed_float16", CUDNN_DATA_HALF);
// rules, replay configurations, emitters and gpu_check speak only DType and its canonical name.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace cudnnlint {

enum class DType : std::uint8_t {
  Unknown,
  Bool,
  UInt8,
  Int8,
  Int16,
  Int32,
  Int64,
  Float16,
  BFloat16,
  Float32,
  Float64,
  Complex64,
  Complex128,
};

// The canonical name: "float16", "int64", ... ("" for Unknown). Used in JSON, SARIF and replay.
std::string_view dtype_name(DType dtype);
// Inverse of dtype_name; Unknown for anything else.
DType dtype_from_name(std::string_view name);

// Any spelling a framework or the cuDNN C API uses for an element type, with or without its
// module: "torch.float16", "torch.half", "half", "tf.int32", "np.uint8", "jnp.bfloat16",
// "kHalf", "torch::kFloat32", "at::kByte", "CUDNN_DATA_HALF", "fp16", and Keras/TF mixed-precision
// policy names ("mixed_float16" is float16 compute). Unknown when it names no element type.
DType dtype_from_spelling(std::string_view spelling);

// The libtorch scalar-type constant ("kHalf"), PyTorch's C++ type name in its error messages
// ("c10::Half"), and cuDNN's cudnnDataType_t name ("CUDNN_DATA_HALF"); "" where none exists.
std::string_view libtorch_name(DType dtype);
std::string_view torch_cpp_type_name(DType dtype);
std::string_view cudnn_data_type_name(DType dtype);

bool is_floating(DType dtype);
bool is_integer(DType dtype);  // bool included: it is not a floating type either
// `value` rounded to `dtype` as IEEE round-to-nearest-even does (float16: 10 fraction bits, smallest
// normal 2^-14, subnormals down to 2^-24; bfloat16: 7 fraction bits, float32's exponent range);
// infinity past the largest finite value. Other types: `value` unchanged.
double round_to(DType dtype, double value);
// The smallest normal and the largest finite value of a floating type; 0 for others.
double smallest_normal(DType dtype);
double largest_finite(DType dtype);

// Bytes per element; nullopt for Unknown.
std::optional<std::size_t> element_size(DType dtype);

}  // namespace cudnnlint
