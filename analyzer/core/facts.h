// The Facts IR: what a model definition configures, independent of the source language.
// The Python front-end (tree-sitter), the C++ front-end (Clang) and the config reader
// (YAML/JSON) all produce these; rules read only these. Nothing here may name a parser type.
#pragma once

#include "core/dtype.h"
#include "core/location.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudnnlint {

// One step in the chain that carried a value from its definition to its use, e.g.
// "EPS defined here" -> "bound by functools.partial here" -> "used here". Steps may lie in
// other files than the use (an imported constant, a config file, a parameter's default).
struct ProvenanceStep {
  Location where;
  std::string what;
};

// Whether a folded number is a Python int or a float where that is known: an integer tensor times an
// int stays integer (`pixels * 2`), times a float becomes floating (`pixels * 0.5`).
enum class NumberKind : std::uint8_t { Unknown, Integer, Float };

// A value the front-end could fold to a number, with the chain of places it came from.
struct ConstantValue {
  ConstantValue() = default;
  ConstantValue(double value, std::string spelling, std::vector<ProvenanceStep> provenance,
                NumberKind kind = NumberKind::Unknown)
      : value(value), spelling(std::move(spelling)), provenance(std::move(provenance)), kind(kind) {}

  double value = 0.0;
  std::string spelling;                    // the source text of the expression at the use
  std::vector<ProvenanceStep> provenance;  // definition first; empty for an inline literal
  NumberKind kind = NumberKind::Unknown;
};

// The kind a config file's scalar text gives its number: digits alone (`32`, `-1`) an int, a
// decimal point, exponent, `inf` or `nan` a float; Unknown for anything else.
NumberKind number_kind_of_text(std::string_view text);

// The numeric constants of the tree's modules that a file imports, by qualified name
// ("pkg.consts.EPS"), each with where it is defined (provenance): the project step hands them to
// a file's second extraction, so that every extractor folds `from .consts import EPS` as it folds
// a constant of the file itself.
using ImportedConstants = std::map<std::string, ConstantValue, std::less<>>;

// The values the tree's YAML/JSON config files give key paths the code reads (`cfg["model"]["eps"]`
// -> "model.eps"), where every config file that sets the key agrees: the project step hands them
// to the second extraction of a file that reads them, so that an extractor folds a config read
// inside an expression (`range(cfg.data.size)`, `x + cfg.train.eps`) as it folds a constant.
using ConfigConstants = std::map<std::string, ConstantValue, std::less<>>;

struct Value;

// A value one file cannot settle alone: the project step follows it across modules, calls
// and config files (engine/project.h).
struct ValueRef {
  enum class Kind {
    ModuleAttribute,  // `from .constants import EPS` / `constants.EPS`: target "pkg.constants.EPS"
    Parameter,        // a parameter of a project function or class: target "pkg.blocks.conv_bn"
    ConfigKey,        // `cfg.MODEL.BN_EPS`, `cfg["model"]["bn_eps"]`: target "MODEL.BN_EPS"; also
                      // `args.bn_eps` (one key off an args-like object: an argparse dest too)
  };
  Kind kind = Kind::ModuleAttribute;
  std::string target;
  std::string parameter;       // Parameter: the parameter's name
  int index = -1;              // Parameter: its position in a call (self excluded); -1 keyword-only
  bool of_class = false;       // Parameter: the target is a class (its __init__'s parameter)
  std::vector<Value> default_value;  // Parameter: its default as written (at most one)
  std::string root;            // ConfigKey: the object read, as written ("cfg", "self.args")
  std::string spelling;        // the expression at the use, as written
  std::vector<ProvenanceStep> steps;  // local aliases crossed on the way (`e = cfg.BN_EPS`), definition first
};

// An argument as far as one file can tell: a number, a reference to follow, or neither.
struct Value {
  std::optional<ConstantValue> constant;
  std::optional<ValueRef> ref;
  Location where;
  std::string spelling;
};

// How a fact's value (a normalization's epsilon, a loader's batch size) was determined.
enum class ValueSource {
  Explicit,      // written at the call (literal or foldable constant)
  Default,       // not written; the API's documented default applies
  NotConstant,   // written, but not foldable (a parameter, a config read, ...)
  Unresolvable,  // hidden behind *args / **kwargs
};

