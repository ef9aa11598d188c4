// The one reading of cuDNN's tensor formats (core/tensor_layout.h) that the C++ collector and the
// replay builder share.
#include "core/tensor_layout.h"

#include <gtest/gtest.h>

namespace cudnnlint {
namespace {

TEST(TensorLayout, CudnnFormatsBecomeLayoutNames) {
  EXPECT_EQ(layout_from_cudnn("CUDNN_TENSOR_NCHW"), "NCHW");
  EXPECT_EQ(layout_from_cudnn("CUDNN_TENSOR_NHWC"), "NHWC");
  EXPECT_EQ(layout_from_cudnn("CUDNN_TENSOR_NCHW_VECT_C"), "NCHW_VECT_C");
}

TEST(TensorLayout, AnythingElseIsUnknown) {
  EXPECT_EQ(layout_from_cudnn(""), "");
  EXPECT_EQ(layout_from_cudnn("format"), "");          // a variable: not a constant
  EXPECT_EQ(layout_from_cudnn("CUDNN_DATA_HALF"), "");  // not a format
}

}  // namespace
}  // namespace cudnnlint
