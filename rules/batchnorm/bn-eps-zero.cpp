// bn-eps-zero: epsilon 0. A channel with zero variance computes 1/sqrt(0) = inf, then NaN.
// PyTorch hands eps=0 to cuDNN since 7.5 (0 >= CUDNN_BN_MIN_EPSILON), whose kernel has no zero
// guard (measured: cuDNN 9.14.0 and 9.19.0 on an H100 give NaN/Inf with CUDNN_STATUS_SUCCESS);
// before 7.5 it runs its native kernel, which maps 1/sqrt(0) to 0. PyTorch >= 2.10 refuses eps=0
// in F.batch_norm itself (>= 2.12 in training only): the API table's eps_refusals. A clamping path
// (bn-eps-silently-clamped) and the C API on cuDNN < 7.5 (bn-eps-below-cudnn-min) are reported by
// those rules instead.
#include "rules/batchnorm/eps_context.h"

namespace cudnnlint {

void check_BnEpsZero(const RuleInput& input, std::vector<Finding>& out) {
  for (const NormalizationFact& fact : input.facts.normalizations) {
    const auto& ctx = batchnorm::eps_context(fact, input);
    if (!ctx || ctx->eps != 0 || (ctx->path == CudnnPath::ClampTf && !ctx->clamp_version_unknown)) continue;
    if (ctx->path == CudnnPath::Passthrough && ctx->old_cudnn) continue;
    Level level = Level::Warning;
    std::string consequence = "zero-variance channels give inf, then NaN";
    std::string target_note = input.target.describe_cudnn();
    std::string why = "a channel with zero variance (constant input, zero padding, dead activations) computes "
                      "1/sqrt(0) = inf and then NaN";
    if (ctx->path == CudnnPath::FallbackNative) {
      const batchnorm::Refusal refusal = batchnorm::refusal_state(*ctx, 0.0);
      const std::string summary = ctx->framework_version ? "" : batchnorm::refusal_summary(*ctx, 0.0);
      const std::string condition = batchnorm::refusal_condition(*ctx);
      const std::string native = "PyTorch uses its native kernel, which maps 1/sqrt(0) to 0, so zero-variance "
                                 "channels silently output the bias";
      if (refusal != batchnorm::Refusal::None) {
        // The framework's own check raises: a certain failure, not a data-dependent one.
        level = Level::Error;
        consequence = ctx->framework + " " + ctx->framework_version->str() + " refuses it" +
                      (refusal == batchnorm::Refusal::InTraining ? " in training mode" : "") + " (ValueError)";
        why = batchnorm::refusal_in_force(*ctx, 0.0);
        if (refusal == batchnorm::Refusal::InTraining)
          why += ctx->old_cudnn ? "; in eval mode, with cuDNN < 7.5, " + native
                                : "; in eval mode eps=0 reaches cuDNN, whose kernel has no zero guard: a channel whose "
                                  "running variance is 0 computes 1/sqrt(0) = inf and then NaN";
        if (!condition.empty()) why += "; while it synchronizes, its synchronized kernels run with eps=0";
      } else if (ctx->old_cudnn) {
        level = Level::Note;
        consequence = "on cuDNN < 7.5 PyTorch's native kernel outputs the bias";
        why = "with cuDNN < 7.5 " + native;
        if (!summary.empty()) why += "; " + summary;
      } else {
        why += "; PyTorch" + (summary.empty() ? "" : " < " + ctx->api.eps_refusals.front().from.str()) +
               " hands eps=0 to cuDNN (0 >= CUDNN_BN_MIN_EPSILON since cuDNN 7.5), whose kernel has no zero guard" +
               condition;
        if (!summary.empty()) why += "; " + summary;
      }
      if (!ctx->api.eps_refusals.empty()) target_note += "; " + ctx->framework_note;
    }
    if (ctx->path == CudnnPath::ClampTf) {
      // TensorFlow's fused path, version unknown: <= 2.11 raises eps=0 to 1.001e-5, later ones keep it.
      consequence = "NaN on TF >= 2.12; <= 2.11 uses 1.001e-5";
      why = "TensorFlow >= 2.12 hands it to its fused batch-norm kernel unchanged, where a channel with zero variance "
            "computes 1/sqrt(0) = inf and then NaN (measured on the CPU kernel of TensorFlow 2.12.1-2.21.0); "
            "TensorFlow <= 2.11 raises it to 1.001e-5 (bn-eps-silently-clamped)." + ctx->keras_caveat;
      target_note = "TensorFlow version unknown: pass --framework tensorflow=VERSION";
    }
    if (!ctx->clamp_note.empty()) target_note += "; " + ctx->clamp_note;
    if (ctx->path == CudnnPath::None)
      target_note = "any version (" + ctx->layer + " does not call cuDNN batch norm)";
    batchnorm::add_eps_finding(*ctx, RuleId::BnEpsZero, level, consequence, std::move(why), std::move(target_note), out);
  }
}

}  // namespace cudnnlint
