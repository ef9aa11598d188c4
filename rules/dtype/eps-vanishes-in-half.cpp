// eps-vanishes-in-half: a small constant meeting float16. Python: an epsilon added to, or dividing,
// a tensor the code makes float16 (`x.half()`, `dtype=torch.float16`, an autocast region's matmul,
// a Keras layer's inputs under `mixed_float16`, unless the layer sets a float32 dtype); CUDA: a
// float converted to half (`__float2half(1e-8f)`). In float16 anything at or below 2^-25 (about 2.98e-8) rounds to 0, and
// what is left of a zero denominator is a division by 0 or, for a subnormal eps, a quotient above
// 65504: inf either way, then NaN. bfloat16 keeps float32's exponent range, so these constants stay
// non-zero there: not a finding. KB entry numerics/epsilon-rounds-to-zero-in-float16.
#include "rules/dtype/low_precision.h"
#include "rules/replay_configs.h"
#include "rules/rule.h"

#include <cmath>

namespace cudnnlint {

void check_EpsVanishesInHalf(const RuleInput& input, std::vector<Finding>& out) {
  using Use = LowPrecisionConstantFact::Use;
  for (const LowPrecisionConstantFact& fact : input.facts.low_precision_constants) {
    if (fact.use == Use::OptimizerEps || fact.dtype != DType::Float16) continue;
    const double eps = fact.value.value;
    const dtype_rules::Rounded r = dtype_rules::rounded(fact.dtype, eps);
    const double largest = largest_finite(fact.dtype);
    const bool overflows = fact.use == Use::Divisor && !r.zero && r.value > 0 && 1.0 / r.value > largest;
    if (!r.zero && !overflows) continue;
    Finding finding = make_finding(RuleId::EpsVanishesInHalf, fact.where);
    const std::string constant = fact.value.spelling.empty() ? dtype_rules::number(eps) : fact.value.spelling;
    const std::string rounding = dtype_rules::rounding_text(fact.dtype, eps);
    if (fact.use == Use::HalfConversion) {
      finding.message = "`" + clipped(fact.expression, 60) + "` is 0 in float16: as an epsilon it guards nothing";
      finding.detail = rounding + " (anything at or below 2^-25 ≈ 2.98e-08 rounds to 0); as an epsilon it guards nothing, "
                        "and a zero denominator then gives inf or NaN. Use a half epsilon of at least 6.1035e-05 "
                        "(float16's smallest normal), or add the epsilon in float before converting";
    } else {
      const std::string operand = fact.reduced_by.empty() ? "The other operand" : "The other operand (" +
                                                                                       fact.reduced_by + ")";
      std::string effect;
      if (r.zero)
        effect = fact.use == Use::Divisor
                     ? "a zero denominator is then divided by 0: inf, or NaN for 0/0"
                     : "where the other operand is 0 the sum is 0, so whatever this guards (a division, a sqrt's "
                       "gradient, a log) meets 0: inf or NaN";
      else
        effect = "a zero denominator leaves 1/" + dtype_rules::number(r.value) + " ≈ " +
                 dtype_rules::number(1.0 / r.value) + ", above float16's largest value 65504: inf";
      finding.message = "`" + clipped(constant, 20) + "` meets float16 in `" + clipped(fact.expression, 50) + "`: " +
                        (r.zero ? "it rounds to 0" : "1/eps overflows float16");
      finding.detail = operand + " is float16, and PyTorch and TensorFlow compute a float16 tensor with a Python "
                       "number in float16: " + rounding + "; " + effect +
                        ". Use an epsilon of at least 1e-4 in float16, or compute this in float32 (`.float()`, "
                        "`tf.cast(..., tf.float32)`) and cast back";
    }
    finding.target_note = "IEEE float16 (every framework and cuDNN version)";
    if (fact.reduced_at)
      finding.related.push_back({*fact.reduced_at, fact.use == Use::HalfConversion
                                                       ? "converted to half here"
                                                       : "float16 here: " + fact.reduced_by});
    for (const auto& step : fact.operand_steps) finding.related.push_back({step.where, step.what});
    for (const auto& step : fact.value.provenance) finding.related.push_back({step.where, step.what});
    finding.replay.unknown = "float16 arithmetic in the framework or the kernel, not a cuDNN descriptor";
    if (const FrameworkName framework = framework_named(fact.framework);
        framework != FrameworkName::None && fact.use != Use::HalfConversion)
      finding.replay.framework = epsilon_case(framework, FrameworkProbe::HalfEpsilon, FrameworkExpect::NonFinite, eps);
    out.push_back(std::move(finding));
  }
}

}  // namespace cudnnlint
