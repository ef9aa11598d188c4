// optimizer-eps-vanishes-in-half: a torch.optim optimizer built on the parameters of a model the
// code converts to float16 (`model.half()`), with an eps that rounds to 0 in float16 (Adam's default
// 1e-8, Adagrad's 1e-10). The optimizer keeps its state in the parameters' type and adds eps to the
// root of its second moment there: a parameter whose gradient is 0 gets 0/0 = NaN on the step.
// Mixed precision (float32 parameters under autocast with a GradScaler) is not this: eps is added in
// float32. KB entry pytorch/optimizer-eps-underflows-on-half-parameters.
#include "rules/dtype/low_precision.h"
#include "rules/replay_configs.h"
#include "rules/rule.h"

namespace cudnnlint {

void check_OptimizerEpsVanishesInHalf(const RuleInput& input, std::vector<Finding>& out) {
  for (const LowPrecisionConstantFact& fact : input.facts.low_precision_constants) {
    // Keras optimizers are keras-optimizer-eps-vanishes-in-half's.
    if (fact.use != LowPrecisionConstantFact::Use::OptimizerEps || fact.dtype != DType::Float16 ||
        fact.framework != "torch")
      continue;
    const dtype_rules::Rounded r = dtype_rules::rounded(fact.dtype, fact.value.value);
    if (!r.zero) continue;
    Finding finding = make_finding(RuleId::OptimizerEpsVanishesInHalf, fact.where);
    const std::string optimizer = fact.api.substr(fact.api.rfind('.') + 1);
    const std::string eps = fact.value_is_default ? "its default eps " + dtype_rules::number(fact.value.value)
                                                  : "eps=" + (fact.value.spelling.empty()
                                                                  ? dtype_rules::number(fact.value.value)
                                                                  : fact.value.spelling);
    const bool delayed = optimizer == "RAdam";
    finding.message = optimizer + " on float16 parameters with " + clipped(eps, 40) +
                      ": eps rounds to 0, and a zero gradient gives a NaN step";
    finding.detail = dtype_rules::rounding_text(fact.dtype, fact.value.value) +
                      ". torch.optim keeps its state in the parameters' type and adds eps to the root of the second "
                      "moment there, so a parameter whose gradient is 0 takes a 0/0 step: NaN, and the model stays "
                      "NaN (measured on torch 2.11.0, CPU, foreach and single-tensor implementations: " +
                      (delayed ? "RAdam's NaN comes within its first 10 steps" : "NaN at the first step") +
                      "). Keep the parameters in float32 and train with autocast and a GradScaler, or pass eps=1e-4 "
                      "or more";
    finding.target_note = "torch.optim, every version (float16 rounding)";
    if (fact.reduced_at) finding.related.push_back({*fact.reduced_at, "the model's parameters become float16 here"});
    for (const auto& step : fact.operand_steps) finding.related.push_back({step.where, step.what});
    if (fact.value_is_default)
      finding.related.push_back({fact.expression_location, optimizer + " is built here without eps"});
    for (const auto& step : fact.value.provenance) finding.related.push_back({step.where, step.what});
    finding.replay.unknown = "the optimizer's arithmetic in PyTorch, not a cuDNN configuration";
    if (fact.framework == "torch") {
      finding.replay.framework = epsilon_case(FrameworkName::Torch, FrameworkProbe::OptimizerHalfEpsilon,
                                              FrameworkExpect::NonFinite, fact.value.value);
      finding.replay.framework.optimizer = optimizer;
    }
    out.push_back(std::move(finding));
  }
}

}  // namespace cudnnlint
