// gpu_check/cudnn_abi.h against the real cuDNN headers: enumerator values, the perf struct's
// layout and every function signature gpu_check calls. Compiled only where cudnn.h exists.
#include "gpu_check/cudnn_abi.h"

#include <gtest/gtest.h>

#ifdef CUDNNLINT_HAVE_CUDNN_HEADERS
#include <cudnn.h>

#include <cstddef>
#include <type_traits>

namespace ours = cudnnlint::gpu::abi;

static_assert(ours::CUDNN_STATUS_SUCCESS == CUDNN_STATUS_SUCCESS);
static_assert(ours::CUDNN_STATUS_BAD_PARAM == CUDNN_STATUS_BAD_PARAM);
static_assert(ours::CUDNN_DATA_FLOAT == CUDNN_DATA_FLOAT && ours::CUDNN_DATA_DOUBLE == CUDNN_DATA_DOUBLE);
static_assert(ours::CUDNN_DATA_HALF == CUDNN_DATA_HALF && ours::CUDNN_DATA_INT8 == CUDNN_DATA_INT8);
static_assert(ours::CUDNN_DATA_INT32 == CUDNN_DATA_INT32 && ours::CUDNN_DATA_UINT8 == CUDNN_DATA_UINT8);
static_assert(ours::CUDNN_DATA_BFLOAT16 == CUDNN_DATA_BFLOAT16 && ours::CUDNN_DATA_INT64 == CUDNN_DATA_INT64);
static_assert(ours::CUDNN_DATA_BOOLEAN == CUDNN_DATA_BOOLEAN);
static_assert(ours::CUDNN_TENSOR_NCHW == CUDNN_TENSOR_NCHW && ours::CUDNN_TENSOR_NHWC == CUDNN_TENSOR_NHWC);
static_assert(ours::CUDNN_TENSOR_NCHW_VECT_C == CUDNN_TENSOR_NCHW_VECT_C);
static_assert(ours::CUDNN_CROSS_CORRELATION == CUDNN_CROSS_CORRELATION);
static_assert(ours::CUDNN_BATCHNORM_SPATIAL == CUDNN_BATCHNORM_SPATIAL);
static_assert(ours::CUDNN_BATCHNORM_PER_ACTIVATION == CUDNN_BATCHNORM_PER_ACTIVATION);
static_assert(sizeof(cudnnStatus_t) == sizeof(ours::cudnnStatus_t) && sizeof(cudnnDataType_t) == sizeof(int));

static_assert(sizeof(ours::cudnnConvolutionFwdAlgoPerf_t) == sizeof(cudnnConvolutionFwdAlgoPerf_t));
static_assert(offsetof(ours::cudnnConvolutionFwdAlgoPerf_t, status) == offsetof(cudnnConvolutionFwdAlgoPerf_t, status));
static_assert(offsetof(ours::cudnnConvolutionFwdAlgoPerf_t, memory) == offsetof(cudnnConvolutionFwdAlgoPerf_t, memory));
static_assert(offsetof(ours::cudnnConvolutionFwdAlgoPerf_t, mathType) ==
              offsetof(cudnnConvolutionFwdAlgoPerf_t, mathType));

// Same parameter list once the opaque handle types are mapped to ours: compare arity and
// each parameter's size and kind (pointer, integer, floating).
template <class T>
struct Signature;
template <class R, class... A>
struct Signature<R (*)(A...)> {
  static constexpr std::size_t arity = sizeof...(A);
  template <class F>
  static constexpr bool same_shape() {
    return Signature<F>::template matches<R, A...>();
  }
  template <class R2, class... A2>
  static constexpr bool matches() {
    if constexpr (sizeof...(A) != sizeof...(A2)) {
      return false;
    } else {
      return sizeof(R) == sizeof(R2) && ((sizeof(A) == sizeof(A2) && std::is_pointer_v<A> == std::is_pointer_v<A2> &&
                                          std::is_floating_point_v<A> == std::is_floating_point_v<A2>) && ...);
    }
  }
};
#define CUDNNLINT_SAME_SIGNATURE(mine, real) \
  static_assert(Signature<ours::mine>::template same_shape<decltype(&real)>(), #real " differs from gpu_check/cudnn_abi.h")

CUDNNLINT_SAME_SIGNATURE(GetVersion, cudnnGetVersion);
CUDNNLINT_SAME_SIGNATURE(GetErrorString, cudnnGetErrorString);
CUDNNLINT_SAME_SIGNATURE(CreateTensorDescriptor, cudnnCreateTensorDescriptor);
CUDNNLINT_SAME_SIGNATURE(DestroyTensorDescriptor, cudnnDestroyTensorDescriptor);
CUDNNLINT_SAME_SIGNATURE(SetTensor4dDescriptor, cudnnSetTensor4dDescriptor);
CUDNNLINT_SAME_SIGNATURE(SetTensor4dDescriptorEx, cudnnSetTensor4dDescriptorEx);
CUDNNLINT_SAME_SIGNATURE(SetTensorNdDescriptor, cudnnSetTensorNdDescriptor);
CUDNNLINT_SAME_SIGNATURE(CreateFilterDescriptor, cudnnCreateFilterDescriptor);
CUDNNLINT_SAME_SIGNATURE(DestroyFilterDescriptor, cudnnDestroyFilterDescriptor);
CUDNNLINT_SAME_SIGNATURE(SetFilter4dDescriptor, cudnnSetFilter4dDescriptor);
CUDNNLINT_SAME_SIGNATURE(CreateConvolutionDescriptor, cudnnCreateConvolutionDescriptor);
CUDNNLINT_SAME_SIGNATURE(DestroyConvolutionDescriptor, cudnnDestroyConvolutionDescriptor);
CUDNNLINT_SAME_SIGNATURE(SetConvolution2dDescriptor, cudnnSetConvolution2dDescriptor);
CUDNNLINT_SAME_SIGNATURE(GetConvolution2dForwardOutputDim, cudnnGetConvolution2dForwardOutputDim);
CUDNNLINT_SAME_SIGNATURE(DeriveBNTensorDescriptor, cudnnDeriveBNTensorDescriptor);
CUDNNLINT_SAME_SIGNATURE(Create, cudnnCreate);
CUDNNLINT_SAME_SIGNATURE(Destroy, cudnnDestroy);
CUDNNLINT_SAME_SIGNATURE(BatchNormalizationForwardTraining, cudnnBatchNormalizationForwardTraining);
CUDNNLINT_SAME_SIGNATURE(BatchNormalizationForwardInference, cudnnBatchNormalizationForwardInference);
CUDNNLINT_SAME_SIGNATURE(GetConvolutionForwardAlgorithm_v7, cudnnGetConvolutionForwardAlgorithm_v7);
CUDNNLINT_SAME_SIGNATURE(GetConvolutionForwardWorkspaceSize, cudnnGetConvolutionForwardWorkspaceSize);
CUDNNLINT_SAME_SIGNATURE(ConvolutionForward, cudnnConvolutionForward);

TEST(CudnnAbi, DeclarationsMatchTheInstalledHeaders) {
  EXPECT_GE(CUDNN_MAJOR, 8) << "the static_asserts above compared against cuDNN " << CUDNN_MAJOR;
}
#else
TEST(CudnnAbi, DeclarationsMatchTheInstalledHeaders) {
  GTEST_SKIP() << "cudnn.h not found at build time: the ABI declarations were not compared with real headers";
}
#endif
