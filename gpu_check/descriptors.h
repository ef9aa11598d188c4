// cuDNN descriptors built from a replay configuration, owned (destroyed on scope exit), for
// both tiers.
#pragma once

#include "core/dtype.h"
#include "core/finding.h"
#include "gpu_check/runtime.h"

#include <optional>
#include <string>
#include <utility>

namespace cudnnlint::gpu {

// DType::Float16 -> CUDNN_DATA_HALF; nullopt for a type gpu_check cannot express.
std::optional<abi::cudnnDataType_t> cudnn_data_type(DType element_type);
std::optional<abi::cudnnTensorFormat_t> cudnn_format(const std::string& layout);

template <class Handle>
class Descriptor {
 public:
  using Destroy = abi::cudnnStatus_t (*)(Handle);
  Descriptor(abi::cudnnStatus_t (*create)(Handle*), Destroy destroy) : destroy_(destroy) {
    create_status_ = create(&handle_);
    if (create_status_ != abi::CUDNN_STATUS_SUCCESS) handle_ = nullptr;  // never destroy what was not made
  }
  ~Descriptor() {
    if (handle_ != nullptr) destroy_(handle_);
  }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  Handle get() const { return handle_; }
  abi::cudnnStatus_t create_status() const { return create_status_; }

 private:
  Handle handle_ = nullptr;
  Destroy destroy_;
  abi::cudnnStatus_t create_status_ = abi::CUDNN_STATUS_SUCCESS;
};

using TensorDescriptor = Descriptor<abi::cudnnTensorDescriptor_t>;
using FilterDescriptor = Descriptor<abi::cudnnFilterDescriptor_t>;
using ConvolutionDescriptor = Descriptor<abi::cudnnConvolutionDescriptor_t>;

inline TensorDescriptor make_tensor(const CudnnApi& api) { return {api.create_tensor, api.destroy_tensor}; }
inline FilterDescriptor make_filter(const CudnnApi& api) { return {api.create_filter, api.destroy_filter}; }
inline ConvolutionDescriptor make_convolution(const CudnnApi& api) {
  return {api.create_convolution, api.destroy_convolution};
}

// One cuDNN call's outcome with the call written out, e.g.
// {2000, "cudnnSetTensor4dDescriptor(NCHW, float32, n=0, c=3, h=32, w=32)"}.
struct CallResult {
  abi::cudnnStatus_t status = abi::CUDNN_STATUS_SUCCESS;
  std::string call;
  bool setup_failed = false;  // the descriptor could not even be created: nothing was tested
  bool ok() const { return status == abi::CUDNN_STATUS_SUCCESS; }
};

// Sets `desc` the way the replay's API does (4d, 4dEx, Nd); `dims` overrides the input shape.
CallResult set_tensor(const CudnnApi& api, TensorDescriptor& desc, const ReplayConfig& replay,
                      const std::vector<std::int64_t>& dims, DType element_type);
CallResult set_filter(const CudnnApi& api, FilterDescriptor& desc, const ReplayConfig& replay);
CallResult set_convolution(const CudnnApi& api, ConvolutionDescriptor& desc, const ReplayConfig& replay);

}  // namespace cudnnlint::gpu
