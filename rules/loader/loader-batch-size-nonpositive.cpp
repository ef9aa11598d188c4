// loader-batch-size-nonpositive: a batch size <= 0 reaching a loader, from a literal, a constant,
// another module, a default, argparse or a config file. Every loader in the table refuses it
// before the first batch (measured, tests/probes): PyTorch's DataLoader and BatchSampler at
// construction (ValueError), tf.data's batch/padded_batch when the pipeline is built
// (InvalidArgumentError), transformers when the Trainer builds its DataLoader. Keras 3 takes
// batch_size=0 as "not given" (32 per batch) and fails only on a negative one, so 0 is not
// reported there. `batch_size=None` is PyTorch's "no automatic batching": never a finding.
// KB: data/batch-size-nonpositive.
#include "rules/loader/loader_values.h"

namespace cudnnlint {

void check_LoaderBatchSizeNonpositive(const RuleInput& input, std::vector<Finding>& out) {
  for (const LoaderFact& fact : input.facts.loaders) {
    if (fact.batch_none || !fact.division.empty() || !fact.guard.empty()) continue;
    const auto n = loader::whole(fact.batch);
    if (!n || *n > 0 || fact.batch.source != ValueSource::Explicit) continue;
    const ApiEntry* api = loader::api_of(fact, input.table);
    if (api == nullptr || (*n == 0 && !api->loader.refuses_zero)) continue;
    Finding finding = make_finding(RuleId::LoaderBatchSizeNonpositive, fact.batch.location.value_or(fact.call));
    const std::string framework = loader::framework_name(fact, input.table);
    finding.message = loader::describe(fact.batch_param, fact.batch) + " reaches " + clipped(fact.spelled_as, 30) + ": " +
                      framework + " raises before the first batch";
    finding.detail = loader::origin(fact.batch_param, fact.batch) + framework + " " + loader::refusal(*api, *n) +
                     ", so no batch is ever produced";
    if (api->loader.none_disables_batching) finding.detail += "; to turn automatic batching off, pass batch_size=None";
    finding.target_note = framework + ": the refusal was measured on " + api->loader.measured;
    loader::add_related(finding, fact.batch);
    loader::add_uses(finding, fact);
    finding.replay.unknown = framework + " refuses the batch size itself: no cuDNN call is made";
    if (api->framework_replay)
      finding.replay.framework = loader_case(api->framework, FrameworkExpect::Raises, *n, std::nullopt, false);
    out.push_back(std::move(finding));
  }
}

}  // namespace cudnnlint
