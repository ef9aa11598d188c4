// The loaded cuDNN and CUDA runtime, their versions and the GPU, as gpu_check and
// `cudnnlint doctor` see them. Nothing here is required: each part says why it is missing.
#pragma once

#include "gpu_check/cudnn_abi.h"
#include "gpu_check/library.h"

#include <memory>
#include <string>
#include <vector>

namespace cudnnlint::gpu {

// libcudnn with the functions gpu_check calls.
struct CudnnApi {
  SharedLibrary library;
  Candidate from;
  std::string file;     // the file the loader mapped
  std::string version;  // "9.19.0", from cudnnGetVersion()

  abi::GetVersion get_version = nullptr;
  abi::GetErrorString get_error_string = nullptr;
  abi::CreateTensorDescriptor create_tensor = nullptr;
  abi::DestroyTensorDescriptor destroy_tensor = nullptr;
  abi::SetTensor4dDescriptor set_tensor_4d = nullptr;
  abi::SetTensor4dDescriptorEx set_tensor_4d_ex = nullptr;
  abi::SetTensorNdDescriptor set_tensor_nd = nullptr;
  abi::CreateFilterDescriptor create_filter = nullptr;
  abi::DestroyFilterDescriptor destroy_filter = nullptr;
  abi::SetFilter4dDescriptor set_filter_4d = nullptr;
  abi::CreateConvolutionDescriptor create_convolution = nullptr;
  abi::DestroyConvolutionDescriptor destroy_convolution = nullptr;
  abi::SetConvolution2dDescriptor set_convolution_2d = nullptr;
  abi::GetConvolution2dForwardOutputDim convolution_output_dim = nullptr;
  abi::DeriveBNTensorDescriptor derive_bn = nullptr;
  // Execution tier only.
  abi::Create create = nullptr;
  abi::Destroy destroy = nullptr;
  abi::BatchNormalizationForwardTraining bn_forward_training = nullptr;
  abi::BatchNormalizationForwardInference bn_forward_inference = nullptr;
  abi::GetConvolutionForwardAlgorithm_v7 convolution_algorithm = nullptr;
  abi::GetConvolutionForwardWorkspaceSize convolution_workspace = nullptr;
  abi::ConvolutionForward convolution_forward = nullptr;

  // "CUDNN_STATUS_BAD_PARAM", as the library names its own status codes.
  std::string status_name(abi::cudnnStatus_t status) const;
};

// libcudart with the functions the execution tier calls.
struct CudaApi {
  SharedLibrary library;
  Candidate from;
  std::string file;
  abi::CudaGetDeviceCount get_device_count = nullptr;
  abi::CudaRuntimeGetVersion runtime_version = nullptr;
  abi::CudaDriverGetVersion driver_version = nullptr;
  abi::CudaMalloc malloc = nullptr;
  abi::CudaFree free = nullptr;
  abi::CudaMemcpy memcpy = nullptr;
  abi::CudaDeviceSynchronize synchronize = nullptr;
  abi::CudaGetLastError get_last_error = nullptr;
  abi::CudaGetErrorName error_name = nullptr;
  abi::CudaDeviceGetAttribute device_attribute = nullptr;

  std::string name_of(abi::cudaError_t error) const;  // "cudaErrorNoDevice"
};

// What this machine offers gpu_check.
struct GpuEnvironment {
  std::unique_ptr<CudnnApi> cudnn;
  std::string cudnn_missing;               // why cuDNN is not loaded; "" when it is
  std::vector<std::string> cudnn_tried;    // every path tried, with the loader's error

  std::unique_ptr<CudaApi> cuda;
  std::string cuda_runtime_version;        // "13.0"
  std::string cuda_driver_version;         // "13.0"; "" without a driver
  int device_count = 0;
  std::string device;                      // "NVIDIA H100 80GB HBM3"
  std::string compute_capability;          // "9.0"
  std::string execution_unavailable;       // why the execution tier cannot run; "" when it can

  bool descriptor_tier() const { return cudnn != nullptr; }
  bool execution_tier() const { return cudnn != nullptr && execution_unavailable.empty(); }
};

// Loads what it can; libcudnn.so.9 loads its sub-libraries itself (RUNPATH $ORIGIN).
// `cudnn_library` forces one file (--cudnn-library); `probe_gpu` false
// skips the CUDA runtime entirely (descriptor tier only).
GpuEnvironment probe_environment(const std::string& cudnn_library, bool probe_gpu);

// 91900 -> "9.19.0" (cuDNN 9 encodes major*10000 + minor*100 + patch; 8.x used *1000 + *100).
std::string cudnn_version_text(std::size_t version);
// 13000 -> "13.0" (CUDA encodes major*1000 + minor*10).
std::string cuda_version_text(int version);

}  // namespace cudnnlint::gpu
