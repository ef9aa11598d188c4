// torch-integer-input: a PyTorch tensor of an integer element type fed to a convolution, a batch
// norm or a model starting with one (Python: `torch.randint`, `.long()`, `torch.from_numpy` of a
// uint8 array, `PILToTensor()`, `read_image`; libtorch: `torch::kByte`, `.to(torch::kLong)`). PyTorch refuses it (the wording depends on the path: weight type, bias type or
// "expected scalar type"); its cuDNN convolution has no integer path at all (pytorch#107751).
// KB entry pytorch/integer-input-to-conv-or-batchnorm.
#include "rules/replay_configs.h"
#include "rules/rule.h"

namespace cudnnlint {

namespace {

// PyTorch's names for an integer type in "expected scalar type Long" and in "Input type (long int)".
std::string scalar_type_name(DType dtype) {
  switch (dtype) {
    case DType::Int64: return "Long";
    case DType::Int32: return "Int";
    case DType::Int16: return "Short";
    case DType::Int8: return "Char";
    case DType::UInt8: return "Byte";
    case DType::Bool: return "Bool";
    default: return std::string(dtype_name(dtype));
  }
}

std::string compiler_type_name(DType dtype) {
  switch (dtype) {
    case DType::Int64: return "long int";
    case DType::Int32: return "int";
    case DType::Int16: return "short int";
    case DType::Int8: return "signed char";
    case DType::UInt8: return "unsigned char";
    case DType::Bool: return "bool";
    default: return std::string(dtype_name(dtype));
  }
}

// A Python fact: `torch.randint(...)` into `conv`, through the names it crossed.
Finding python_finding(const TensorInputFact& fact) {
  Finding finding = make_finding(RuleId::TorchIntegerInput, fact.use);
  const std::string what = "`" + clipped(fact.variable.empty() ? fact.tensor_text : fact.variable, 32) + "`";
  const std::string dtype(dtype_name(fact.dtype));
  const bool image = fact.dtype == DType::UInt8;
  // What PyTorch raises, as measured on torch 2.11.0 on the CPU (tests/probes/torch_dtype.py): batch
  // norm has no integer kernel; a convolution with a bias compares the types first; one without a
  // bias (torchvision models' first convolutions) fails in the kernel.
  std::string raised;
  if (fact.consumer.find("BatchNorm") != std::string::npos || fact.consumer.find("batch_norm") != std::string::npos) {
    raised = "NotImplementedError: \"batch_norm\" not implemented for '" + scalar_type_name(fact.dtype) + "'";
  } else {
    raised = "RuntimeError: Input type (" + compiler_type_name(fact.dtype) +
             ") and bias type (float) should be the same\" with a bias, \"RuntimeError: expected scalar type " +
             scalar_type_name(fact.dtype) + " but found Float";
  }
  finding.message = what + " is " + dtype + " and reaches `" + clipped(fact.consumer_text, 30) +
                    "` (floating-point weights): PyTorch raises";
  finding.detail = "Its type is set by `" + fact.dtype_spelling + "`, and `" + fact.consumer_text + "` is " +
                    fact.consumer + ": PyTorch refuses an integer input before any kernel runs "
                    "(torch 2.11.0: \"" + raised + "\") and has no integer cuDNN convolution; convert it first (" +
                    (image ? "`transforms.ConvertImageDtype(torch.float)` or `x.float() / 255`, then the model's "
                             "normalisation"
                           : "`.float()`") +
                    ")";
  finding.target_note = "every PyTorch version";
  finding.related.push_back({fact.dtype_location, "the element type " + dtype + " is set here"});
  for (const auto& step : fact.steps) finding.related.push_back({step.where, step.what});
  finding.replay.unknown = "not a cuDNN configuration: PyTorch refuses an integer input before calling cuDNN";
  const bool batch_norm =
      fact.consumer.find("BatchNorm") != std::string::npos || fact.consumer.find("batch_norm") != std::string::npos;
  finding.replay.framework = input_type_case(FrameworkName::Torch, fact.dtype,
                                              is_floating(fact.weight_dtype) ? fact.weight_dtype : DType::Float32, batch_norm);
  // The KB's workaround, where the pipeline makes it an edit. Unsafe: the model then sees values
  // in [0, 1] instead of [0, 255], which its normalisation must expect.
  if (fact.conversion_at && fact.conversion_at->path == fact.use.path)
    finding.fix = Fix{"add transforms.ConvertImageDtype(torch.float) after PILToTensor() (values become 0..1)",
                      false,
                      {TextEdit{fact.conversion_at->range, fact.conversion_to, fact.conversion_from, false}},
                      /*file_hash: set by settle_fix*/ {}};
  return finding;
}

}  // namespace

void check_TorchIntegerInput(const RuleInput& input, std::vector<Finding>& out) {
  for (const TensorInputFact& fact : input.facts.tensor_inputs) {
    if (!is_integer(fact.dtype)) continue;  // floating inputs: torch-conv-dtype-mismatch
    if (fact.framework == "tensorflow" || fact.framework == "keras") continue;  // tf-integer-input
    if (fact.framework == "torch") {
      out.push_back(python_finding(fact));
      continue;
    }
    Finding finding = make_finding(RuleId::TorchIntegerInput, fact.use);
    // Appended piece by piece: `"`" + std::string(...)` trips GCC 12's -Wrestrict false positive.
    std::string what = "this tensor";
    if (!fact.variable.empty()) what = std::string("`").append(clipped(fact.variable, 36)).append("`");
    finding.message = what + " is torch::" + fact.dtype_spelling + " and reaches " +
                      clipped(fact.consumer, 30) + " (floating-point weights): PyTorch raises";
    finding.detail = "PyTorch rejects it with a RuntimeError (\"Input type "
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
