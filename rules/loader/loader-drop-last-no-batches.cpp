// loader-drop-last-no-batches: drop_last=True (PyTorch) or drop_remainder=True (tf.data) with a
// dataset the code makes plain (`range(N)`, a TensorDataset of literal shape, `Subset(ds,
// range(N))`, `Dataset.range(N)`) holding fewer samples than one batch. The loader yields no
// batch at all, silently: len(loader) == 0, the epoch loop never runs, `x / len(loader)` raises
// ZeroDivisionError and OneCycleLR(steps_per_epoch=len(loader)) a ValueError (measured on torch
// 2.11.0); tf.data's cardinality is 0 (measured on tensorflow-cpu 2.21.0).
// KB: data/drop-last-dataset-smaller-than-batch.
#include "rules/loader/loader_values.h"

namespace cudnnlint {

void check_LoaderDropLastNoBatches(const RuleInput& input, std::vector<Finding>& out) {
  for (const LoaderFact& fact : input.facts.loaders) {
    if (!fact.drop_last || !*fact.drop_last || !fact.dataset_size || fact.batch_none) continue;
    auto batch = loader::whole(fact.batch);
    if (!batch || fact.batch.source == ValueSource::NotConstant || fact.batch.source == ValueSource::Unresolvable) continue;
    if (!fact.division.empty()) {
      const auto divisor = loader::whole(fact.divisor);
      if (!divisor || *divisor <= 0 || !fact.guard.empty()) continue;
      *batch /= *divisor;
    }
    const long long samples = fact.dataset_size->value;
    if (*batch <= 0 || samples >= *batch) continue;
    const std::string framework = loader::framework_name(fact, input.table);
    Finding finding = make_finding(RuleId::LoaderDropLastNoBatches, fact.drop_location.value_or(fact.call));
    const bool tf = fact.framework == "tensorflow";
    finding.message = fact.drop_param + "=True with " + std::to_string(samples) +
                      (samples == 1 ? " sample" : " samples") + " and batches of " + std::to_string(*batch) + ": " +
                      clipped(fact.spelled_as, 30) + " yields no batch at all";
    finding.detail = loader::origin(fact.batch_param, fact.batch) + clipped(fact.dataset_text, 60) + " holds " +
                     std::to_string(samples) + (samples == 1 ? " sample" : " samples") + ", fewer than " +
                     (fact.division.empty() ? loader::describe(fact.batch_param, fact.batch)
                                            : "`" + fact.batch_param + "=" + fact.division + "` (= " +
                                                  std::to_string(*batch) + ")") +
                     ", and " + fact.drop_param + "=True drops the last partial batch, silently: " +
                      (tf ? "the dataset's cardinality is 0 and a loop over it never runs (measured on "
                            "tensorflow-cpu 2.21.0)"
                          : "len(loader) == 0, the epoch loop never runs, and code that divides by len(loader) "
                            "or builds OneCycleLR from it fails (ZeroDivisionError, ValueError; measured on torch "
                            "2.11.0)");
    finding.target_note = framework + (tf ? ": measured on tensorflow-cpu 2.21.0" : ": measured on torch 2.11.0");
    for (const auto& step : fact.dataset_size->provenance) finding.related.push_back({step.where, step.what});
    finding.related.push_back({fact.dataset_size->where, fact.dataset_text + " holds " + std::to_string(samples) +
                                                             (samples == 1 ? " sample" : " samples")});
    loader::add_related(finding, fact.batch);
    loader::add_uses(finding, fact);
    finding.replay.unknown = "an empty loader makes no cuDNN call";
    if (const ApiEntry* api = loader::api_of(fact, input.table); api != nullptr && api->framework_replay)
      finding.replay.framework =
          loader_case(api->framework, FrameworkExpect::NoBatches, *batch, samples, true);
    out.push_back(std::move(finding));
  }
}

}  // namespace cudnnlint
