// cudnn-desc-bad-dim: a cuDNN tensor, filter or convolution descriptor set with a zero or
// negative dimension, a negative padding or a non-positive stride or dilation. Measured with the
// real libcudnn 9.19.0 (descriptor calls, no GPU needed; KB entry
// cuda/cudnn-tensor-descriptor-nonpositive-dim): CUDNN_STATUS_BAD_PARAM when the descriptor is set.
#include "rules/replay_configs.h"
#include "rules/rule.h"

#include <string>

namespace cudnnlint {

namespace {

// Whether a convolution parameter value is invalid: paddings must be >= 0, strides and dilations >= 1.
bool invalid_value(const DescriptorFact& fact, const std::string& name, std::int64_t value) {
  if (fact.kind != DescriptorFact::Kind::Convolution) return value <= 0;
  if (name.rfind("pad", 0) == 0) return value < 0;
  return value <= 0;
}

const char* requirement(const DescriptorFact& fact, const std::string& name) {
  if (fact.kind != DescriptorFact::Kind::Convolution) return "every dimension must be at least 1";
  if (name.rfind("pad", 0) == 0) return "padding must not be negative";
  return name.rfind("stride", 0) == 0 ? "strides must be at least 1" : "dilations must be at least 1";
}

}  // namespace

void check_CudnnDescBadDim(const RuleInput& input, std::vector<Finding>& out) {
  for (const DescriptorFact& fact : input.facts.descriptors) {
    for (std::size_t i = 0; i < fact.names.size(); ++i) {
      if (!fact.values[i] || fact.names[i].find("_stride") != std::string::npos) continue;  // strides: layout only
      if (!invalid_value(fact, fact.names[i], fact.values[i]->value)) continue;
      const IntegerValue& value = *fact.values[i];
      Finding finding = make_finding(RuleId::CudnnDescBadDim, value.where);
      finding.message = fact.api + "(" + clipped(fact.descriptor, 20) + ", ...) sets " + fact.names[i] + " = " +
                        clipped(value.spelling, 30) +
                        (value.spelling == std::to_string(value.value) ? "" : " (= " + std::to_string(value.value) + ")") +
                        ": CUDNN_STATUS_BAD_PARAM";
      finding.detail = std::string(requirement(fact, fact.names[i])) +
                       ", so cuDNN returns CUDNN_STATUS_BAD_PARAM (measured with cuDNN 9.19.0)";
      finding.target_note = "every cuDNN version";
      for (const auto& step : value.provenance) finding.related.push_back({step.where, step.what});
      finding.replay = descriptor_replay(fact);
      out.push_back(std::move(finding));
    }
  }
}

}  // namespace cudnnlint
