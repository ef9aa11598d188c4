// keras-optimizer-eps-vanishes-in-half: a Keras optimizer built in a module that makes every weight
// float16 (`keras.config.set_floatx("float16")`, `keras.backend.set_floatx`), with an epsilon that
// rounds to 0 in float16 (1e-8). Keras adds epsilon in the variables' type: a weight whose gradient
// is 0 takes a 0/0 step and becomes NaN. Keras's default 1e-7 stays 1.19e-07 in float16 and is not
// this rule's (Adamax fails even so, for another product; it is left out). The mixed_float16 policy
// keeps variables in float32 and is not this either. KB entry
// tensorflow/keras-optimizer-epsilon-underflows-on-float16-weights; the torch.optim case is
// optimizer-eps-vanishes-in-half's.
#include "rules/dtype/low_precision.h"
#include "rules/replay_configs.h"
#include "rules/rule.h"

namespace cudnnlint {

void check_KerasOptimizerEpsVanishesInHalf(const RuleInput& input, std::vector<Finding>& out) {
  for (const LowPrecisionConstantFact& fact : input.facts.low_precision_constants) {
    if (fact.use != LowPrecisionConstantFact::Use::OptimizerEps || fact.dtype != DType::Float16 ||
        fact.framework != "keras")
      continue;
    const dtype_rules::Rounded r = dtype_rules::rounded(fact.dtype, fact.value.value);
    if (!r.zero) continue;
    Finding finding = make_finding(RuleId::KerasOptimizerEpsVanishesInHalf, fact.where);
    const std::string optimizer = fact.api.substr(fact.api.rfind('.') + 1);
    const std::string eps =
        "epsilon=" + (fact.value.spelling.empty() ? dtype_rules::number(fact.value.value) : fact.value.spelling);
    finding.message = optimizer + " on float16 weights with " + clipped(eps, 40) +
                      ": epsilon rounds to 0, and a zero gradient gives a NaN step";
    finding.detail = dtype_rules::rounding_text(fact.dtype, fact.value.value) +
                     ". Keras keeps each weight and its optimizer slots in the float type set_floatx chose and adds "
                     "epsilon there, so a weight whose gradient is 0 takes a 0/0 step and stays NaN (measured: "
                     "Keras 3.15.1 on tensorflow-cpu 2.21.0 and Keras 2.11 on tensorflow-cpu 2.11.1, one fit step "
                     "with zero gradients). Keep float32 weights and use the mixed_float16 policy, or pass "
                     "epsilon=1e-4 (Keras's default 1e-7 stays 1.19e-07 in float16)";
    finding.target_note = "Keras optimizers (measured on Keras 2.11 and 3.15.1; float16 rounding)";
    if (fact.reduced_at) finding.related.push_back({*fact.reduced_at, "every weight becomes float16 here"});
    for (const auto& step : fact.value.provenance) finding.related.push_back({step.where, step.what});
    finding.replay.unknown = "the optimizer's arithmetic in Keras, not a cuDNN configuration";
    finding.replay.framework = epsilon_case(FrameworkName::TensorFlow, FrameworkProbe::OptimizerHalfEpsilon,
                                            FrameworkExpect::NonFinite, fact.value.value);
    finding.replay.framework.optimizer = optimizer;
    out.push_back(std::move(finding));
  }
}

}  // namespace cudnnlint
