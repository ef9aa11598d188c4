// flax-bn-eps-vanishes-in-half: a Flax BatchNorm that adds its epsilon to a float16 variance, with an
// epsilon that float16 rounds to 0 (at or below 2^-25 ≈ 2.98e-8). Flax computes `rsqrt(var +
// epsilon)` in the variance's dtype (XLA, no cuDNN), and that variance is float16 in two cases only
// (flax's source, and tests/probes/flax_bn_eps_half.py on flax 0.12.10 / jax 0.11.2 and 0.12.8 /
// jax 0.10.2, CPU):
//  - flax.nnx.BatchNorm(dtype=float16) in eval (use_running_average=True): flax 0.12.1 and later cast
//    the float32 running statistics to the module's dtype; a channel whose running variance is 0 (a
//    dead or constant channel) then gives rsqrt(0) = inf. In training its statistics are float32.
//  - flax.linen.BatchNorm with force_float32_reductions=False (the default, True, keeps them float32)
//    and a float16 dtype (training) or param_dtype (eval).
// An epsilon of 0 is bn-eps-zero's; one that float16 keeps is no finding. KB entry
// numerics/flax-batch-norm-epsilon-vanishes-in-float16.
#include "rules/batchnorm/eps_context.h"
#include "rules/dtype/low_precision.h"

namespace cudnnlint {

namespace {

// `jnp.float16`, `jax.numpy.float16`, `np.float16`, `jnp.half`, "float16": what the code writes for
// float16 (a module field such as `self.dtype` is unknown here: no finding).
bool names_float16(const NormalizationFact& fact, const char* argument) {
  const auto it = fact.literal_args.find(argument);
  if (it == fact.literal_args.end() || !it->second.text) return false;
  const std::string& text = *it->second.text;
  return text == "float16" || text == "half" || text.ends_with(".float16") || text.ends_with(".half");
}

bool is_false(const NormalizationFact& fact, const char* argument) {
  const auto it = fact.literal_args.find(argument);
  return it != fact.literal_args.end() && it->second.boolean == false;
}

}  // namespace

void check_FlaxBnEpsVanishesInHalf(const RuleInput& input, std::vector<Finding>& out) {
  for (const NormalizationFact& fact : input.facts.normalizations) {
    const bool nnx = fact.api == "flax.nnx.BatchNorm" || fact.api == "flax.experimental.nnx.BatchNorm";
    const bool linen = fact.api == "flax.linen.BatchNorm";
    if (!nnx && !linen) continue;
    const auto& ctx = batchnorm::eps_context(fact, input);
    if (!ctx || !(ctx->eps > 0) || !dtype_rules::rounded(DType::Float16, ctx->eps).zero) continue;
    std::string when;
    if (nnx && names_float16(fact, "dtype")) {
      when = "in eval (use_running_average=True) flax >= 0.12.1 casts the float32 running statistics to the "
             "module's float16, so `var + epsilon` is computed in float16";
    } else if (linen && is_false(fact, "force_float32_reductions") &&
               (names_float16(fact, "dtype") || names_float16(fact, "param_dtype"))) {
      when = "with force_float32_reductions=False the statistics are kept in the module's dtype (training) or "
             "param_dtype (eval), float16 here, so `var + epsilon` is computed in float16";
    } else {
      continue;  // float32 statistics: the epsilon is kept
    }
    const std::string detail =
        dtype_rules::rounding_text(DType::Float16, ctx->eps) + "; " + when +
        ", and a channel whose variance is 0 (a dead ReLU channel, constant or zero-padded input) gives "
        "rsqrt(0) = inf, then inf or NaN in the output (measured with flax 0.12.10 and 0.12.8 on the CPU). "
        "Use an epsilon of at least 1e-5, or keep the statistics in float32 (nnx: dtype=jnp.float32 on the "
        "norm layer; linen: the default force_float32_reductions=True)";
    batchnorm::add_eps_finding(*ctx, RuleId::FlaxBnEpsVanishesInHalf, Level::Warning,
                               "rounds to 0 in float16, where this BatchNorm adds it", detail,
                               "flax >= 0.12.1 (nnx eval; linen with force_float32_reductions=False: >= 0.10.7)", out);
  }
}

}  // namespace cudnnlint
