#include "gpu_check/runtime.h"

#include <filesystem>

namespace cudnnlint::gpu {

std::string CudnnApi::status_name(abi::cudnnStatus_t status) const {
  const char* name = get_error_string != nullptr ? get_error_string(status) : nullptr;
  return name != nullptr ? name : "cuDNN status " + std::to_string(status);
}

std::string CudaApi::name_of(abi::cudaError_t error) const {
  const char* name = error_name != nullptr ? error_name(error) : nullptr;
  return name != nullptr ? name : "CUDA error " + std::to_string(error);
}

std::string cudnn_version_text(std::size_t version) {
  if (version >= 90000)
    return std::to_string(version / 10000) + "." + std::to_string(version % 10000 / 100) + "." +
           std::to_string(version % 100);
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 100) + "." +
         std::to_string(version % 100);
}

std::string cuda_version_text(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

namespace {

// Resolves every function of `api`; returns the first missing name, "" when all are there.
std::string resolve(CudnnApi& api) {
  const SharedLibrary& lib = api.library;
  std::string missing;
  auto need = [&](auto& slot, const char* name) {
    slot = lib.function<std::remove_reference_t<decltype(slot)>>(name);
    if (slot == nullptr && missing.empty()) missing = name;
  };
  need(api.get_version, "cudnnGetVersion");
  need(api.get_error_string, "cudnnGetErrorString");
  need(api.create_tensor, "cudnnCreateTensorDescriptor");
  need(api.destroy_tensor, "cudnnDestroyTensorDescriptor");
  need(api.set_tensor_4d, "cudnnSetTensor4dDescriptor");
  need(api.set_tensor_4d_ex, "cudnnSetTensor4dDescriptorEx");
  need(api.set_tensor_nd, "cudnnSetTensorNdDescriptor");
  need(api.create_filter, "cudnnCreateFilterDescriptor");
  need(api.destroy_filter, "cudnnDestroyFilterDescriptor");
  need(api.set_filter_4d, "cudnnSetFilter4dDescriptor");
  need(api.create_convolution, "cudnnCreateConvolutionDescriptor");
  need(api.destroy_convolution, "cudnnDestroyConvolutionDescriptor");
  need(api.set_convolution_2d, "cudnnSetConvolution2dDescriptor");
  need(api.convolution_output_dim, "cudnnGetConvolution2dForwardOutputDim");
  need(api.derive_bn, "cudnnDeriveBNTensorDescriptor");
  need(api.create, "cudnnCreate");
  need(api.destroy, "cudnnDestroy");
  need(api.bn_forward_training, "cudnnBatchNormalizationForwardTraining");
  need(api.bn_forward_inference, "cudnnBatchNormalizationForwardInference");
  need(api.convolution_algorithm, "cudnnGetConvolutionForwardAlgorithm_v7");
  need(api.convolution_workspace, "cudnnGetConvolutionForwardWorkspaceSize");
  need(api.convolution_forward, "cudnnConvolutionForward");
  return missing;
}

std::string resolve(CudaApi& api) {
  const SharedLibrary& lib = api.library;
  std::string missing;
  auto need = [&](auto& slot, const char* name) {
    slot = lib.function<std::remove_reference_t<decltype(slot)>>(name);
    if (slot == nullptr && missing.empty()) missing = name;
  };
  need(api.get_device_count, "cudaGetDeviceCount");
  need(api.runtime_version, "cudaRuntimeGetVersion");
  need(api.driver_version, "cudaDriverGetVersion");
  need(api.malloc, "cudaMalloc");
  need(api.free, "cudaFree");
  need(api.memcpy, "cudaMemcpy");
  need(api.synchronize, "cudaDeviceSynchronize");
  need(api.get_last_error, "cudaGetLastError");
  need(api.error_name, "cudaGetErrorName");
  need(api.device_attribute, "cudaDeviceGetAttribute");
  return missing;
}

// The GPU's name through the driver API (the runtime's name needs cudaDeviceProp, whose layout
// changes between CUDA releases).
std::string device_name() {
  std::string error;
  auto driver = SharedLibrary::open("libcuda.so.1", error);
  if (!driver) return "";
  auto init = driver->function<abi::CuInit>("cuInit");
  auto get = driver->function<abi::CuDeviceGet>("cuDeviceGet");
  auto name = driver->function<abi::CuDeviceGetName>("cuDeviceGetName");
  if (init == nullptr || get == nullptr || name == nullptr || init(0) != 0) return "";
  abi::CUdevice device = 0;
  if (get(&device, 0) != 0) return "";
  char buffer[256] = {};
  if (name(buffer, sizeof buffer - 1, device) != 0) return "";
  return buffer;
}

}  // namespace

GpuEnvironment probe_environment(const std::string& cudnn_library, bool probe_gpu) {
  GpuEnvironment environment;
  // The first candidate that loads, has every function and is cuDNN 8 or 9; the others are
  // recorded with the reason they were passed over.
  for (const Candidate& candidate : cudnn_candidates(cudnn_library)) {
    std::string error;
    auto library = SharedLibrary::open(candidate.path, error);
    if (!library) {
      environment.cudnn_tried.push_back(candidate.path + " (" + candidate.origin + "): " + error);
      continue;
    }
    auto api = std::make_unique<CudnnApi>(CudnnApi{std::move(*library), candidate, "", ""});
    api->file = api->library.resolved_path();
    if (const std::string missing = resolve(*api); !missing.empty()) {
      environment.cudnn_tried.push_back(api->file + " (" + candidate.origin + "): lacks " + missing);
      continue;
    }
    api->version = cudnn_version_text(api->get_version());
    if (api->version.rfind("9.", 0) != 0 && api->version.rfind("8.", 0) != 0) {
      environment.cudnn_tried.push_back(api->file + " (" + candidate.origin + "): cuDNN " + api->version +
                                        ", gpu_check needs 8 or 9");
      continue;
    }
    environment.cudnn = std::move(api);
    break;
  }
  if (!environment.cudnn)
    environment.cudnn_missing = cudnn_library.empty() ? "no usable libcudnn found (set CUDNN_PATH or --cudnn-library)"
                                                      : "cannot use " + cudnn_library;

  if (!probe_gpu) {
    environment.execution_unavailable = "not requested";
    return environment;
  }
  const std::string cudnn_dir =
      environment.cudnn ? std::filesystem::path(environment.cudnn->file).parent_path().string() : "";
  int cuda_major = 0;
  if (environment.cudnn)
    if (auto built_with = environment.cudnn->library.function<abi::GetVersion>("cudnnGetCudartVersion"))
      cuda_major = static_cast<int>(built_with() / 1000);
  std::unique_ptr<CudaApi> cuda;
  std::string cuda_problem = "no CUDA runtime (libcudart.so.13/.12) found";
  for (const Candidate& candidate : cudart_candidates(cudnn_dir, cuda_major)) {
    std::string error;
    auto library = SharedLibrary::open(candidate.path, error);
    if (!library) continue;
    auto api = std::make_unique<CudaApi>(CudaApi{std::move(*library), candidate, ""});
    api->file = api->library.resolved_path();
    if (const std::string missing = resolve(*api); !missing.empty()) {
      cuda_problem = api->file + " lacks " + missing;
      continue;
    }
    cuda = std::move(api);
    break;
  }
  if (!cuda) {
    environment.execution_unavailable = cuda_problem;
  } else {
    auto api = std::move(cuda);
    {
      int runtime = 0, driver = 0;
      if (api->runtime_version(&runtime) == abi::cudaSuccess) environment.cuda_runtime_version = cuda_version_text(runtime);
      if (api->driver_version(&driver) == abi::cudaSuccess && driver > 0)
        environment.cuda_driver_version = cuda_version_text(driver);
      int count = 0;
      const abi::cudaError_t error = api->get_device_count(&count);
      if (error != abi::cudaSuccess) {
        environment.execution_unavailable =
            "no usable GPU: cudaGetDeviceCount returned " + api->name_of(error) +
            (environment.cuda_driver_version.empty() ? " (no NVIDIA driver loaded)" : "");
      } else if (count == 0) {
        environment.execution_unavailable = "no GPU: cudaGetDeviceCount found 0 devices";
      } else {
        environment.device_count = count;
        int major = 0, minor = 0;
        if (api->device_attribute(&major, abi::cudaDevAttrComputeCapabilityMajor, 0) == abi::cudaSuccess &&
            api->device_attribute(&minor, abi::cudaDevAttrComputeCapabilityMinor, 0) == abi::cudaSuccess)
          environment.compute_capability = std::to_string(major) + "." + std::to_string(minor);
        else
          environment.compute_capability = "unknown";
        environment.device = device_name();
        if (environment.device.empty()) environment.device = "GPU 0 (compute capability " + environment.compute_capability + ")";
      }
    }
    environment.cuda = std::move(api);
  }
  if (environment.execution_unavailable.empty() && !environment.cudnn)
    environment.execution_unavailable = "cuDNN is not loaded";
  return environment;
}

}  // namespace cudnnlint::gpu
