// bn-eps-silently-clamped: TensorFlow's fused batch norm (and Keras 2's fused
// BatchNormalization) raise an epsilon below 1.001e-5 to 1.001e-5 without a word, so the model
// computes with another epsilon than it declares. Only TensorFlow <= 2.11 does (measured:
// tests/probes/tf_bn_clamp.py, 2.11.1 clamps, 2.12.1-2.21.0 do not); with the version unknown the
// finding is a note that says so.
#include "rules/batchnorm/eps_context.h"

namespace cudnnlint {

namespace {

// The workaround, scoped to where it works: `fused=False` exists in Keras 2's BatchNormalization
// and tf.compat.v1.layers.batch_normalization only. Keras 3 has no such argument
// (`ValueError: Unrecognized keyword arguments passed to BatchNormalization: {'fused': False}`,
// measured on Keras 3.15.1), and the fused ops themselves have no switch: there the KB's
// workaround for every version, declaring the epsilon it computes with, is the one to give.
std::string keep_it(const batchnorm::EpsContext& ctx, bool keras, const Target& target) {
  if (keras) {
    if (target.keras_major() == 2) return "pass fused=False to keep it";
    return "with Keras 2, pass fused=False to keep it (Keras 3 has no `fused` argument and raises "
           "\"Unrecognized keyword arguments\" for it)";
  }
  if (ctx.api.canonical == "tensorflow.compat.v1.layers.batch_normalization") return "pass fused=False to keep it";
  return "the fused op has no switch to keep it: declare epsilon=1.001e-5 so that the declared and computed models agree";
}

}  // namespace

void check_BnEpsSilentlyClamped(const RuleInput& input, std::vector<Finding>& out) {
  for (const NormalizationFact& fact : input.facts.normalizations) {
    const auto& ctx = batchnorm::eps_context(fact, input);
    if (!ctx || !(ctx->eps >= 0) || ctx->path != CudnnPath::ClampTf || ctx->eps >= batchnorm::kTfFusedFloor)
      continue;  // NaN: bn-eps-not-finite
    const bool keras = ctx->api.cudnn_path == CudnnPath::Keras;
    const bool unknown = ctx->clamp_version_unknown;
    std::string target_note = keras ? batchnorm::keras_target_note(input.target) : "TensorFlow fused batch norm";
    if (unknown) target_note += "; TensorFlow version unknown: pass --framework tensorflow=VERSION";
    else if (const auto tf = input.target.frameworks.find("tensorflow"); tf != input.target.frameworks.end() && tf->second)
      target_note += "; TensorFlow " + tf->second->str() + input.target.source_note("tensorflow");
    // Raising 1e-5 to 1.001e-5 changes eps by 0.1%: worth knowing, not worth failing a build. A
    // clamp that only TensorFlow <= 2.11 makes, on an unknown version, is a note too.
    const Level level =
        unknown || (ctx->eps > 0 && batchnorm::kTfFusedFloor / ctx->eps < 1.01) ? Level::Note : Level::Warning;
    // Keras 2 picks the fused kernel only for 4-D/5-D inputs (convolutional feature maps); the
    // input rank is a run-time fact, so the message states the condition instead of assuming it.
    const std::string where =
        keras ? std::string(unknown ? " by TensorFlow <= 2.11" : "") +
                    " when the layer runs on TensorFlow's fused kernel (Keras 2 does so by default for 4-D and 5-D "
                    "inputs, i.e. after convolutions)"
              : (unknown ? " by the fused batch norm of TensorFlow <= 2.11" : " by TensorFlow's fused batch norm");
    const std::string versions = unknown ? " (measured on 2.11.1; 2.12 and later keep the declared epsilon)" : "";
    const std::string consequence = std::string("raised to 1.001e-5") +
                                    (unknown ? " by TensorFlow <= 2.11" : " by TensorFlow") + (keras ? " (fused)" : "");
    std::string message = "It is raised" + where + versions +
                          ": the model computes with another epsilon than it declares (exports and ports of its "
                          "weights disagree)" +
                          (ctx->eps == 0 ? (unknown ? "; from 2.12 on, eps=0 turns zero-variance channels into NaN"
                                                    : "; eps=0 would otherwise turn zero-variance channels into NaN")
                                         : "") +
                          "; " + keep_it(*ctx, keras, input.target) + "." + ctx->keras_caveat;
    batchnorm::add_eps_finding(*ctx, RuleId::BnEpsSilentlyClamped, level, consequence, std::move(message),
                               std::move(target_note), out);
  }
}

}  // namespace cudnnlint
