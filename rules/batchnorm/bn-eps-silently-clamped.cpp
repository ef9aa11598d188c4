// bn-eps-silently-clamped: TensorFlow's fused batch norm (and Keras 2's fused
// BatchNormalization) raise an epsilon below 1.001e-5 to 1.001e-5 without a word, so the model
// computes with another epsilon than it declares.
#include "rules/batchnorm/eps_context.h"

namespace cudnnlint {

void check_BnEpsSilentlyClamped(const RuleInput& input, std::vector<Finding>& out) {
  for (const NormalizationFact& fact : input.facts.normalizations) {
    const auto ctx = batchnorm::eps_context(fact, input);
    if (!ctx || ctx->eps < 0 || ctx->path != CudnnPath::ClampTf || ctx->eps >= batchnorm::kTfFusedFloor) continue;
    const bool keras = ctx->api.cudnn_path == CudnnPath::Keras;
    std::string target_note =
        keras ? batchnorm::keras_target_note(input.target) : "TensorFlow fused batch norm (all versions)";
    // Raising 1e-5 to 1.001e-5 changes eps by 0.1%: worth knowing, not worth failing a build.
    const Level level = (ctx->eps > 0 && batchnorm::kTfFusedFloor / ctx->eps < 1.01) ? Level::Note : Level::Warning;
    // Keras 2 picks the fused kernel only for 4-D/5-D inputs (convolutional feature maps); the
    // input rank is a run-time fact, so the message states the condition instead of assuming it.
    const std::string where = keras ? " when the layer runs on TensorFlow's fused kernel (Keras 2 does so by default "
                                      "for 4-D and 5-D inputs, i.e. after convolutions)"
                                    : " by TensorFlow's fused batch norm";
    std::string message = ctx->what + " in " + ctx->layer + " is silently raised to 1.001e-5" + where +
                          ": the model computes with another epsilon than it declares (exports and ports of its "
                          "weights disagree)" +
                          (ctx->eps == 0 ? "; eps=0 would otherwise turn zero-variance channels into NaN" : "") +
                          "; pass fused=False to keep it." + ctx->keras_caveat;
    batchnorm::add_eps_finding(*ctx, RuleId::BnEpsSilentlyClamped, level, std::move(message), std::move(target_note),
                               out);
  }
}

}  // namespace cudnnlint
