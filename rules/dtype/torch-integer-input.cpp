// torch-integer-input: a libtorch tensor of an integer element type fed to a convolution or
// batch norm. PyTorch refuses it (the wording depends on the path: weight type, bias type or
// "expected scalar type"); its cuDNN convolution has no integer path at all (pytorch#107751).
// KB entry pytorch/integer-input-to-conv-or-batchnorm.
#include "rules/rule.h"

namespace cudnnlint {

void check_TorchIntegerInput(const RuleInput& input, std::vector<Finding>& out) {
  for (const TensorInputFact& fact : input.facts.tensor_inputs) {
    if (!is_integer(fact.dtype)) continue;  // floating inputs: torch-conv-dtype-mismatch
    Finding finding = make_finding(RuleId::TorchIntegerInput, fact.use);
    const std::string what = fact.variable.empty() ? "this tensor" : "`" + fact.variable + "`";
    finding.message = what + " has the integer element type torch::" + fact.dtype_spelling + " and reaches " +
                      fact.consumer +
                      ", whose weights are floating point: PyTorch rejects it with a RuntimeError (\"Input type "
                      "(CUDAByteType) and weight type (CUDAFloatType) should be the same\", \"... and bias type ...\" "
                      "or \"expected scalar type ...\", depending on the path) and has no integer cuDNN "
                      "convolution; convert with .to(torch::kFloat) first";
    finding.target_note = "every PyTorch version";
    finding.related.push_back(
        {fact.dtype_location, "the element type torch::" + fact.dtype_spelling + " is set here"});
    finding.replay.unknown = "not a cuDNN configuration: PyTorch refuses an integer input before calling cuDNN";
    out.push_back(std::move(finding));
  }
}

}  // namespace cudnnlint