// A value of a fact that one file may not settle alone (an imported constant, `cfg.MODEL.BN_EPS`,
// `args.batch_size`), with how the project step settled it.
struct SettleableValue {
  ValueSource source = ValueSource::Default;
  std::optional<ConstantValue> value;     // present for Explicit and Default
  std::optional<ValueRef> ref;            // NotConstant, but a reference the project step may follow
  // How the value was reached when the project step settled it: "constant", "default",
  // "argparse default", "config"; "" when the front-end folded it alone.
  std::string via;
  std::optional<Location> location;       // where the value is written, when it is
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
  Location call;            // the call, partial, super().__init__, assignment or config node
  SettleableValue eps;      // the epsilon: its value, where it is written and how it was settled
  std::string origin;       // "call", "partial", "super().__init__", "attribute assignment", "config", ...
  std::map<std::string, LiteralArg> literal_args;  // other arguments, by parameter name
  std::vector<ProvenanceStep> uses;       // later calls through a partial or wrapper, for context
};

// An integer a front-end folded (a descriptor dimension, a kernel size), with where it is written.
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
  std::string data_type;           // "CUDNN_DATA_FLOAT" as written (a convolution's compute type); "" when not constant
  std::string format;              // "CUDNN_TENSOR_NCHW" (a convolution's mode), "" when not set or not constant
};

// A convolution's geometry, from any language: a framework layer (nn.Conv2d, Conv2D) or the
// cuDNN C API's three descriptors. Values are nullopt where the code does not fix them.
struct ConvGeometryFact {
  std::string api;                 // "torch.nn.Conv2d", "cudnnConvolutionForward", ...
  std::string spelled_as;          // how the code named it
  Location call;
  int spatial_dims = 2;
  std::optional<IntegerValue> in_channels, out_channels, groups;
  // One entry per spatial axis (H, W for 2-D); empty when the code does not give them.
  std::vector<std::optional<IntegerValue>> kernel, stride, padding, dilation;
  std::string padding_mode;        // "explicit", "same", "valid"; "" when unknown
  // The input the code fixes (N, C, spatial...): the C API's input descriptor; empty otherwise.
  std::vector<std::optional<IntegerValue>> input;
  DType dtype = DType::Unknown;          // input element type where the code fixes it
  DType filter_dtype = DType::Unknown;   // the weights' element type where the code fixes it
  DType compute_type = DType::Unknown;   // the convolution's accumulation type (C API)
  std::string layout;              // "NCHW", "NHWC", "NCHW_VECT_C"; "" when unknown
  // Which call set each part (C API: "cudnnSetTensor4dDescriptor(xDesc, ...)"), for messages.
  std::string input_set_by, filter_set_by, params_set_by;
  std::string input_api;           // the API that set the input ("cudnnSetTensorNdDescriptor": packed NCHW)
};

// A tensor whose element type the code makes plain (a factory with torch::kByte, `.to(kLong)`,
// `.byte()`) reaching a convolution or batch norm in the same function.
struct TensorInputFact {
  std::string consumer;        // "torch::nn::Conv2d", "at::conv2d", "at::batch_norm"
  Location use;                // the argument at the consumer
  std::string variable;        // "" when the tensor is made inline
  DType dtype = DType::Unknown;
  std::string dtype_spelling;  // as written, for messages: "kByte", "kFloat32"
  Location dtype_location;     // where the dtype is set
  // The consumer's weight element type where the code makes it plain too: a module constructed
  // in the same function (float32 unless converted with ->to(...)) or a functional conv's weight.
  DType weight_dtype = DType::Unknown;
  std::string weight_dtype_spelling;
  std::optional<Location> weight_dtype_location;
  // Python: the shape the code builds the tensor with (`tf.zeros([0, 8, 8, 3])`), one entry per
  // dimension, nullopt where not constant; empty when not known. `framework` is the consumer's.
  std::vector<std::optional<IntegerValue>> shape;
  std::string framework;        // "torch" and "tensorflow"/"keras" from Python, "libtorch" from C++
  std::string tensor_text;     // the factory call as written ("tf.zeros([0, 28, 28, 3])")
  // The names the tensor crossed from where its element type is set to the use (`x = x.long()`),
  // definition first; and, for a module, how the code builds it ("nn.Conv2d(3, 8, 3)").
  std::vector<ProvenanceStep> steps;
  std::string consumer_text;
  // Where the code can convert the tensor itself: a `PILToTensor()` element of a
  // `transforms.Compose([...])` list (`conversion_at`, written `conversion_from`) that nothing after
  // it converts; `conversion_to` is that element with `transforms.ConvertImageDtype(torch.float)`
  // after it, spelled with the file's own names. Unset where no such edit is mechanical.
  std::optional<Location> conversion_at;
  std::string conversion_from, conversion_to;
};

