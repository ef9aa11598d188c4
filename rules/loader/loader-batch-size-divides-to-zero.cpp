// loader-batch-size-divides-to-zero: a per-device batch size computed by integer division
// (`batch_size // world_size`, `int(batch_size / n_gpus)`, darknet's `batch // subdivisions`)
// whose operands the code, its defaults or its configs fix, and whose result is 0. The loader
// then refuses it as loader-batch-size-nonpositive describes (Keras silently uses 32 instead).
// A divisor known only at run time (`dist.get_world_size()`, `strategy.num_replicas_in_sync`)
// is never guessed, and a guard on the operands in the same function (`if bs < 1: bs = 1`,
// `max(1, ...)` around the result) keeps the rule quiet; an assert or an if that only raises does
// not (the program fails there instead, which the message says). KB: data/batch-size-integer-division-zero.
#include "rules/loader/loader_values.h"

namespace cudnnlint {

void check_LoaderBatchSizeDividesToZero(const RuleInput& input, std::vector<Finding>& out) {
  for (const LoaderFact& fact : input.facts.loaders) {
    if (fact.division.empty() || !fact.guard.empty()) continue;
    const auto a = loader::whole(fact.batch), b = loader::whole(fact.divisor);
    if (!a || !b || *a < 0 || *b <= 0 || *a / *b != 0) continue;
    if (fact.batch.source != ValueSource::Explicit || fact.divisor.source != ValueSource::Explicit) continue;
    const ApiEntry* api = loader::api_of(fact, input.table);
    if (api == nullptr) continue;
    const std::string framework = loader::framework_name(fact, input.table);
    Finding finding = make_finding(RuleId::LoaderBatchSizeDividesToZero, fact.division_location.value_or(fact.call));
    finding.message = std::string("`").append(clipped(fact.division, 40)).append("` is ") + std::to_string(*a) + " // " +
                      std::to_string(*b) +
                      " = 0, the " + fact.batch_param + " of " + clipped(fact.spelled_as, 30) + ": " +
                      (api->loader.refuses_zero ? framework + " raises" : framework + " silently uses 32");
    finding.detail = loader::origin("dividend", fact.batch) + loader::origin("divisor", fact.divisor);
    if (api->loader.refuses_zero) {
      finding.detail += framework + " " + loader::refusal(*api, 0);
    } else {
      finding.level = Level::Warning;
      finding.detail += framework + " takes batch_size=0 as not given and uses batches of 32, not the " +
                        std::to_string(*a) + " / " + std::to_string(*b) + " per replica intended (measured on " +
                        api->loader.measured + ")";
    }
    // An assert or an if that only raises is no guard: the program stops there instead.
    if (!fact.raising_check.empty())
      finding.detail += "; before that, `" + fact.raising_check + "` stops the program with its own error";
    finding.detail += "; guard it with max(1, ...) or check that the dividend is at least the divisor";
    finding.target_note = framework + ": the refusal was measured on " + api->loader.measured;
    loader::add_related(finding, fact.batch);
    loader::add_related(finding, fact.divisor);
    loader::add_uses(finding, fact);
    finding.replay.unknown = framework + " refuses the batch size itself: no cuDNN call is made";
    if (api->framework_replay && api->loader.refuses_zero)
      finding.replay.framework = loader_case(api->framework, FrameworkExpect::Raises, 0, std::nullopt, false);
    out.push_back(std::move(finding));
  }
}

}  // namespace cudnnlint
