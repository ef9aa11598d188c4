// loader-last-batch-single-sample: a PyTorch DataLoader whose dataset size N and batch size B the
// code makes plain, with N % B == 1 and drop_last=False, so the last batch of every epoch holds one
// sample, iterated in the same function into a model left in training mode whose batch norm then
// sees one value per channel (nn.Linear then nn.BatchNorm1d: input [1, C]; global pooling then
// nn.BatchNorm2d: [1, C, 1, 1]). F.batch_norm refuses that in training: ValueError "Expected more
// than 1 value per channel when training" (measured on torch 2.11.0, CPU and CUDA; not raised for
// [1, C, 2, 2] nor in eval mode). Reported only where both sides are plain in one file. A batch size
// of 1 makes every batch such a batch, whatever the dataset's size and drop_last.
// KB: pytorch/batchnorm-single-sample-batch-in-training.
#include "rules/loader/loader_values.h"

namespace cudnnlint {

namespace {

// The framework tier's case: the loader's last batch through a batch norm in training. The
// finding names the batch norm, not its width: 4 features are assumed (the check does not read it).
FrameworkReplay last_batch_case(long long samples, long long batch, bool samples_assumed) {
  FrameworkReplay r;
  r.framework = FrameworkName::Torch;
  r.probe = FrameworkProbe::LastBatchIntoBatchNorm;
  r.expect = FrameworkExpect::Raises;
  r.dataset_size = samples;
  r.batch_size = batch;
  r.input = {1, 4};
  r.assumed.push_back("a BatchNorm1d over 4 features (the check does not depend on the width)");
  if (samples_assumed) r.assumed.push_back("a dataset of " + std::to_string(samples) + " samples (with batches of 1, its size does not decide)");
  return r;
}

// The notes both findings share: the batch size, where the batches reach the model, its batch norm.
void add_batch_and_model(Finding& finding, const LoaderFact& fact) {
  loader::add_related(finding, fact.batch);
  if (!fact.division.empty()) loader::add_related(finding, fact.divisor);
  finding.related.push_back({*fact.feeds, "the loader's batches reach the model here"});
  finding.related.push_back({*fact.single_sample_norm, "this batch norm sees one value per channel"});
  loader::add_uses(finding, fact);
  finding.replay.unknown = "PyTorch refuses the batch in Python before any cuDNN call";
}

// A batch size of one: every batch, not only the last, holds one sample; drop_last cannot help.
Finding every_batch_single(const LoaderFact& fact) {
  Finding finding = make_finding(RuleId::LoaderLastBatchSingleSample, fact.call);
  finding.message = (fact.division.empty() ? loader::describe(fact.batch_param, fact.batch)
                                           : "`" + fact.batch_param + "=" + clipped(fact.division, 30) + "` = 1") +
                    ": batches of 1 sample reach batch norm in training, which raises";
  finding.detail = loader::origin(fact.batch_param, fact.batch) + "Every batch holds 1 sample, and " + fact.feeds_text +
                   " feeds it to " + fact.single_sample_norm_text +
                   " in training mode, where each channel then has one value: "
                   "PyTorch raises ValueError: Expected more than 1 value per channel when training (measured on "
                    "torch 2.11.0); use a batch size of at least 2 (drop_last does not help here)";
  finding.target_note = "PyTorch: the check was measured on torch 2.11.0 (CPU and CUDA)";
  add_batch_and_model(finding, fact);
  finding.replay.framework = fact.dataset_size && fact.dataset_size->value >= 1 && fact.dataset_size->value <= (1 << 20)
                                 ? last_batch_case(fact.dataset_size->value, 1, false)
                                 : last_batch_case(8, 1, true);
  return finding;
}

}  // namespace

void check_LoaderLastBatchSingleSample(const RuleInput& input, std::vector<Finding>& out) {
  for (const LoaderFact& fact : input.facts.loaders) {
    if (fact.framework != "torch" || !fact.single_sample_norm || !fact.feeds || !fact.guard.empty()) continue;
    auto batch = loader::whole(fact.batch);
    if (!batch || *batch <= 0 || fact.batch.source == ValueSource::NotConstant) continue;
    // `GLOBAL_BATCH // WORLD_SIZE` (also `int(a / b)`, `math.floor(a / b)`): the floor of the
    // quotient of two known positive integers.
    if (!fact.division.empty()) {
      const auto divisor = loader::whole(fact.divisor);
      if (!divisor || *divisor <= 0 || fact.divisor.source == ValueSource::NotConstant) continue;
      batch = *batch / *divisor;
      if (*batch <= 0) continue;  // loader-batch-size-divides-to-zero's
    }
    if (*batch == 1) {
      out.push_back(every_batch_single(fact));
      continue;
    }
    if (!fact.dataset_size || !fact.drop_last || *fact.drop_last) continue;
    const long long samples = fact.dataset_size->value;
    if (samples <= 0 || samples % *batch != 1) continue;
    Finding finding = make_finding(RuleId::LoaderLastBatchSingleSample, fact.drop_location.value_or(fact.call));
    const std::string split = samples == 1 ? "the only batch holds 1 sample"
                                           : "the last batch of every epoch holds 1 sample (" + std::to_string(samples) +
                                                 " = " + std::to_string(samples / *batch) + " x " +
                                                 std::to_string(*batch) + " + 1)";
    finding.message = std::to_string(samples) + " samples in batches of " + std::to_string(*batch) + " (" +
                      fact.drop_param + "=False): " + (samples == 1 ? "the only" : "the last") +
                      " batch has 1 sample, and batch norm in training raises";
    finding.detail = loader::origin(fact.batch_param, fact.batch) + clipped(fact.dataset_text, 60) + " holds " +
                      std::to_string(samples) + " samples and " +
                      (fact.division.empty() ? loader::describe(fact.batch_param, fact.batch)
                                             : fact.batch_param + "=" + fact.division + " = " + std::to_string(*batch)) +
                      " keeps the partial batch (" + fact.drop_param +
                      "=False): " + split + ", and " + fact.feeds_text + " feeds it to " +
                      fact.single_sample_norm_text + " in training mode, where each channel then has one value: "
                      "PyTorch raises ValueError: Expected more than 1 value per channel when training (measured on "
                      "torch 2.11.0); pass drop_last=True or a batch size that leaves more than one sample";
    finding.target_note = "PyTorch: the check was measured on torch 2.11.0 (CPU and CUDA)";
    for (const auto& step : fact.dataset_size->provenance) finding.related.push_back({step.where, step.what});
    finding.related.push_back({fact.dataset_size->where, fact.dataset_text + " holds " + std::to_string(samples) +
                                                             " samples"});
    add_batch_and_model(finding, fact);
    finding.replay.framework = last_batch_case(samples, *batch, false);
    // The KB's workaround: drop the partial batch (one sample fewer per epoch).
    if (fact.call.path.ends_with(".py")) {
      Fix fix{"set drop_last=True (the last sample of each epoch is not trained on)", false, {},
              /*file_hash: set by settle_fix*/ {}};
      if (fact.drop_location) {
        fix.edits.push_back({fact.drop_location->range, "True", "False", false});
      } else {
        SourceRange before_paren{fact.call.range.end, fact.call.range.end};
        for (Position* p : {&before_paren.begin, &before_paren.end}) {
          --p->byte_offset;
          --p->column;
          --p->column_utf16;
        }
        fix.edits.push_back({before_paren, fact.drop_param + "=True", "", true});
      }
      finding.fix = std::move(fix);
    }
    out.push_back(std::move(finding));
  }
}

}  // namespace cudnnlint