// A small constant that meets a reduced-precision type: an epsilon added to, or dividing, a tensor
// the code makes float16 (`x.half()`, `dtype=torch.float16`, an autocast region's matmul, a Keras
// `mixed_float16` layer's inputs), an optimizer's eps on a model converted to float16, or a float
// converted to half in CUDA code (`__float2half(1e-8f)`). Rules round it as the type does.
struct LowPrecisionConstantFact {
  enum class Use {
    Addend,          // `x + eps`: a zero x leaves eps alone
    Divisor,         // `a / (b + eps)`, `a / eps`, `rsqrt(var + eps)`: eps keeps a denominator from 0
    OptimizerEps,    // an optimizer's eps, added to the square root of its second moment in the parameters' type
    HalfConversion,  // a float converted to half (CUDA)
  };
  Use use = Use::Addend;
  Location where;                  // the constant as written (the optimizer call when eps is its default)
  ConstantValue value;             // folded, with provenance
  bool value_is_default = false;   // an optimizer's eps the call does not write
  DType dtype = DType::Float16;    // the reduced type the constant meets
  std::string expression;          // "x / (x.norm() + 1e-8)", "Adam(model.parameters())", "__float2half(1e-8f)"
  Location expression_location;
  std::string reduced_by;          // what makes the operand reduced: "x = x.half()", "with torch.autocast(...)"
  std::optional<Location> reduced_at;
  std::vector<ProvenanceStep> operand_steps;  // names the reduced operand crossed (`x = x.half()`)
  std::string api;                 // the optimizer ("torch.optim.Adam") or the conversion ("__float2half")
  std::string framework;           // "torch", "tensorflow", "keras", "cuda"
};

// A data loader or batching call and what the code fixes about it: the batch size (maybe as an
// integer division, `global // world_size`), whether the last partial batch is dropped, and how
// many samples the dataset holds when the code makes that plain (`range(10)`, a literal shape).
struct LoaderFact {
  std::string api;             // "torch.utils.data.DataLoader", "tensorflow.data.Dataset.batch"
  std::string spelled_as;      // how the code named it ("DataLoader", "ds.batch")
  std::string framework;       // the API table's framework key ("torch", "tensorflow", "keras", "transformers")
  std::string batch_param;     // the batch-size parameter's name ("batch_size", "per_device_train_batch_size")
  Location call;
  std::string origin;          // "call", "method call", ...
  bool batch_none = false;     // `batch_size=None`: PyTorch's "no automatic batching"
  // The batch size; for a division, its dividend.
  SettleableValue batch;
  // `a // b`, `int(a / b)`, `math.floor(a / b)`: the batch size is `batch` divided by `divisor`.
  std::string division;        // the division as written; "" when the batch size is not one
  std::optional<Location> division_location;
  SettleableValue divisor;
  // An if-test or conditional expression in the enclosing function or module that checks the batch
  // size or its operands and may change what follows (`if bs < 1: bs = 1`), as written; "" when none.
  std::string guard;
  // An assert or an if that only raises, checking the same names (`if bs < 1: raise ...`): the
  // program stops there first, with its own error; "" when none.
  std::string raising_check;
  std::string drop_param;      // "drop_last", "drop_remainder"
  std::optional<bool> drop_last;
  std::optional<Location> drop_location;
  std::optional<IntegerValue> dataset_size;  // samples, where the code makes it plain
  std::string dataset_text;    // how the dataset is written ("range(10)", "TensorDataset(x)")
  // A model the loader's batches feed in the same function (`for x, y in loader: model(x)`) whose
  // batch norm sees one value per channel when a batch holds one sample (nn.Linear then
  // nn.BatchNorm1d, global pooling then nn.BatchNorm2d), and that the function leaves in training
  // mode (no `model.eval()`): where the batch norm is, what precedes it, and the call in the loop.
  std::optional<Location> single_sample_norm;
  std::string single_sample_norm_text;   // "nn.Linear(64, 32), then nn.BatchNorm1d(32)"
  std::optional<Location> feeds;         // `model(x)` in the loop over the loader
  std::string feeds_text;
  std::vector<ProvenanceStep> uses;
};

