// cuDNN descriptor rules for C++/CUDA code. Measured with the real libcudnn 9.19.0 (descriptor
// calls, no GPU needed; KB entries cuda/cudnn-tensor-descriptor-nonpositive-dim and
// cuda/cudnn-conv-output-size-nonpositive): a zero or negative n/c/h/w in a tensor or filter
// descriptor, a negative padding or a zero stride is CUDNN_STATUS_BAD_PARAM when the descriptor
// is set; cudnnGetConvolution2dForwardOutputDim returns BAD_PARAM when the output would be < 1.
#include "rules/descriptor_values.h"
#include "rules/replay_configs.h"
#include "rules/rule.h"

#include <optional>
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

void add_related(Finding& finding, const IntegerValue& value, const std::string& name) {
  for (const auto& step : value.provenance) finding.related.push_back({step.where, step.what});
  (void)name;
}

}  // namespace

void check_cudnn_descriptors(const FileFacts& facts, const Target& target, std::vector<Finding>& out) {
  (void)target;  // the verdicts hold for every cuDNN version measured or documented
  const RuleInfo* bad_dim = find_rule("cudnn-desc-bad-dim");
  for (const DescriptorFact& fact : facts.descriptors) {
    for (std::size_t i = 0; i < fact.names.size(); ++i) {
      if (!fact.values[i] || fact.names[i].find("_stride") != std::string::npos) continue;  // strides: layout only
      if (!invalid_value(fact, fact.names[i], fact.values[i]->value)) continue;
      const IntegerValue& value = *fact.values[i];
      Finding finding = make_finding(*bad_dim, value.where);
      finding.message = fact.api + "(" + fact.descriptor + ", ...) sets " + fact.names[i] + " = " + value.spelling +
                        (value.spelling == std::to_string(value.value) ? "" : " (= " + std::to_string(value.value) + ")") +
                        ": " + requirement(fact, fact.names[i]) +
                        ", so cuDNN returns CUDNN_STATUS_BAD_PARAM (measured with cuDNN 9.19.0)";
      finding.target_note = "every cuDNN version";
      add_related(finding, value, fact.names[i]);
      finding.replay = descriptor_replay(fact);
      out.push_back(std::move(finding));
    }
  }

  const RuleInfo* empty = find_rule("cudnn-conv-output-empty");
  for (const ConvolutionFact& conv : facts.convolutions) {
    for (const char* axis : {"h", "w"}) {
      const std::string a(axis);
      const auto in = value_named(conv.input, a);
      const auto filter = value_named(conv.filter, a);
      const auto pad = value_named(conv.convolution, "pad_" + a);
      const auto stride = value_named(conv.convolution, "stride_" + a);
      const auto dilation = value_named(conv.convolution, "dilation_" + a);
      if (!in || !filter || !pad || !stride || !dilation) continue;
      // Invalid inputs are reported by cudnn-desc-bad-dim already.
      if (*in <= 0 || *filter <= 0 || *pad < 0 || *stride <= 0 || *dilation <= 0) continue;
      const std::int64_t extent = (*filter - 1) * *dilation + 1;
      // cuDNN rounds down (measured: 2x2 input, 3x3 filter, stride 2 is BAD_PARAM); C++ `/` would
      // truncate toward zero and call that output 1.
      const std::int64_t numerator = *in + 2 * *pad - extent;
      const std::int64_t quotient = numerator / *stride - ((numerator % *stride != 0 && numerator < 0) ? 1 : 0);
      const std::int64_t output = 1 + quotient;
      if (output >= 1) continue;
      Finding finding = make_finding(*empty, conv.call);
      finding.message = conv.api + ": the convolution's output " + a + " is 1 + (" + std::to_string(*in) + " + 2*" +
                        std::to_string(*pad) + " - ((" + std::to_string(*filter) + "-1)*" + std::to_string(*dilation) +
                        " + 1)) / " + std::to_string(*stride) + " = " + std::to_string(output) +
                        " (rounding down)" +
                        ": the filter is larger than the padded input, and cuDNN returns CUDNN_STATUS_BAD_PARAM "
                        "(measured with cuDNN 9.19.0)";
      finding.target_note = "every cuDNN version";
      if (const IntegerValue* v = integer_named(conv.input, a))
        finding.related.push_back({v->where, "input " + a + " = " + v->spelling + " set by " + conv.input.api});
      if (const IntegerValue* v = integer_named(conv.filter, a))
        finding.related.push_back({v->where, "filter " + a + " = " + v->spelling + " set by " + conv.filter.api});
      if (const IntegerValue* v = integer_named(conv.convolution, "pad_" + a))
        finding.related.push_back({v->where, "pad_" + a + " = " + v->spelling + " set by " + conv.convolution.api});
      finding.replay = convolution_replay(conv);
      out.push_back(std::move(finding));
      break;  // one finding per convolution: the first axis that fails
    }
  }
}

}  // namespace cudnnlint
