#include "core/tensor_layout.h"

namespace cudnnlint {

std::string_view layout_from_cudnn(std::string_view format) {
  if (format == "CUDNN_TENSOR_NCHW") return "NCHW";
  if (format == "CUDNN_TENSOR_NHWC") return "NHWC";
  if (format == "CUDNN_TENSOR_NCHW_VECT_C") return "NCHW_VECT_C";
  return "";
}

}  // namespace cudnnlint