// A project function or class through which a value reaches an API argument, so that calls of
// it are treated like calls of the API. The project step turns these into API-table entries.
// Examples: `def conv_bn(c, eps=1e-3): ... nn.BatchNorm2d(c, eps=eps)`, detectron2's
// `class NaiveSyncBatchNorm(BatchNorm2d)`, `class FrozenBN: def __init__(self, n, eps=1e-5):
// self.eps = eps ... F.batch_norm(..., eps=self.eps)`.
struct ForwardingFact {
  std::string callable;        // qualified name: "pkg.blocks.conv_bn", "pkg.layers.FrozenBN"
  bool is_class = false;       // a class: calls construct it, its __init__ binds the arguments
  std::string api;             // the API (table entry, possibly another forwarding) it reaches
  std::string api_spelled;     // how the code names that API there ("nn.BatchNorm2d")
  std::string role;            // the API's argument: "eps"
  std::string api_parameter;   // that argument's name in `api` (which one, when `api` is a
                               // project callable passing several parameters on)
  // Either the callable inherits the API's whole signature (a subclass without an __init__ of
  // its own, or one that forwards *args/**kwargs), or one of its parameters is passed on.
  bool inherits_signature = false;
  std::string parameter;
  int index = -1;              // positional index of `parameter`, self excluded; -1 keyword-only
  std::optional<Value> default_value;
  Location defined;            // the class or def
  Location reaches;            // where the value is passed on to `api`
  std::string reaches_text;    // "nn.BatchNorm2d(c, eps=eps)"
};

// `parser.add_argument("--bn-eps", type=float, default=1e-6)`: a value a flag may override.
struct ArgumentFact {
  std::string dest;            // "bn_eps"
  std::string flag;            // "--bn-eps"
  Location call;
  std::optional<Value> default_value;
  std::string type;            // "float", "int", "" when not given
};

// A default set in Python for a config tree: yacs `_C.MODEL.BN_EPS = 1e-5` (a YAML file read
// with merge_from_file may override it).
struct ConfigDefaultFact {
  std::string path;            // "MODEL.BN_EPS"
  Location where;
  Value value;
};

// A per-file problem that is not a finding: unreadable, invalid UTF-8, syntax error, ...
struct FileDiagnostic {
  enum class Severity { Warning, Error };
  FileDiagnostic() = default;
  FileDiagnostic(Severity level, std::string file, std::optional<Position> at, std::string text)
      : severity(level), path(std::move(file)), position(at), message(std::move(text)) {}
  Severity severity = Severity::Warning;
  std::string path;
  std::optional<Position> position;
  std::string message;
  // C++: the header clang could not find, if that is what went wrong, and whether the file's flags
  // came from compile_commands.json. The text report groups such files by header.
  std::string missing_header;
  bool from_compile_command = false;
  std::string include_dir;  // where the run's own files hold that header, if they do
  // C++: a header that was not found and that cudnnlint stood in for with its declarations of
  // the API the rules read ("torch/torch.h"). The text report groups such files by header.
  std::string stand_in;
};

// An inline suppression: `# cudnnlint: ignore[rule]`, `# noqa: rule`, `// NOLINT(cudnnlint-rule)`.
struct SuppressionComment {
  std::uint32_t line = 0;           // the line the comment is on (it suppresses findings there)
  std::vector<std::string> rules;   // empty: every rule
};

// Everything a front-end learned from one file.
// One layer of a stack that a tensor of known spatial size runs through, and the sizes after it.
struct ShapeStep {
  std::string label;                  // "conv 3×3/1", "conv 3×3 valid", "maxpool 2", "batchnorm"
  std::string text;                   // the layer as written, shortened: "nn.Conv2d(8, 8, 3)"
  Location where;
  std::vector<std::int64_t> output;   // spatial sizes after it (below 1 at a rejecting layer)
  // The numbers a stack builder's run fixed for the names the text reads ("c = 64"), where the
  // layer is built in a loop or a helper (python/extract/layer_stacks.h); "" otherwise.
  std::string bindings;
};

