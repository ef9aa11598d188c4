// cudnn-conv-output-empty: a convolution whose output size, computed as cuDNN computes it, is
// below 1 along some axis: the (dilated) filter is larger than the padded input. Measured with
// the real libcudnn 9.19.0 (KB entry cuda/cudnn-conv-output-size-nonpositive): 540 shapes agree
// with this formula, and cudnnGetConvolution2dForwardOutputDim returns BAD_PARAM for each of them.
// Reads the language-neutral convolution geometry: any front-end that fixes the input size fills it.
#include "rules/replay_configs.h"
#include "rules/rule.h"

#include <string>

namespace cudnnlint {

namespace {

std::string axis_name(std::size_t axis, std::size_t count) {
  static const char* names3[] = {"d", "h", "w"};
  static const char* names2[] = {"h", "w"};
  if (count == 3) return names3[axis];
  if (count == 2) return names2[axis];
  return "w";
}

std::optional<std::int64_t> at(const std::vector<std::optional<IntegerValue>>& values, std::size_t i) {
  if (i >= values.size() || !values[i]) return std::nullopt;
  return values[i]->value;
}

}  // namespace

void check_CudnnConvOutputEmpty(const RuleInput& input, std::vector<Finding>& out) {
  for (const ConvGeometryFact& conv : input.facts.conv_geometries) {
    const std::size_t axes = conv.kernel.size();
    if (axes == 0 || conv.input.size() != axes + 2 || conv.padding_mode == "same") continue;
    for (std::size_t axis = 0; axis < axes; ++axis) {
      const auto in = at(conv.input, axis + 2);
      const auto filter = at(conv.kernel, axis);
      const auto pad = conv.padding_mode == "valid" ? std::optional<std::int64_t>(0) : at(conv.padding, axis);
      const auto stride = at(conv.stride, axis);
      const auto dilation = at(conv.dilation, axis);
      if (!in || !filter || !pad || !stride || !dilation) continue;
      // Invalid values are cudnn-desc-bad-dim's.
      if (*in <= 0 || *filter <= 0 || *pad < 0 || *stride <= 0 || *dilation <= 0) continue;
      const std::int64_t extent = (*filter - 1) * *dilation + 1;
      // cuDNN rounds down (measured: 2x2 input, 3x3 filter, stride 2 is BAD_PARAM); C++ `/` would
      // truncate toward zero and call that output 1.
      const std::int64_t numerator = *in + 2 * *pad - extent;
      const std::int64_t quotient = numerator / *stride - ((numerator % *stride != 0 && numerator < 0) ? 1 : 0);
      const std::int64_t output = 1 + quotient;
      if (output >= 1) continue;
      const std::string a = axis_name(axis, axes);
      Finding finding = make_finding(RuleId::CudnnConvOutputEmpty, conv.call);
      finding.message = "convolution output " + a + " = " + std::to_string(output) + " (input " + std::to_string(*in) +
                        ", filter " + std::to_string(*filter) + ", pad " + std::to_string(*pad) + "): " + conv.api +
                        " returns BAD_PARAM";
      finding.detail = "The output " + a + " is 1 + (" + std::to_string(*in) + " + 2*" +
                        std::to_string(*pad) + " - ((" + std::to_string(*filter) + "-1)*" +
                        std::to_string(*dilation) + " + 1)) / " + std::to_string(*stride) + " = " +
                        std::to_string(output) + " (rounding down)" +
                        ": the filter is larger than the padded input, and cuDNN returns CUDNN_STATUS_BAD_PARAM "
                        "(measured with cuDNN 9.19.0)";
      finding.target_note = "every cuDNN version";
      if (const auto& v = conv.input[axis + 2])
        finding.related.push_back({v->where, "input " + a + " = " + v->spelling + " set by " + conv.input_set_by});
      if (const auto& v = conv.kernel[axis])
        finding.related.push_back({v->where, "filter " + a + " = " + v->spelling + " set by " + conv.filter_set_by});
      if (axis < conv.padding.size() && conv.padding[axis])
        finding.related.push_back({conv.padding[axis]->where,
                                   "pad_" + a + " = " + conv.padding[axis]->spelling + " set by " + conv.params_set_by});
      finding.replay = convolution_replay(conv);
      out.push_back(std::move(finding));
      break;  // one finding per convolution: the first axis that fails
    }
  }
}

}  // namespace cudnnlint
