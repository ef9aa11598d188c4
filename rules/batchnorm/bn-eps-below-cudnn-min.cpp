// bn-eps-below-cudnn-min: an epsilon below CUDNN_BN_MIN_EPSILON, which was 1e-5 before cuDNN
// 7.5.0 and is 0.0 since. What that means depends on how the framework hands epsilon to cuDNN:
// the C API and MXNet pass it unchanged (BAD_PARAM on an old cuDNN; unknown cuDNN: a warning
// that says so), PyTorch silently falls back to its native kernel, Paddle raises it to the floor
// (never a BAD_PARAM). float32 storage turns an exact 1e-5 into 9.99999975e-06, below the old floor;
// Paddle's own comparison allows for that (it logs, and changes the model, only for a stored eps
// <= CUDNN_BN_MIN_EPSILON - FLT_EPSILON), so only a Paddle eps at or below that is reported.
#include "rules/batchnorm/eps_context.h"

namespace cudnnlint {

void check_BnEpsBelowCudnnMin(const RuleInput& input, std::vector<Finding>& out) {
  for (const NormalizationFact& fact : input.facts.normalizations) {
    const auto& ctx = batchnorm::eps_context(fact, input);
    if (!ctx || !(ctx->eps >= 0) || ctx->path == CudnnPath::ClampTf) continue;  // NaN: bn-eps-not-finite
    const std::string target_note = input.target.describe_cudnn();
    if (ctx->eps == 0) {
      if (ctx->path != CudnnPath::Passthrough || !ctx->old_cudnn) continue;  // bn-eps-zero's
      batchnorm::add_eps_finding(*ctx, RuleId::BnEpsBelowCudnnMin, Level::Error,
                                 "below this cuDNN's minimum: CUDNN_STATUS_BAD_PARAM",
                                 "CUDNN_BN_MIN_EPSILON is 1e-5 before cuDNN 7.5, and cuDNN rejects anything below it",
                                 target_note, out);
      continue;
    }
    const double effective = batchnorm::stored_eps(*ctx);
    if (effective >= batchnorm::kOldCudnnFloor) continue;
    const std::string float_trap = ctx->eps >= batchnorm::kOldCudnnFloor
                                       ? " (it is stored as float32: float32(" + batchnorm::number(ctx->eps) +
                                             ") = " + batchnorm::number(effective) + " < 1e-5)"
                                       : "";
    switch (ctx->path) {
      case CudnnPath::Passthrough: {
        if (ctx->cudnn_known && !ctx->old_cudnn) break;
        std::string message = "It is below 1e-5" + float_trap + " and reaches cuDNN unchanged: ";
        message += ctx->old_cudnn ? "this cuDNN rejects it with CUDNN_STATUS_BAD_PARAM (CUDNN_BN_MIN_EPSILON is "
                                    "1e-5 before 7.5)"
                                  : "cuDNN < 7.5 rejects it with CUDNN_STATUS_BAD_PARAM; 7.5 and later accept it. "
                                    "cuDNN version unknown: pass --cudnn-version";
        batchnorm::add_eps_finding(*ctx, RuleId::BnEpsBelowCudnnMin, ctx->old_cudnn ? Level::Error : Level::Warning,
                                   ctx->old_cudnn ? "below 1e-5: this cuDNN returns BAD_PARAM"
                                                  : "below 1e-5: cuDNN < 7.5 returns BAD_PARAM",
                                   std::move(message), target_note, out);
        break;
      }
      case CudnnPath::FallbackNative:
        if (!ctx->old_cudnn) break;
        batchnorm::add_eps_finding(*ctx, RuleId::BnEpsBelowCudnnMin, Level::Note,
                                   "below 1e-5: PyTorch silently skips cuDNN",
                                   "CUDNN_BN_MIN_EPSILON is 1e-5 before cuDNN 7.5: PyTorch silently runs its native "
                                   "batch-norm kernel instead of cuDNN (no error, slower)",
                                   target_note, out);
        break;
      case CudnnPath::ClampCudnnMin:
        // Paddle: `if (epsilon <= CUDNN_BN_MIN_EPSILON - FLT_EPSILON) LOG(ERROR) << ...;` then
        // `epsilon = std::max(epsilon, CUDNN_BN_MIN_EPSILON);`, epsilon being the float attribute
        // widened to double. Above that bound (float32(1e-5) = 9.99999975e-06 among them) the raise
        // to 1e-5 only undoes float rounding: nothing to report, as for the default epsilon=1e-05.
        if (!ctx->old_cudnn || !batchnorm::clamp_logged(*ctx)) break;
        batchnorm::add_eps_finding(*ctx, RuleId::BnEpsBelowCudnnMin, Level::Warning,
                                   "below 1e-5: Paddle silently uses 1e-5",
                                   "It is at or below CUDNN_BN_MIN_EPSILON - FLT_EPSILON (9.8807907e-06 before "
                                       "cuDNN 7.5): Paddle raises it to 1e-5 before cuDNN sees it (no "
                                       "CUDNN_STATUS_BAD_PARAM) and logs \"Provided epsilon is smaller than "
                                       "CUDNN_BN_MIN_EPSILON\", so the model computes with another epsilon than it "
                                       "declares",
                                   target_note, out);
        break;
      case CudnnPath::ClampTf:
      case CudnnPath::Keras:
      case CudnnPath::None:
      case CudnnPath::Graph:  // cudnn-frontend needs cuDNN 8 or later: the old 1e-5 floor never applies
        break;
    }
  }
}

}  // namespace cudnnlint
