// conv-input-smaller-than-kernel: a tensor whose spatial size the code fixes, run through a stack
// of layers the code lists, reaches a convolution (or a pooling layer: PyTorch's, or Keras' in a
// graph built on its input's shape) smaller than its dilated kernel. Measured on CPU over a grid of
// sizes, kernels, strides, paddings and dilations (tests/probes/torch_shapes.py on torch 2.11.0: 630
// convolutions, 924 max and 462 average pools, 0 disagreements with the formulas;
// tests/probes/tf_shapes.py on TensorFlow 2.21 / Keras 3.15.1: 140 'valid' and 140 'same' Conv2D,
// 240 pools in built graphs): PyTorch raises, Keras raises while building the model, and
// cuDNN returns CUDNN_STATUS_BAD_PARAM for the same geometry (gpu_check's descriptor tier replays
// it). libtorch throws the same ATen message (tests/probes/libtorch_shapes.cpp, built against the
// torch 2.11.0 wheel's libtorch: 630 convolutions, 0 disagreements). KB entry
// shapes/conv-input-smaller-than-kernel. Reads ShapeChainFact only.
#include "rules/replay_configs.h"
#include "rules/rule.h"
#include "core/sizes_text.h"

#include <algorithm>
#include <string>

namespace cudnnlint {

namespace {


// "4×4 → conv 3×3 → 2×2 → maxpool 2 → 1×1 → conv 3×3 → −1×−1"
std::string chain_text(const ShapeChainFact& chain) {
  std::string out = sizes_text(chain.input_spatial);
  for (const ShapeStep& step : chain.steps) {
    // Layers that keep the size are named in the related locations, not in the chain.
    if (step.label.rfind("conv", 0) != 0 && step.label.rfind("maxpool", 0) != 0 && step.label.rfind("avgpool", 0) != 0)
      continue;
    out += " → " + step.label + " → " + sizes_text(step.output);
  }
  return out;
}

// "1 x 1" (PyTorch's own spelling of sizes in its messages) or "4x1x1" with the channels.
std::string torch_sizes(const std::vector<std::int64_t>& sizes, const char* separator) {
  std::string out;
  for (std::size_t i = 0; i < sizes.size(); ++i) out += (i > 0 ? separator : "") + std::to_string(sizes[i]);
  return out;
}

// What the framework says, as measured (first line of the exception).
std::string framework_message(const ShapeChainFact& chain) {
  if (chain.framework == "torch") {
    if (chain.rejected_by == "pool") {
      const std::string c = chain.channels > 0 ? std::to_string(chain.channels) + "x" : "";
      // PyTorch prints the output size as it computes it, negative ones included (a window of 8
      // with stride 1 on 2×2: -5×-5), measured with torch 2.11.0.
      const std::vector<std::int64_t>& output = chain.steps.back().output;
      std::vector<std::int64_t> reaching = chain.steps.size() >= 2 ? chain.steps[chain.steps.size() - 2].output
                                                                   : chain.input_spatial;
      return "PyTorch raises `RuntimeError: Given input size: (" + c + torch_sizes(reaching, "x") +
             "). Calculated output size: (" + c + torch_sizes(output, "x") +
             "). Output size is too small` (measured with torch 2.11.0)";
    }
    return "PyTorch raises `RuntimeError: Calculated padded input size per channel: (" +
           torch_sizes(chain.padded_input, " x ") + "). Kernel size: (" + torch_sizes(chain.kernel_extent, " x ") +
           "). Kernel size can't be greater than actual input size` (measured with torch 2.11.0)";
  }
  if (chain.framework == "libtorch") {
    return "libtorch throws `c10::Error: Calculated padded input size per channel: (" +
           torch_sizes(chain.padded_input, " x ") + "). Kernel size: (" + torch_sizes(chain.kernel_extent, " x ") +
           "). Kernel size can't be greater than actual input size` (measured with the libtorch of the torch 2.11.0 "
           "wheel)";
  }
  if (chain.framework == "tensorflow") {
    const std::int64_t in = chain.padded_input.empty() ? 0 : chain.padded_input.front();
    const std::int64_t k = chain.kernel_extent.empty() ? 0 : chain.kernel_extent.front();
    return "TensorFlow raises `InvalidArgumentError: Computed output size would be negative: ... [input_size: " +
           std::to_string(in) + ", effective_filter_size: " + std::to_string(k) +
           ", stride: ...]` when run eagerly (measured with TensorFlow 2.21)";
  }
  return "Keras raises `ValueError: Computed output size would be zero or negative` while building the model "
         "(measured with TensorFlow 2.21, Keras 3.15.1)";
}

// The framework tier's case: the rejecting convolution, built with the geometry the code gives it,
// on an input of the size that reaches it (a batch of one). Only where every number is known, and
// for the layers the tier's program builds (PyTorch's convolutions, Keras' Conv layers).
FrameworkReplay conv_case(const ShapeChainFact& chain, const std::vector<std::int64_t>& reaching) {
  const ConvGeometryFact& conv = chain.conv;
  if (chain.rejected_by == "pool" && chain.framework == "torch" && chain.padded_input.size() == chain.kernel_extent.size() &&
      !chain.kernel_extent.empty()) {
    // PyTorch's pooling layers refuse a window past the (padded) input alike: max pooling stands for them.
    FrameworkReplay r;
    r.framework = FrameworkName::Torch;
    r.probe = FrameworkProbe::PoolInput;
    r.expect = FrameworkExpect::Raises;
    r.input = {1, chain.channels > 0 ? chain.channels : 1};
    r.input.insert(r.input.end(), chain.padded_input.begin(), chain.padded_input.end());
    r.kernel = chain.kernel_extent;
    r.assumed.push_back("a batch of one, max pooling standing for the layer's kind of pooling");
    if (chain.channels <= 0) r.assumed.push_back("one channel");
    return r;
  }
  if (chain.rejected_by != "conv" || (chain.framework != "torch" && chain.framework != "keras")) return {};
  const std::int64_t channels = conv.in_channels ? conv.in_channels->value : chain.channels;
  if (channels <= 0 || !conv.out_channels || reaching.size() != static_cast<std::size_t>(conv.spatial_dims)) return {};
  if (conv.groups && conv.groups->value != 1) return {};
  FrameworkReplay r;
  r.framework = framework_named(chain.framework);
  r.probe = FrameworkProbe::ConvInput;
  r.expect = FrameworkExpect::Raises;
  r.out_channels = conv.out_channels->value;
  r.input = {1, channels};
  r.input.insert(r.input.end(), reaching.begin(), reaching.end());
  auto read = [&](const std::vector<std::optional<IntegerValue>>& from, std::vector<std::int64_t>& to) {
    for (const auto& v : from) {
      if (!v) return false;
      to.push_back(v->value);
    }
    return to.empty() || to.size() == reaching.size();
  };
  if (!read(conv.kernel, r.kernel) || r.kernel.empty() || !read(conv.stride, r.stride) ||
      !read(conv.padding, r.padding) || !read(conv.dilation, r.dilation))
    return {};
  r.assumed.push_back("a batch of one");
  return r;
}

}  // namespace

void check_ConvInputSmallerThanKernel(const RuleInput& input, std::vector<Finding>& out) {
  for (const ShapeChainFact& chain : input.facts.shape_chains) {
    if (chain.steps.empty() || chain.rejected_by.empty()) continue;
    const ShapeStep& last = chain.steps.back();
    // The size that reaches the rejecting layer: the output of the step before it, or the input.
    std::vector<std::int64_t> reaching = chain.input_spatial;
    if (chain.steps.size() >= 2) reaching = chain.steps[chain.steps.size() - 2].output;
    Finding finding = make_finding(RuleId::ConvInputSmallerThanKernel, last.where);
    const std::string what = chain.rejected_by == "conv" ? "convolution" : "pooling layer";
    const bool padded = chain.padded_input != reaching;
    const bool dilated = std::any_of(chain.conv.dilation.begin(), chain.conv.dilation.end(),
                                     [](const std::optional<IntegerValue>& d) { return d && d->value > 1; });
    // A layer built in a loop or a helper: the numbers that run gave its names ("with c = 64").
    const auto bound = [](const ShapeStep& step) { return step.bindings.empty() ? "" : " (with " + step.bindings + ")"; };
    finding.message = "`" + clipped(last.text, 40) + "` gets a " + sizes_text(reaching) + " input" +
                      (padded ? " (" + sizes_text(chain.padded_input) + " padded)" : "") + ", smaller than its " +
                      sizes_text(chain.kernel_extent) + (chain.rejected_by == "conv" ? " kernel" : " window");
    finding.detail = "`" + last.text + "`" + bound(last) + " gets its input from `" + chain.source_text + "`" +
                     (dilated && chain.rejected_by == "conv" ? "; its kernel extent includes the dilation" : "") + ": " +
                     chain_text(chain) + ". " + framework_message(chain);
    if (chain.rejected_by == "conv")
      finding.detail += "; cuDNN returns CUDNN_STATUS_BAD_PARAM for this " + what + " (measured with cuDNN 9.19.0)";
    finding.target_note = chain.framework == "torch"        ? "PyTorch (torch 2.11.0 measured)"
                          : chain.framework == "libtorch"   ? "libtorch (the torch 2.11.0 wheel's, measured)"
                          : chain.framework == "tensorflow" ? "TensorFlow (2.21 measured)"
                                                            : "Keras 3 (3.15.1 measured)";
    finding.related.push_back({chain.source, "the input's size is fixed here: " + sizes_text(chain.input_spatial) +
                                                 (chain.layout == "NHWC" ? " (channels last)" : "")});
    // `IMG_SIZE = 6 is defined here`, once per definition.
    for (const ProvenanceStep& step : chain.source_provenance)
      if (std::none_of(finding.related.begin(), finding.related.end(),
                       [&](const RelatedLocation& r) {
                         return r.message == step.what && r.where.path == step.where.path &&
                                r.where.range.begin.byte_offset == step.where.range.begin.byte_offset;
                       }))
        finding.related.push_back({step.where, step.what});
    for (std::size_t i = 0; i + 1 < chain.steps.size(); ++i)
      finding.related.push_back(
          {chain.steps[i].where,
           "after `" + chain.steps[i].text + "`" + bound(chain.steps[i]) + ": " + sizes_text(chain.steps[i].output)});
    if (chain.rejected_by == "conv") finding.replay = convolution_replay(chain.conv);
    finding.replay.framework = conv_case(chain, reaching);
    out.push_back(std::move(finding));
  }
}

}  // namespace cudnnlint
