// zero-size-batch-into-layer: a tensor built with a literal batch dimension of 0
// (`tf.zeros([0, 28, 28, 3])`, `tf.constant(np.zeros((0, ...)))`) fed to a TensorFlow or Keras
// convolution or batch norm, or to Keras `model.predict`. What happens (KB
// tensorflow/zero-size-batch-into-cudnn-op): cuDNN rejects a tensor descriptor with n = 0
// (CUDNN_STATUS_BAD_PARAM; replayed by gpu_check's descriptor tier); TensorFlow 1.3/1.4 on a GPU
// handed it to cuDNN and aborted the process (issues #13643, #14657, #14962); TensorFlow 2.21 on
// the CPU returns an empty tensor (measured), and current TensorFlow on a GPU is unmeasured, so
// the layer case is a warning. Keras 3.15.1's predict on zero samples raises UnboundLocalError
// (measured): an error. PyTorch returns an empty tensor for a zero batch and calls no cuDNN
// kernel (measured on torch 2.11.0 + cuDNN 9.19.0): its tensors are not read by this rule.
#include "rules/rule.h"

#include <string>

namespace cudnnlint {

namespace {

std::string shape_text(const std::vector<std::optional<IntegerValue>>& shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) out += ", ";
    out += shape[i] ? std::to_string(shape[i]->value) : "?";
  }
  return out + "]";
}

// The tensor as cuDNN would be handed it: n, c, spatial..., from TensorFlow's channels-last shape.
ReplayConfig zero_batch_replay(const TensorInputFact& fact) {
  ReplayConfig replay;
  replay.op = ReplayOp::TensorDescriptor;
  replay.expect = Expectation::BadParam;
  replay.dtype = DType::Float32;
  replay.assumed.push_back("data type float32 (TensorFlow's default)");
  std::vector<std::int64_t> dims;
  for (std::size_t i = 0; i < fact.shape.size(); ++i) {
    if (fact.shape[i]) {
      dims.push_back(fact.shape[i]->value);
    } else {
      dims.push_back(1);
      replay.assumed.push_back("dimension " + std::to_string(i) + " = 1 (not a constant here)");
    }
  }
  if (dims.size() < 3) {
    replay.unknown = "a tensor of rank " + std::to_string(dims.size()) + " has no cuDNN convolution descriptor";
    return replay;
  }
  // channels_last [n, spatial..., c] -> n, c, spatial...
  replay.input.push_back(dims.front());
  replay.input.push_back(dims.back());
  for (std::size_t i = 1; i + 1 < dims.size(); ++i) replay.input.push_back(dims[i]);
  if (dims.size() == 4) {
    replay.api = "cudnnSetTensor4dDescriptor";
    replay.layout = "NHWC";
  } else {
    replay.api = "cudnnSetTensorNdDescriptor";
    replay.layout = "NCHW";
  }
  return replay;
}

// The framework tier's case for a layer: a Keras Conv2D standing for it, on the GPU, where the
// claim is (cuDNN handed n = 0); channels-last [0, H, W, C] becomes the tier's [0, C, H, W].
FrameworkReplay zero_batch_framework_case(const TensorInputFact& fact) {
  if (fact.shape.size() != 4) return {};
  FrameworkReplay r;
  r.framework = FrameworkName::TensorFlow;
  r.probe = FrameworkProbe::ZeroBatchConv;
  r.expect = FrameworkExpect::Raises;
  r.gpu = true;
  auto dim = [&](std::size_t i, std::int64_t fallback) {
    if (fact.shape[i]) return static_cast<std::int64_t>(fact.shape[i]->value);
    r.assumed.push_back("dimension " + std::to_string(i) + " = " + std::to_string(fallback) + " (not a constant here)");
    return fallback;
  };
  r.input = {0, dim(3, 3), dim(1, 8), dim(2, 8)};
  r.assumed.push_back("a Keras Conv2D(4, 3, padding=\"same\") standing for the layer (the claim is cuDNN's, about n = 0)");
  return r;
}

}  // namespace

