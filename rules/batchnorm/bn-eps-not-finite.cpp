// bn-eps-not-finite: a batch-norm epsilon that is NaN or +inf (`float('nan')`, `math.inf`, `1e99999`,
// NAN, INFINITY). Always wrong, whatever the framework: rsqrt(var + NaN) is NaN, so every output of
// the layer is NaN; rsqrt(var + inf) is 0, so the layer outputs its bias for every input and passes no
// gradient. Measured (tests/probes/bn_eps_nonfinite_*.py, CPU): PyTorch 2.11.0 (BatchNorm, F.batch_norm,
// SyncBatchNorm, InstanceNorm, GroupNorm, LayerNorm; its `eps must be positive` check lets NaN and inf
// through), TensorFlow 2.21.0 and Keras 3.15.1, and TensorFlow 2.11.1 / Keras 2.11.0, whose fused path
// raises NaN to 1.001e-5 (nn_impl.py:1689 of 2.11.1: `epsilon if epsilon > min_epsilon else
// min_epsilon`, false for NaN), so the same code computes with 1.001e-5 there and gives NaN from 2.12
// on. -inf is negative: bn-eps-negative reports it.
#include "rules/batchnorm/eps_context.h"

#include <cmath>

namespace cudnnlint {

void check_BnEpsNotFinite(const RuleInput& input, std::vector<Finding>& out) {
  for (const NormalizationFact& fact : input.facts.normalizations) {
    const auto& ctx = batchnorm::eps_context(fact, input);
    if (!ctx || std::isfinite(ctx->eps) || ctx->eps < 0) continue;
    const bool nan = std::isnan(ctx->eps);
    Level level = Level::Error;
    std::string why = nan ? "rsqrt(var + NaN) is NaN, so every output of the layer is NaN, in training and inference"
                          : "rsqrt(var + inf) is 0, so the layer outputs its bias (beta) for every input and passes "
                            "no gradient to its input or scale: it is dead";
    std::string target_note = "any version";
    std::string consequence = nan ? "every output is NaN" : "the layer outputs its bias, no gradient";
    if (nan && ctx->path == CudnnPath::ClampTf) {
      // TensorFlow <= 2.11's fused batch norm keeps `epsilon if epsilon > 1.001e-5 else 1.001e-5`.
      if (ctx->clamp_version_unknown) {
        why = "TensorFlow >= 2.12 (measured: 2.21.0, Keras 3.15.1) computes rsqrt(var + NaN) = NaN in every "
              "output; TensorFlow <= 2.11's fused batch norm silently replaces it with 1.001e-5 (measured: 2.11.1)." +
              ctx->keras_caveat;
        target_note = "TensorFlow version unknown: pass --framework tensorflow=VERSION";
      } else {
        level = Level::Warning;
        consequence = "this TensorFlow uses 1.001e-5; from 2.12 all NaN";
        why = "TensorFlow <= 2.11's fused batch norm silently replaces it with 1.001e-5 (measured: 2.11.1), so it "
              "runs; from TensorFlow 2.12 the same code gives NaN in every output";
        target_note = input.target.describe_cudnn();
      }
    } else if (!ctx->clamp_note.empty()) {
      target_note = ctx->clamp_note;
    }
    if (ctx->api.framework == "cudnn")
      why += " (measured in PyTorch and TensorFlow; cuDNN itself was not: it needs a GPU, and it may reject the value "
             "with CUDNN_STATUS_BAD_PARAM instead)";
    if (!ctx->api.eps_refusals.empty())
      why += "; " + ctx->framework + " >= " + ctx->api.eps_refusals.front().from.str() +
             " checks that eps is positive, which lets " + (nan ? "NaN" : "inf") + " through (measured: 2.11.0)";
    batchnorm::add_eps_finding(*ctx, RuleId::BnEpsNotFinite, level, consequence, std::move(why), std::move(target_note),
                               out);
  }
}

}  // namespace cudnnlint
