#include "gpu_check/descriptors.h"
#include "gpu_check/tiers.h"

namespace cudnnlint::gpu {

namespace {

TierResult from_call(const CudnnApi& cudnn, const CallResult& call) {
  TierResult result;
  result.status = cudnn.status_name(call.status);
  result.failed = !call.ok();
  result.decisive = !call.setup_failed;
  result.detail = call.call + " -> " + result.status;
  return result;
}

}  // namespace

TierResult run_descriptor_tier(const CudnnApi& cudnn, const ReplayConfig& replay) {
  if (replay.op == ReplayOp::TensorDescriptor) {
    auto desc = make_tensor(cudnn);
    return from_call(cudnn, set_tensor(cudnn, desc, replay, replay.input, replay.dtype));
  }
  if (replay.op == ReplayOp::FilterDescriptor) {
    auto desc = make_filter(cudnn);
    return from_call(cudnn, set_filter(cudnn, desc, replay));
  }
  if (replay.op == ReplayOp::ConvolutionDescriptor) {
    auto desc = make_convolution(cudnn);
    return from_call(cudnn, set_convolution(cudnn, desc, replay));
  }
  if (replay.op == ReplayOp::Convolution) {
    auto x = make_tensor(cudnn);
    auto w = make_filter(cudnn);
    auto conv = make_convolution(cudnn);
    ReplayConfig input = replay;
    input.api = "cudnnSetTensor4dDescriptor";
    for (const CallResult& call : {set_tensor(cudnn, x, input, replay.input, replay.dtype),
                                   set_filter(cudnn, w, replay), set_convolution(cudnn, conv, replay)})
      if (!call.ok()) return from_call(cudnn, call);
    int n = 0, c = 0, h = 0, wd = 0;
    CallResult out{cudnn.convolution_output_dim(conv.get(), x.get(), w.get(), &n, &c, &h, &wd),
                   "cudnnGetConvolution2dForwardOutputDim"};
    TierResult result = from_call(cudnn, out);
    if (out.ok())
      result.detail += " (output " + std::to_string(n) + "x" + std::to_string(c) + "x" + std::to_string(h) + "x" +
                       std::to_string(wd) + ")";
    return result;
  }
  if (replay.op == ReplayOp::Batchnorm) {
    auto x = make_tensor(cudnn);
    auto bn = make_tensor(cudnn);
    const CallResult set = set_tensor(cudnn, x, replay, replay.input, replay.dtype);
    if (!set.ok()) {
      TierResult failed = from_call(cudnn, set);
      failed.decisive = false;  // the shape is assumed: its failure says nothing about epsilon
      return failed;
    }
    const auto mode = replay.bn_mode == "per_activation" ? abi::CUDNN_BATCHNORM_PER_ACTIVATION
                                                         : abi::CUDNN_BATCHNORM_SPATIAL;
    TierResult result = from_call(cudnn, {cudnn.derive_bn(bn.get(), x.get(), mode), "cudnnDeriveBNTensorDescriptor"});
    // Epsilon is an argument of the batch-norm call itself, which needs a handle and a GPU.
    result.decisive = false;
    result.detail = set.call + " -> ok; " + result.detail + "; epsilon is only checked when batch norm runs";
    return result;
  }
  TierResult result;
  result.decisive = false;
  result.detail = "nothing to replay for operation '" + std::string(replay_op_name(replay.op)) + "'";
  return result;
}

}  // namespace cudnnlint::gpu
