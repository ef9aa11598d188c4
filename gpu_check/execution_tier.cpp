#include "gpu_check/descriptors.h"
#include "gpu_check/host_values.h"
#include "gpu_check/tiers.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <vector>

namespace cudnnlint::gpu {

namespace {

// Device memory, freed on scope exit.
class DeviceBuffer {
 public:
  DeviceBuffer(const CudaApi& cuda, std::size_t bytes) : cuda_(cuda) {
    error_ = cuda.malloc(&ptr_, std::max<std::size_t>(bytes, 16));
    if (error_ != abi::cudaSuccess) ptr_ = nullptr;
  }
  ~DeviceBuffer() {
    if (ptr_ != nullptr) cuda_.free(ptr_);
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  void* get() const { return ptr_; }
  abi::cudaError_t error() const { return error_; }
  bool upload(const std::vector<std::byte>& bytes) const {
    return cuda_.memcpy(ptr_, bytes.data(), bytes.size(), abi::cudaMemcpyHostToDevice) == abi::cudaSuccess;
  }
  std::optional<std::vector<std::byte>> download(std::size_t bytes) const {
    std::vector<std::byte> out(bytes);
    if (cuda_.memcpy(out.data(), ptr_, bytes, abi::cudaMemcpyDeviceToHost) != abi::cudaSuccess) return std::nullopt;
    return out;
  }

 private:
  const CudaApi& cuda_;
  void* ptr_ = nullptr;
  abi::cudaError_t error_ = abi::cudaSuccess;
};

std::int64_t product(const std::vector<std::int64_t>& dims) {
  std::int64_t p = 1;
  for (auto d : dims) p *= d;
  return p;
}

// Scaling factors are double for double data and float otherwise (cuDNN's rule).
struct Scalars {
  float f_one = 1.0f, f_zero = 0.0f;
  double d_one = 1.0, d_zero = 0.0;
  bool as_double = false;
  const void* one() const { return as_double ? static_cast<const void*>(&d_one) : &f_one; }
  const void* zero() const { return as_double ? static_cast<const void*>(&d_zero) : &f_zero; }
};

// The replay's tensor values: channel 0 constant (zero variance), the others varied.
std::vector<double> batchnorm_input(const std::vector<std::int64_t>& dims) {
  std::vector<double> values(static_cast<std::size_t>(product(dims)));
  const std::int64_t c = dims[1], hw = dims.size() > 2 ? product({dims.begin() + 2, dims.end()}) : 1;
  for (std::size_t i = 0; i < values.size(); ++i) {
    const std::int64_t channel = (static_cast<std::int64_t>(i) / hw) % c;
    values[i] = channel == 0 ? 0.5 : static_cast<double>(static_cast<std::int64_t>(i * 7 % 5)) * 0.5 - 1.0;
  }
  return values;
}

// Tensors above this many elements are not replayed (host staging would need gigabytes).
constexpr std::int64_t kMaxElements = std::int64_t{1} << 26;

TierResult not_tested(std::string status, std::string detail) {
  TierResult result;
  result.status = std::move(status);
  result.failed = true;
  result.decisive = false;
  result.detail = std::move(detail);
  return result;
}

}  // namespace

ExecutionTier::ExecutionTier(const CudnnApi& cudnn, const CudaApi& cuda) : cudnn_(cudnn), cuda_(cuda) {
  const abi::cudnnStatus_t status = cudnn_.create(&handle_);
  if (status != abi::CUDNN_STATUS_SUCCESS) {
    handle_ = nullptr;
    broken_ = "cudnnCreate returned " + cudnn_.status_name(status);
  }
}

ExecutionTier::~ExecutionTier() {
  if (handle_ != nullptr) cudnn_.destroy(handle_);
}

void ExecutionTier::check_context(const std::string& after) {
  const abi::cudaError_t error = cuda_.synchronize();
  cuda_.get_last_error();  // clears an error that is not sticky (a failed cudaMalloc, say)
  if (error == abi::cudaSuccess) return;
  const abi::cudaError_t again = cuda_.synchronize();
  if (again != abi::cudaSuccess)
    broken_ = "sticky CUDA error " + cuda_.name_of(error) + " after " + after +
              ": the CUDA context is unusable, so the remaining execution-tier cases were not run";
}

std::optional<TierResult> ExecutionTier::run(const ReplayConfig& replay, const ExecutionInputs& inputs) {
  if (!broken_.empty()) return std::nullopt;
  TierResult result;
  if (replay.op == ReplayOp::Batchnorm) result = run_batchnorm(replay, inputs);
  else if (replay.op == ReplayOp::Convolution) result = run_convolution(replay, inputs);
  else return run_descriptor_tier(cudnn_, replay);  // descriptors alone: nothing more to run
  check_context(std::string(replay_op_name(replay.op)) + " (" + result.detail + ")");
  if (!broken_.empty()) return std::nullopt;
  return result;
}

TierResult ExecutionTier::run_batchnorm(const ReplayConfig& replay, const ExecutionInputs& inputs) {
  TierResult result;
  auto x_desc = make_tensor(cudnn_);
  auto bn_desc = make_tensor(cudnn_);
  const CallResult set = set_tensor(cudnn_, x_desc, replay, replay.input, replay.dtype);
  if (!set.ok()) {
    result.status = cudnn_.status_name(set.status);
    result.failed = true;
    result.detail = set.call + " -> " + result.status;
    return result;
  }
  const auto mode = replay.bn_mode == "per_activation" ? abi::CUDNN_BATCHNORM_PER_ACTIVATION
                                                       : abi::CUDNN_BATCHNORM_SPATIAL;
  if (const auto s = cudnn_.derive_bn(bn_desc.get(), x_desc.get(), mode); s != abi::CUDNN_STATUS_SUCCESS) {
    result.status = cudnn_.status_name(s);
    result.failed = true;
    result.detail = "cudnnDeriveBNTensorDescriptor -> " + result.status;
    return result;
  }
  if (replay.input.size() < 2 || replay.input[0] <= 0 || replay.input[1] <= 0 || product(replay.input) > kMaxElements)
    return not_tested("not run", "batch-norm input shape unusable for a replay");
  const DType param_type = replay.dtype == DType::Float64 ? DType::Float64 : DType::Float32;  // cuDNN: double x -> double
  const std::size_t count = static_cast<std::size_t>(product(replay.input));
  const std::size_t channels = static_cast<std::size_t>(replay.input[1]);
  const std::size_t per_param = mode == abi::CUDNN_BATCHNORM_SPATIAL ? channels : count / static_cast<std::size_t>(replay.input[0]);
  std::vector<double> x_values = batchnorm_input(replay.input);
  if (inputs.first_input_element && !x_values.empty()) x_values[0] = *inputs.first_input_element;
  std::vector<double> ones(per_param, 1.0), zeros(per_param, 0.0), variance(per_param, 1.0);
  for (std::size_t i = 0; i < per_param; ++i)
    if ((mode == abi::CUDNN_BATCHNORM_SPATIAL ? i : i / (per_param / channels)) == 0) variance[i] = 0.0;

  const std::size_t x_bytes = count * element_size(replay.dtype).value_or(4);
  const std::size_t p_bytes = per_param * element_size(param_type).value_or(4);
  DeviceBuffer x(cuda_, x_bytes), y(cuda_, x_bytes), scale(cuda_, p_bytes), bias(cuda_, p_bytes), mean(cuda_, p_bytes),
      var(cuda_, p_bytes), save_mean(cuda_, p_bytes), save_inv(cuda_, p_bytes);
  for (const DeviceBuffer* b : {&x, &y, &scale, &bias, &mean, &var, &save_mean, &save_inv})
    if (b->get() == nullptr)
      return not_tested("cudaMalloc: " + cuda_.name_of(b->error()), "could not allocate the batch-norm buffers");
  if (!x.upload(encode(x_values, replay.dtype)) || !scale.upload(encode(ones, param_type)) ||
      !bias.upload(encode(zeros, param_type)))
    return not_tested("cudaMemcpy failed", "could not copy the batch-norm inputs to the GPU");
  Scalars scalars;
  scalars.as_double = replay.dtype == DType::Float64;
  const double epsilon = replay.epsilon.value_or(1e-5);

  // The output of one call, or why it could not be read back (then nothing was tested).
  std::string transfer_error;
  auto output_nonfinite = [&](abi::cudnnStatus_t status, const char* which) {
    if (status != abi::CUDNN_STATUS_SUCCESS) return false;
    if (const abi::cudaError_t sync = cuda_.synchronize(); sync != abi::cudaSuccess) {
      transfer_error = std::string(which) + ": " + cuda_.name_of(sync) + " after the call";
      return false;
    }
    const auto bytes = y.download(x_bytes);
    if (!bytes) {
      transfer_error = std::string(which) + ": could not copy the output back";
      return false;
    }
    return any_nonfinite(*bytes, replay.dtype);
  };

  // Training: batch statistics (channel 0's variance is 0), running stats updated in place.
  if (!mean.upload(encode(zeros, param_type)) || !var.upload(encode(variance, param_type)))
    return not_tested("cudaMemcpy failed", "could not copy the running statistics to the GPU");
  const auto training = cudnn_.bn_forward_training(handle_, mode, scalars.one(), scalars.zero(), x_desc.get(), x.get(),
                                                   x_desc.get(), y.get(), bn_desc.get(), scale.get(), bias.get(), 1.0,
                                                   mean.get(), var.get(), epsilon, save_mean.get(), save_inv.get());
  const bool training_nonfinite = output_nonfinite(training, "forward training");
  if (!transfer_error.empty()) return not_tested("CUDA error", transfer_error);

  // Inference: running variance 0 on channel 0.
  if (!mean.upload(encode(zeros, param_type)) || !var.upload(encode(variance, param_type)))
    return not_tested("cudaMemcpy failed", "could not copy the running statistics to the GPU");
  const auto inference = cudnn_.bn_forward_inference(handle_, mode, scalars.one(), scalars.zero(), x_desc.get(),
                                                     x.get(), x_desc.get(), y.get(), bn_desc.get(), scale.get(),
                                                     bias.get(), mean.get(), var.get(), epsilon);
  const bool inference_nonfinite = output_nonfinite(inference, "forward inference");
  if (!transfer_error.empty()) return not_tested("CUDA error", transfer_error);

  const auto first_failure = training != abi::CUDNN_STATUS_SUCCESS ? training : inference;
  result.status = cudnn_.status_name(first_failure);
  result.failed = first_failure != abi::CUDNN_STATUS_SUCCESS;
  result.nonfinite = training_nonfinite || inference_nonfinite;
  auto describe = [&](abi::cudnnStatus_t s, bool nonfinite) {
    return cudnn_.status_name(s) + (s != abi::CUDNN_STATUS_SUCCESS ? "" : nonfinite ? ", output has NaN/Inf" : ", output finite");
  };
  char eps_text[32];
  std::snprintf(eps_text, sizeof eps_text, "%g", epsilon);
  result.detail = "batch norm " + std::string(dtype_name(replay.dtype)) + " eps=" + eps_text + " with a zero-variance channel: forward training " +
                  describe(training, training_nonfinite) + "; forward inference " + describe(inference, inference_nonfinite);
  return result;
}

TierResult ExecutionTier::run_convolution(const ReplayConfig& replay, const ExecutionInputs& inputs) {
  TierResult result;
  auto x_desc = make_tensor(cudnn_);
  auto w_desc = make_filter(cudnn_);
  auto conv = make_convolution(cudnn_);
  auto y_desc = make_tensor(cudnn_);
  ReplayConfig input = replay;
  input.api = "cudnnSetTensor4dDescriptor";
  auto fail = [&](abi::cudnnStatus_t status, const std::string& call) {
    result.status = cudnn_.status_name(status);
    result.failed = status != abi::CUDNN_STATUS_SUCCESS;
    result.detail = call + " -> " + result.status;
    return result;
  };
  for (const CallResult& call : {set_tensor(cudnn_, x_desc, input, replay.input, replay.dtype),
                                 set_filter(cudnn_, w_desc, replay), set_convolution(cudnn_, conv, replay)})
    if (!call.ok()) return fail(call.status, call.call);
  int n = 0, c = 0, h = 0, w = 0;
  if (auto s = cudnn_.convolution_output_dim(conv.get(), x_desc.get(), w_desc.get(), &n, &c, &h, &w);
      s != abi::CUDNN_STATUS_SUCCESS)
    return fail(s, "cudnnGetConvolution2dForwardOutputDim");
  const std::vector<std::int64_t> out_dims{n, c, h, w};
  if (const CallResult set = set_tensor(cudnn_, y_desc, input, out_dims, replay.dtype); !set.ok())
    return fail(set.status, set.call);
  abi::cudnnConvolutionFwdAlgoPerf_t perf[8] = {};
  int returned = 0;
  if (auto s = cudnn_.convolution_algorithm(handle_, x_desc.get(), w_desc.get(), conv.get(), y_desc.get(), 8,
                                            &returned, perf);
      s != abi::CUDNN_STATUS_SUCCESS)
    return fail(s, "cudnnGetConvolutionForwardAlgorithm_v7");
  const abi::cudnnConvolutionFwdAlgoPerf_t* chosen = nullptr;
  for (int i = 0; i < returned && chosen == nullptr; ++i)
    if (perf[i].status == abi::CUDNN_STATUS_SUCCESS) chosen = &perf[i];
  if (chosen == nullptr)
    return fail(returned > 0 ? perf[0].status : abi::CUDNN_STATUS_BAD_PARAM,
                "cudnnGetConvolutionForwardAlgorithm_v7 (no algorithm supports this configuration)");
  std::size_t workspace_bytes = 0;
  if (auto s = cudnn_.convolution_workspace(handle_, x_desc.get(), w_desc.get(), conv.get(), y_desc.get(),
                                            chosen->algo, &workspace_bytes);
      s != abi::CUDNN_STATUS_SUCCESS)
    return fail(s, "cudnnGetConvolutionForwardWorkspaceSize");
  if (product(replay.input) > kMaxElements || product(replay.filter) > kMaxElements ||
      product(out_dims) > kMaxElements)
    return not_tested("not run", "tensors larger than 2^26 elements are not replayed");
  const std::size_t x_count = static_cast<std::size_t>(product(replay.input));
  const std::size_t w_count = static_cast<std::size_t>(product(replay.filter));
  const std::size_t y_count = static_cast<std::size_t>(product(out_dims));
  const std::size_t size = element_size(replay.dtype).value_or(4);
  DeviceBuffer x(cuda_, x_count * size), wt(cuda_, w_count * size), y(cuda_, y_count * size),
      workspace(cuda_, workspace_bytes);
  if (!x.get() || !wt.get() || !y.get() || !workspace.get())
    return not_tested("cudaMalloc failed", "could not allocate the convolution's buffers");
  std::vector<double> x_values(x_count), w_values(w_count);
  for (std::size_t i = 0; i < x_count; ++i) x_values[i] = static_cast<double>(i % 7) * 0.25 - 0.5;
  for (std::size_t i = 0; i < w_count; ++i) w_values[i] = static_cast<double>(i % 5) * 0.25 - 0.5;
  if (inputs.first_input_element && x_count > 0) x_values[0] = *inputs.first_input_element;
  if (inputs.first_filter_element && w_count > 0) w_values[0] = *inputs.first_filter_element;
  if (!x.upload(encode(x_values, replay.dtype)) || !wt.upload(encode(w_values, replay.dtype)))
    return not_tested("cudaMemcpy failed", "could not copy the convolution's inputs to the GPU");
  Scalars scalars;
  scalars.as_double = replay.dtype == DType::Float64;
  const auto status = cudnn_.convolution_forward(handle_, scalars.one(), x_desc.get(), x.get(), w_desc.get(), wt.get(),
                                                 conv.get(), chosen->algo, workspace.get(), workspace_bytes,
                                                 scalars.zero(), y_desc.get(), y.get());
  result.status = cudnn_.status_name(status);
  result.failed = status != abi::CUDNN_STATUS_SUCCESS;
  if (!result.failed) {
    if (const abi::cudaError_t sync = cuda_.synchronize(); sync != abi::cudaSuccess)
      return not_tested("CUDA error", "cudnnConvolutionForward: " + cuda_.name_of(sync) + " after the call");
    const auto bytes = y.download(y_count * size);
    if (!bytes) return not_tested("cudaMemcpy failed", "could not copy the convolution's output back");
    result.nonfinite = any_nonfinite(*bytes, replay.dtype);
  }
  result.detail = "cudnnConvolutionForward (algorithm " + std::to_string(chosen->algo) + ", output " +
                  std::to_string(n) + "x" + std::to_string(c) + "x" + std::to_string(h) + "x" + std::to_string(w) +
                  ") -> " + result.status + (result.failed ? "" : result.nonfinite ? ", output has NaN/Inf" : ", output finite");
  return result;
}

}  // namespace cudnnlint::gpu
