// torch-conv-dtype-mismatch: a floating libtorch tensor reaching a convolution whose weights
// plainly have another floating type (half input, float32 module). PyTorch checks input against
// bias and weight before any kernel runs (pytorch#142463). KB entry pytorch/conv-input-weight-dtype-mismatch.
#include "rules/replay_configs.h"
#include "rules/rule.h"

namespace cudnnlint {

namespace {

std::string python_type_name(DType dtype) {
  // As PyTorch prints them in this message: "c10::Half", "float", "c10::BFloat16", "double".
  return std::string(torch_cpp_type_name(dtype));
}

// The tensor method that converts to `dtype`: `.float()`, `.half()`, `.double()`, `.bfloat16()`.
std::string conversion_method(DType dtype) {
  switch (dtype) {
    case DType::Float16: return "half";
    case DType::BFloat16: return "bfloat16";
    case DType::Float64: return "double";
    default: return "float";
  }
}

// A Python fact: `x.half()` or `x.double()` into a module built here with float32 weights, or the
// reverse.
Finding python_finding(const TensorInputFact& fact) {
  // Autocast settles half against float32 (it casts a convolution's inputs); not float64 on the CPU.
  const bool reduced = fact.dtype == DType::Float16 || fact.dtype == DType::BFloat16 ||
                       fact.weight_dtype == DType::Float16 || fact.weight_dtype == DType::BFloat16;
  Finding finding = make_finding(RuleId::TorchConvDtypeMismatch, fact.use);
  const std::string what = "`" + clipped(fact.variable.empty() ? fact.tensor_text : fact.variable, 36) + "`";
  const std::string input(dtype_name(fact.dtype)), weights(dtype_name(fact.weight_dtype));
  finding.message = what + " is " + input + " but `" + clipped(fact.consumer_text, 30) + "` has " + weights +
                    " weights: PyTorch raises RuntimeError";
  finding.detail = "The input's type is set by `" + fact.dtype_spelling + "`, and `" + fact.consumer_text + "` (" +
                    fact.consumer + ") has " + weights + " weights, outside any autocast region: PyTorch refuses the mismatch before any kernel runs "
                    "(\"RuntimeError: Input type (" + python_type_name(fact.dtype) + ") and bias type (" +
                    python_type_name(fact.weight_dtype) + ") should be the same\", or \"Input type (...) and weight "
                    "type (...) should be the same\" without a bias); convert one to the other's type (`.to(torch." +
                    input + ")` on the model, or `." + conversion_method(fact.weight_dtype) +
                    "()` on the input)" + (reduced ? ", or run the call under torch.autocast" : "");
  finding.target_note = "every PyTorch version";
  finding.related.push_back({fact.dtype_location, "the input's element type " + input + " is set here"});
  if (fact.weight_dtype_location)
    finding.related.push_back({*fact.weight_dtype_location,
                               fact.weight_dtype == DType::Float32
                                   ? "built here with float32 weights (PyTorch's default) and not converted"
                                   : "the weights become " + weights + " here"});
  for (const auto& step : fact.steps) finding.related.push_back({step.where, step.what});
  finding.replay.unknown = "not a cuDNN configuration: PyTorch refuses it before calling cuDNN";
  finding.replay.framework = input_type_case(FrameworkName::Torch, fact.dtype, fact.weight_dtype, false);
  return finding;
}

}  // namespace

void check_TorchConvDtypeMismatch(const RuleInput& input, std::vector<Finding>& out) {
  for (const TensorInputFact& fact : input.facts.tensor_inputs) {
    if (!is_floating(fact.dtype) || !is_floating(fact.weight_dtype) || fact.dtype == fact.weight_dtype) continue;
    if (fact.framework == "torch") {
      out.push_back(python_finding(fact));
      continue;
    }
    if (fact.framework == "tensorflow" || fact.framework == "keras") continue;
    Finding finding = make_finding(RuleId::TorchConvDtypeMismatch, fact.use);
    std::string what = "this tensor";  // built piece by piece: GCC 12's -Wrestrict false positive on "`" + ...
    if (!fact.variable.empty()) what = std::string("`").append(clipped(fact.variable, 36)).append("`");
    const bool module = fact.consumer.find("::nn::") != std::string::npos &&
                        fact.consumer.find("functional") == std::string::npos;
    const std::string input_type(torch_cpp_type_name(fact.dtype));
    const std::string weight_type(torch_cpp_type_name(fact.weight_dtype));
    finding.message = what + " is torch::" + fact.dtype_spelling + " but " + clipped(fact.consumer, 30) +
                      (module ? "'s parameters are torch::" : "'s weight is torch::") + fact.weight_dtype_spelling +
                      ": PyTorch raises";
    finding.detail = "PyTorch refuses the mismatch before any kernel runs (\"Input type (" + input_type +
                      ") and bias type (" + weight_type +
                      ") should be the same\", or \"... and weight type ...\" without a bias); convert the input or "
                      "the " + (module ? "module (->to(torch::" + fact.dtype_spelling + "))" : "weight") +
                      ", or enable autocast";
    finding.target_note = "every PyTorch version";
    finding.related.push_back({fact.dtype_location, "the element type torch::" + fact.dtype_spelling + " is set here"});
    if (fact.weight_dtype_location)
      finding.related.push_back({*fact.weight_dtype_location,
                                 module ? "constructed here with torch::" + fact.weight_dtype_spelling +
                                              " parameters (libtorch's default) and not converted before the call"
                                        : "the weight's element type torch::" + fact.weight_dtype_spelling +
                                              " is set here"});
    finding.replay.unknown = "not a cuDNN configuration: PyTorch refuses it before calling cuDNN";
    out.push_back(std::move(finding));
  }
}

}  // namespace cudnnlint
