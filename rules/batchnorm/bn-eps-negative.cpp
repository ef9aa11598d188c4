// bn-eps-negative: a negative batch-norm epsilon. cuDNN rejects it on every version
// (epsilon must be >= CUDNN_BN_MIN_EPSILON, which is never above 0); frameworks that do not
// pass it to cuDNN compute rsqrt(var + eps) = NaN wherever the variance is below |eps|.
// Measured: cuDNN 9.14.0 and 9.19.0 (H100) return CUDNN_STATUS_BAD_PARAM for eps = -1e-5 in
// training and inference; PyTorch's native kernel gives NaN; PyTorch >= 2.10's F.batch_norm
// raises ValueError first (the API table's eps_refusals).
#include "rules/batchnorm/eps_context.h"

namespace cudnnlint {

void check_BnEpsNegative(const RuleInput& input, std::vector<Finding>& out) {
  for (const NormalizationFact& fact : input.facts.normalizations) {
    const auto& ctx = batchnorm::eps_context(fact, input);
    if (!ctx || !(ctx->eps < 0)) continue;  // NaN: bn-eps-not-finite
    std::string why, consequence = "NaN in low-variance channels";
    switch (ctx->path) {
      case CudnnPath::Passthrough:
        consequence = "CUDNN_STATUS_BAD_PARAM";
        why = "cuDNN rejects it with CUDNN_STATUS_BAD_PARAM on every version (epsilon must be >= CUDNN_BN_MIN_EPSILON)";
        if (!ctx->clamp_note.empty())
          why = ctx->clamp_note + ": its fused kernel gives NaN on the CPU (measured), and " + why;
        break;
      case CudnnPath::FallbackNative:
        why = "PyTorch sends eps below CUDNN_BN_MIN_EPSILON to its native kernel, where var + eps < 0 in "
              "low-variance channels gives NaN";
        if (const std::string refused = batchnorm::refusal_in_force(*ctx, ctx->eps); !refused.empty()) {
          consequence = ctx->framework + " " + ctx->framework_version->str() + " refuses it (ValueError)";
          why = refused + (ctx->api.refusal_condition.empty() ? "" : "; otherwise " + why);
        }
        else if (!ctx->framework_version)
          if (const std::string refusal = batchnorm::refusal_summary(*ctx, ctx->eps); !refusal.empty())
            why = refusal + "; older versions" + (ctx->api.refusal_condition.empty() ? "" : " (and every version otherwise)") +
                  " send eps below CUDNN_BN_MIN_EPSILON to their native kernel, where var + eps < 0 in low-variance "
                  "channels gives NaN";
        break;
      case CudnnPath::ClampTf:
        consequence = ctx->clamp_version_unknown ? "NaN on TF >= 2.12; <= 2.11 uses 1.001e-5"
                                                 : "TensorFlow silently uses 1.001e-5";
        why = ctx->clamp_version_unknown
                  ? "TensorFlow <= 2.11's fused batch norm silently replaces it with 1.001e-5; TensorFlow >= 2.12 keeps "
                    "it (measured on 2.12.1-2.21.0), and rsqrt(var + eps) is NaN in low-variance channels, as on "
                    "unfused paths." + ctx->keras_caveat
                  : "TensorFlow's fused batch norm silently replaces it with 1.001e-5, so the layer computes with "
                    "another epsilon than declared; unfused paths give rsqrt(var + eps) = NaN in low-variance channels" +
                        ctx->keras_caveat;
        break;
      case CudnnPath::ClampCudnnMin:
        consequence = "Paddle silently raises it to the cuDNN minimum";
        why = "Paddle raises it to CUDNN_BN_MIN_EPSILON (0.0 on cuDNN >= 7.5, so eps = 0) with a log line";
        break;
      case CudnnPath::Keras:
      case CudnnPath::None:
        why = "rsqrt(var + eps) is NaN in every channel whose variance is below |eps|";
        break;
      case CudnnPath::Graph:
        consequence = "NaN in low-variance channels if it runs";
        why = "the cuDNN graph API documents no minimum epsilon (whether it rejects a negative one is "
              "unconfirmed); if it runs, rsqrt(var + eps) is NaN in every channel whose variance is below |eps|";
        break;
    }
    batchnorm::add_eps_finding(*ctx, RuleId::BnEpsNegative, Level::Error, consequence, std::move(why),
                               "every cuDNN version" +
                                   (ctx->api.eps_refusals.empty() ? std::string() : "; " + ctx->framework_note),
                               out);
  }
}

}  // namespace cudnnlint