void check_ZeroSizeBatchIntoLayer(const RuleInput& input, std::vector<Finding>& out) {
  for (const TensorInputFact& fact : input.facts.tensor_inputs) {
    if (fact.shape.empty() || !fact.shape.front() || fact.shape.front()->value != 0) continue;
    if (fact.framework != "tensorflow" && fact.framework != "keras") continue;
    Finding finding = make_finding(RuleId::ZeroSizeBatchIntoLayer, fact.use);
    const std::string tensor = fact.tensor_text + " (shape " + shape_text(fact.shape) + ", batch dimension 0)";
    const std::string named = fact.variable.empty() ? tensor : "`" + fact.variable + "` = " + tensor;
    // The headline's: the name (or the code), and the layer by its last name.
    const std::string short_name = "`" + clipped(fact.variable.empty() ? fact.tensor_text : fact.variable, 40) + "`";
    const std::size_t dot = fact.consumer.rfind('.');
    const std::string layer = clipped(dot == std::string::npos ? fact.consumer : fact.consumer.substr(dot + 1), 30);
    if (fact.consumer == "keras.Model.predict") {
      finding.level = Level::Error;
      finding.message = short_name + " has batch dimension 0 and is passed to model.predict: Keras raises";
      finding.detail = named + ". With zero samples Keras has no batch to run: Keras 3 raises UnboundLocalError: cannot access local variable 'batch_outputs' (measured on Keras "
                        "3.15.1), Keras 2 raises ValueError: Unexpected result of `predict_function` (Empty batch_outputs) "
                        "(measured on Keras 2.11.0)";
      finding.target_note = "Keras 3 (measured on 3.15.1) and Keras 2 (measured on 2.11.0)";
      finding.replay.unknown = "Keras fails before any layer runs: no cuDNN call is made";
      finding.replay.framework.framework = FrameworkName::TensorFlow;
      finding.replay.framework.probe = FrameworkProbe::KerasPredictEmpty;
      finding.replay.framework.expect = FrameworkExpect::Raises;
      finding.replay.framework.assumed.push_back("a one-layer model (the finding fixes the zero samples only)");
    } else {
      const auto tf = input.target.frameworks.find("tensorflow");
      const bool old_tf = tf != input.target.frameworks.end() && tf->second && tf->second->major < 2 &&
                          tf->second->minor <= 4;
      finding.message = short_name + " has batch dimension 0 and is fed to " + layer + ": cuDNN rejects n = 0";
      finding.detail = named + " is fed to " + fact.consumer + ". cuDNN rejects a tensor with n = 0 (CUDNN_STATUS_BAD_PARAM), and TensorFlow 1.3/1.4 on a GPU handed it to cuDNN and aborted "
                        "the process (\"could not convert BatchDescriptor {count: 0 ...}\"); on the CPU TensorFlow "
                        "2.21 returns an empty tensor (measured), and whether current TensorFlow GPU kernels skip "
                        "empty inputs is unmeasured. Skip empty batches before the layer (tf.cond on tf.shape(x)[0])";
      if (fact.consumer.ends_with("BatchNormalization"))
        finding.detail += ". In training, a BatchNormalization that sees an empty batch raises nothing but turns its "
                          "moving mean and variance into NaN, so every later inference output is NaN (measured on "
                          "Keras 3.15.1 and 2.11.0, CPU)";
      if (old_tf) finding.level = Level::Error;
      finding.target_note = tf != input.target.frameworks.end() && tf->second
                                ? "TensorFlow " + tf->second->str() + input.target.source_note("tensorflow")
                                : "TensorFlow version unknown: pass --framework tensorflow=X.Y";
      finding.replay = zero_batch_replay(fact);
      finding.replay.framework = zero_batch_framework_case(fact);
    }
    if (!fact.variable.empty())
      finding.related.push_back({fact.shape.front()->where, "the batch dimension is " + fact.shape.front()->spelling});
    for (const auto& step : fact.steps) finding.related.push_back({step.where, step.what});
    out.push_back(std::move(finding));
  }
}

}  // namespace cudnnlint
