// The two tiers that replay a configuration against the real cuDNN.
//  - descriptor tier: builds the descriptors with the finding's values and lets cuDNN validate
//    them (set tensor/filter/convolution descriptors, output dimensions, derived BN
//    descriptor). No GPU: the real libcudnn does this on a CPU-only machine.
//  - execution tier: allocates tiny tensors on the GPU and runs the operation (batch-norm
//    forward training and inference, convolution forward), then looks for NaN/Inf.
#pragma once

#include "core/finding.h"
#include "gpu_check/runtime.h"

#include <memory>
#include <optional>
#include <string>

namespace cudnnlint::gpu {

struct TierResult {
  std::string status;       // cuDNN's name for the status that decides, e.g. "CUDNN_STATUS_BAD_PARAM"
  bool failed = false;      // that status is not CUDNN_STATUS_SUCCESS
  bool nonfinite = false;   // an output held NaN or Inf (execution tier)
  bool decisive = true;     // false when this tier cannot test what the finding predicts
  std::string detail;       // the calls made and what came back
};

TierResult run_descriptor_tier(const CudnnApi& cudnn, const ReplayConfig& replay);

// Values written over the tier's small finite input pattern: a NaN or Inf in the first element
// of the input (batch norm, convolution) or the filter (convolution). They measure whether cuDNN
// fails on non-finite data or propagates it (kb/cuda/cudnn-execution-failed-nonfinite-input).
struct ExecutionInputs {
  std::optional<double> first_input_element;
  std::optional<double> first_filter_element;
};

// Owns the cuDNN handle. A sticky CUDA error (the context is lost) ends the tier: every later
// run() returns nullopt and broken() says why.
class ExecutionTier {
 public:
  ExecutionTier(const CudnnApi& cudnn, const CudaApi& cuda);
  ~ExecutionTier();
  ExecutionTier(const ExecutionTier&) = delete;
  ExecutionTier& operator=(const ExecutionTier&) = delete;

  std::optional<TierResult> run(const ReplayConfig& replay, const ExecutionInputs& inputs = {});
  const std::string& broken() const { return broken_; }

 private:
  TierResult run_batchnorm(const ReplayConfig& replay, const ExecutionInputs& inputs);
  TierResult run_convolution(const ReplayConfig& replay, const ExecutionInputs& inputs);
  // Synchronises after a case; on an error that survives clearing, marks the tier broken.
  void check_context(const std::string& after);

  const CudnnApi& cudnn_;
  const CudaApi& cuda_;
  abi::cudnnHandle_t handle_ = nullptr;
  std::string broken_;
};

}  // namespace cudnnlint::gpu
