// cuDNN's tensor formats in the layout vocabulary of facts and replay configurations: the C++
// collector reads cudnnSetTensor4dDescriptor's format, the replay builder hands it to gpu_check.
#pragma once

#include <string_view>

namespace cudnnlint {

// "CUDNN_TENSOR_NCHW" -> "NCHW" (likewise NHWC and NCHW_VECT_C); "" for any other spelling (not
// a constant, or not a format).
std::string_view layout_from_cudnn(std::string_view format);

}  // namespace cudnnlint
