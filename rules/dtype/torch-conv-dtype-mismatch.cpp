// torch-conv-dtype-mismatch: a floating libtorch tensor reaching a convolution whose weights
// plainly have another floating type (half input, float32 module). PyTorch checks input against
// bias and weight before any kernel runs (pytorch#142463). KB entry pytorch/conv-input-weight-dtype-mismatch.
#include "rules/rule.h"

namespace cudnnlint {

void check_TorchConvDtypeMismatch(const RuleInput& input, std::vector<Finding>& out) {
  for (const TensorInputFact& fact : input.facts.tensor_inputs) {
    if (!is_floating(fact.dtype) || !is_floating(fact.weight_dtype) || fact.dtype == fact.weight_dtype) continue;
    Finding finding = make_finding(RuleId::TorchConvDtypeMismatch, fact.use);
    const std::string what = fact.variable.empty() ? "this tensor" : "`" + fact.variable + "`";
    const bool module = fact.consumer.find("::nn::") != std::string::npos &&
                        fact.consumer.find("functional") == std::string::npos;
    const std::string input_type(torch_cpp_type_name(fact.dtype));
    const std::string weight_type(torch_cpp_type_name(fact.weight_dtype));
    finding.message = what + " has the element type torch::" + fact.dtype_spelling + " but " + fact.consumer +
                      (module ? "'s parameters are torch::" : "'s weight is torch::") + fact.weight_dtype_spelling +
                      ": PyTorch refuses the mismatch before any kernel runs (\"Input type (" + input_type +
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
