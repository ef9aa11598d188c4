// The Facts IR: what a model definition configures, independent of the source language.
// The Python front-end (tree-sitter) and the C++ front-end (Clang) both produce these; rules
// read only these. Nothing here may name a parser type.
#pragma once

#include "core/location.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cudnnlint {

// One step in the chain that carried a value from its definition to its use, e.g.
// "EPS defined here" -> "bound by functools.partial here" -> "used here".
struct ProvenanceStep {
  Location where;
  std::string what;
};

// A value the front-end could fold to a number, with the chain of places it came from.
struct ConstantValue {
  double value = 0.0;
  std::string spelling;                    // the source text of the expression at the use
  std::vector<ProvenanceStep> provenance;  // definition first; empty for an inline literal
};

// How the epsilon of a normalization was determined.
enum class EpsSource {
  Explicit,      // written at the call (literal or foldable constant)
  Default,       // not written; the API's documented default applies
  NotConstant,   // written, but not foldable (a parameter, a config read, ...)
  Unresolvable,  // hidden behind *args / **kwargs
};

// A literal argument other than eps that rules may consult (e.g. Keras `fused=False`).
struct LiteralArg {
  std::string spelling;
  std::optional<double> number;
  std::optional<bool> boolean;
  std::optional<std::string> text;  // string literals and dotted names (e.g. jnp.float16)
};

// A batch-normalization layer or call.
struct NormalizationFact {
  std::string api;          // canonical API name from the API table, e.g. "torch.nn.BatchNorm2d"
  std::string spelled_as;   // how the code named it, e.g. "nn.BatchNorm2d" or "BN"
  std::string eps_param;    // the parameter's name in this API ("eps", "epsilon", ...)
  Location call;            // the call, partial, super().__init__ or assignment
  std::optional<Location> eps_location;  // where eps is written, when it is
  EpsSource eps_source = EpsSource::Default;
  std::optional<ConstantValue> eps;       // present for Explicit and Default
  std::string origin;       // "call", "partial", "super().__init__", "attribute assignment", ...
  std::map<std::string, LiteralArg> literal_args;  // other arguments, by parameter name
  std::vector<ProvenanceStep> uses;       // later calls through a partial, for context
};

// An integer the front-end folded (a descriptor dimension, a padding), with where it is written.
struct IntegerValue {
  std::int64_t value = 0;
  std::string spelling;
  Location where;
  std::vector<ProvenanceStep> provenance;  // definition first (a constexpr, a #define, an enumerator)
};

// A cuDNN descriptor set with literal-foldable values: tensors, filters and convolutions.
struct DescriptorFact {
  enum class Kind { Tensor, Filter, Convolution };
  Kind kind = Kind::Tensor;
  std::string api;                 // "cudnnSetTensor4dDescriptor"
  Location call;
  std::string descriptor;          // the descriptor variable as written ("xDesc", "this->desc_")
  std::vector<std::string> names;  // what each value is: "n", "c", "h", "w", "pad_h", "stride_h", ...
  std::vector<std::optional<IntegerValue>> values;  // parallel to names; nullopt where not constant
  std::string data_type;           // "CUDNN_DATA_FLOAT" (a convolution's compute type), "" when not constant
  std::string format;              // "CUDNN_TENSOR_NCHW" (a convolution's mode), "" when not set or not constant
};

// A convolution whose input, filter and convolution descriptors were all set in the same
// function: enough to compute the output size the way cuDNN does.
struct ConvolutionFact {
  std::string api;                 // the call that uses the three descriptors
  Location call;
  DescriptorFact input;
  DescriptorFact filter;
  DescriptorFact convolution;
};

// A tensor whose element type the code makes plain (a factory with torch::kByte, `.to(kLong)`,
// `.byte()`) reaching a convolution or batch norm in the same function.
struct TensorInputFact {
  std::string consumer;        // "torch::nn::Conv2d", "at::conv2d", "at::batch_norm"
  Location use;                // the argument at the consumer
  std::string variable;        // "" when the tensor is made inline
  std::string dtype;           // the libtorch name: "kByte", "kLong", ...
  Location dtype_location;     // where the dtype is set
  // The consumer's weight element type where the code makes it plain too: a module constructed
  // in the same function (float32 unless converted with ->to(...)) or a functional conv's weight.
  std::string weight_dtype;    // "" when not visible
  std::optional<Location> weight_dtype_location;
};

// A per-file problem that is not a finding: unreadable, invalid UTF-8, syntax error, ...
struct FileDiagnostic {
  enum class Severity { Warning, Error };
  Severity severity = Severity::Warning;
  std::string path;
  std::optional<Position> position;
  std::string message;
};

// An inline suppression: `# cudnnlint: ignore[rule]`, `# noqa: rule`, `// NOLINT(cudnnlint-rule)`.
struct SuppressionComment {
  std::uint32_t line = 0;           // the line the comment is on (it suppresses findings there)
  std::vector<std::string> rules;   // empty: every rule
};

// Everything a front-end learned from one file.
struct FileFacts {
  std::string path;
  std::string language;  // "python", "cpp"
  std::vector<std::string> frameworks;  // frameworks the file imports ("torch", "tensorflow", ...)
  std::vector<NormalizationFact> normalizations;
  std::vector<DescriptorFact> descriptors;
  std::vector<ConvolutionFact> convolutions;
  std::vector<TensorInputFact> tensor_inputs;
  std::vector<SuppressionComment> suppressions;
};

} // namespace cudnnlint
