// libtorch: a floating tensor reaching a convolution whose weights plainly have another floating type
// (half input, float32 module). PyTorch checks input against bias and weight before any kernel
// runs (pytorch#142463). KB entry pytorch/conv-input-weight-dtype-mismatch.
#include "rules/rule.h"
#include "rules/torch_dtypes.h"

namespace cudnnlint {

namespace {

// "kHalf" -> "c10::Half", as PyTorch prints dtype names in the bias message.
std::string cpp_type_name(const std::string& dtype) {
  if (dtype == "kHalf" || dtype == "kFloat16") return "c10::Half";
  if (dtype == "kBFloat16") return "c10::BFloat16";
  if (dtype == "kDouble" || dtype == "kFloat64") return "double";
  return "float";
}

}  // namespace

void check_torch_conv_dtype_mismatch(const FileFacts& facts, const Target& target, std::vector<Finding>& out) {
  (void)target;
  const RuleInfo* rule = find_rule("torch-conv-dtype-mismatch");
  for (const TensorInputFact& fact : facts.tensor_inputs) {
    if (!is_floating_dtype(fact.dtype) || !is_floating_dtype(fact.weight_dtype)) continue;
    if (canonical_dtype(fact.dtype) == canonical_dtype(fact.weight_dtype)) continue;
    Finding finding = make_finding(*rule, fact.use);
    const std::string what = fact.variable.empty() ? "this tensor" : "`" + fact.variable + "`";
    const bool module = fact.consumer.find("::nn::") != std::string::npos &&
                        fact.consumer.find("functional") == std::string::npos;
    finding.message = what + " has the element type torch::" + fact.dtype + " but " + fact.consumer +
                      (module ? "'s parameters are torch::" : "'s weight is torch::") + fact.weight_dtype +
                      ": PyTorch refuses the mismatch before any kernel runs (\"Input type (" +
                      cpp_type_name(fact.dtype) + ") and bias type (" + cpp_type_name(fact.weight_dtype) +
                      ") should be the same\", or \"... and weight type ...\" without a bias); convert the input or "
                      "the " + (module ? "module (->to(torch::" + fact.dtype + "))" : "weight") +
                      ", or enable autocast";
    finding.target_note = "every PyTorch version";
    finding.related.push_back({fact.dtype_location, "the element type torch::" + fact.dtype + " is set here"});
    if (fact.weight_dtype_location)
      finding.related.push_back({*fact.weight_dtype_location,
                                 module ? "constructed here with torch::" + fact.weight_dtype +
                                              " parameters (libtorch's default) and not converted before the call"
                                        : "the weight's element type torch::" + fact.weight_dtype + " is set here"});
    finding.replay.unknown = "not a cuDNN configuration: PyTorch refuses it before calling cuDNN";
    out.push_back(std::move(finding));
  }
}

}  // namespace cudnnlint