// A tensor whose spatial size the code fixes (`torch.randn(1, 3, 4, 4)`, `keras.Input(shape=...)`)
// run through a stack of layers the code lists (nn.Sequential, a Keras Sequential model), up to
// the first layer that rejects its input as smaller than its (dilated) kernel. Emitted only when
// one does; a layer the front-end does not know, or a size it cannot fold, ends the chain
// silently (it never guesses a size).
struct ShapeChainFact {
  std::string framework;              // "torch", "keras", "tensorflow" (Python); "libtorch" (C++)
  std::string model_text;             // "nn.Sequential(...)", "keras.Sequential([...])"
  Location call;                      // where the model meets the tensor (or, Keras, is built)
  std::string source_text;            // "torch.randn(1, 3, 4, 4)", "keras.Input(shape=(4, 4, 3))"
  Location source;
  std::vector<ProvenanceStep> source_provenance;  // where named sizes are defined (`IMG_SIZE = 6`)
  std::string layout;                 // "NCHW" or "NHWC": where the channels sit
  std::vector<std::int64_t> input_spatial;
  std::vector<ShapeStep> steps;       // the rejecting layer last
  std::string rejected_by;            // "conv" or "pool"
  std::int64_t channels = 0;          // the channels reaching the rejecting layer; 0 when unknown
  // Per axis, at the rejecting layer: the input with its padding, and the dilated kernel (window).
  std::vector<std::int64_t> padded_input, kernel_extent;
  // The rejecting convolution's geometry with its input filled in (N, C, spatial...): what
  // gpu_check replays against the real libcudnn. Empty kernel for a pooling layer.
  ConvGeometryFact conv;
};

// A batch of one sample run through a PyTorch model left in training mode whose batch norm then sees
// one value per channel: `net(torch.randn(1, 8))` where the model applies nn.Linear then
// nn.BatchNorm1d ([1, C]), or a global pooling to 1 then nn.BatchNorm2d ([1, C, 1, 1]).
// F.batch_norm refuses that in training (python/extract/single_sample_consumer.h reads the model).
struct SingleSampleCallFact {
  Location call;                    // the model's call
  std::string call_text;            // "net(torch.randn(1, 8))"
  Location batch;                   // where the batch of one is made
  std::string batch_text;           // "torch.randn(1, 8)"
  std::vector<std::int64_t> shape;  // the batch's shape as written: [1, 8]
  Location norm;                    // the batch norm's construction
  std::string norm_text;            // "nn.Linear(8, 4), then nn.BatchNorm1d(4)"
  std::string norm_input;           // what the batch norm gets: "[1, 4]" or "[1, C, 1, 1]"
};

// What the front-end followed in a file, whether or not it ended in a fact (issue 35's statistics:
// how much of real model code the value flow reaches). shape_chains: a stack or a model class run
// on a size the code fixes (a stack through at least one layer; in a Keras functional graph, each
// convolution or pooling application the chain reaches). dtype_flows: a tensor of a plain element
// type reaching a layer or model the extractor reads as a consumer. Counted in the first pass;
// the region plan and --full-parse may differ here (code no fact needs is not parsed).
struct TrackedFlows {
  std::uint64_t shape_chains = 0;
  std::uint64_t dtype_flows = 0;
};
inline TrackedFlows& operator+=(TrackedFlows& to, const TrackedFlows& from) {
  to.shape_chains += from.shape_chains;
  to.dtype_flows += from.dtype_flows;
  return to;
}

struct FileFacts {
  std::string path;
  std::string language;  // "python", "cpp", "yaml", "json"
  std::string module;    // Python: the module's qualified name ("pkg.sub.mod"), "" elsewhere
  std::vector<std::string> frameworks;  // frameworks the file imports ("torch", "tensorflow", ...)
  std::vector<NormalizationFact> normalizations;
  std::vector<LoaderFact> loaders;
  std::vector<ConvGeometryFact> conv_geometries;
  std::vector<DescriptorFact> descriptors;
  std::vector<TensorInputFact> tensor_inputs;
  std::vector<LowPrecisionConstantFact> low_precision_constants;
  std::vector<ShapeChainFact> shape_chains;
  std::vector<SingleSampleCallFact> single_sample_calls;
  std::vector<ForwardingFact> forwardings;
  std::vector<ArgumentFact> arguments;
  std::vector<ConfigDefaultFact> config_defaults;
  std::vector<SuppressionComment> suppressions;
  TrackedFlows tracked;
};

}  // namespace cudnnlint
