// single-sample-batch-in-training: a batch of one sample whose shape the code fixes
// (`torch.randn(1, 8)`, `preprocess(img).unsqueeze(0)`) run through a PyTorch model left in training
// mode whose batch norm then sees one value per channel: nn.Linear then nn.BatchNorm1d on a 2-D batch
// ([1, C]), a global pooling to 1 then nn.BatchNorm2d on a 4-D one ([1, C, 1, 1]). F.batch_norm
// refuses that in training, under torch.no_grad() and torch.inference_mode() too: ValueError
// "Expected more than 1 value per channel when training" (measured on torch 2.11.0, CPU; not raised
// in eval() nor for a batch of 2). The usual case: a single image run through a model that was never
// put in eval(). Reads SingleSampleCallFact (python/extract/single_sample_consumer.h). KB entry
// pytorch/batchnorm-single-sample-batch-in-training, which the loader rule of the same failure shares.
#include "rules/rule.h"

#include <string>

namespace cudnnlint {

namespace {

// The framework tier's case: one sample through a batch norm in training, the loader's program with
// a dataset of one sample in batches of one (the batch norm over 4 features stands for the model's).
FrameworkReplay single_sample_case() {
  FrameworkReplay r;
  r.framework = FrameworkName::Torch;
  r.probe = FrameworkProbe::LastBatchIntoBatchNorm;
  r.expect = FrameworkExpect::Raises;
  r.dataset_size = 1;
  r.batch_size = 1;
  r.input = {1, 4};
  r.assumed.push_back("a BatchNorm1d over 4 features in training mode stands for the model's batch norm");
  return r;
}

// "[1, 8]"; "[1, ?, 64, 64]" where a size is not known (0: a transformed image's channels).
std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.size(); ++i)
    out += (i > 0 ? ", " : "") + (shape[i] > 0 ? std::to_string(shape[i]) : std::string("?"));
  return out + "]";
}

}  // namespace

void check_SingleSampleBatchInTraining(const RuleInput& input, std::vector<Finding>& out) {
  for (const SingleSampleCallFact& fact : input.facts.single_sample_calls) {
    Finding finding = make_finding(RuleId::SingleSampleBatchInTraining, fact.call);
    finding.message = "`" + clipped(fact.call_text, 40) +
                      "`: a batch of 1 sample reaches batch norm in training mode, which raises";
    finding.detail = "`" + clipped(fact.batch_text, 60) + "` holds one sample (" + shape_text(fact.shape) +
                     ") and the model stays in training mode, so its batch norm (" + fact.norm_text + ") gets " +
                     fact.norm_input +
                     ": one value per channel. PyTorch raises ValueError: Expected more than 1 value per channel "
                     "when training (measured on torch 2.11.0; also under torch.no_grad()); call model.eval() "
                     "before inference, or run a batch of at least 2";
    finding.target_note = "PyTorch: the check was measured on torch 2.11.0 (CPU)";
    finding.related.push_back({fact.batch, "this batch holds one sample"});
    finding.related.push_back({fact.norm, "this batch norm sees one value per channel"});
    finding.replay.unknown = "PyTorch refuses the batch in Python before any cuDNN call";
    finding.replay.framework = single_sample_case();
    out.push_back(std::move(finding));
  }
}

}  // namespace cudnnlint
