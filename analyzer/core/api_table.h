// The API table (rules/api_table.json, validated against rules/api_table.schema.json at build
// and compiled in): which framework calls belong to which rule family (normalization,
// convolution, ...), where each argument a family reads sits (by role: name, position,
// default), and family data such as how a framework hands batch-norm epsilon to cuDNN.
// Front-ends bind arguments with it; extractors and rules read the family data. Knowing a new
// framework API is a data change.
#pragma once

#include "core/facts.h"
#include "core/target.h"

#include <cstdint>
#include <map>
#include <set>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace cudnnlint {

enum class CudnnPath {
  Passthrough,     // eps reaches cuDNN unchanged (MXNet, torch.cudnn_batch_norm, the C API)
  FallbackNative,  // PyTorch: eps < CUDNN_BN_MIN_EPSILON silently selects the native kernel
  ClampTf,         // TF fused batch norm: eps < 1.001e-5 silently raised to 1.001e-5
  Keras,           // Keras BatchNormalization: ClampTf on Keras 2's fused path, None on Keras 3
  ClampCudnnMin,   // Paddle: raised to CUDNN_BN_MIN_EPSILON with a log line
  None,            // never calls cuDNN batch norm
  Graph,           // the cuDNN graph API (cudnn-frontend): epsilon is a scalar tensor, no documented minimum
};

enum class EpsStorage { Float64, Float32, Array };

// A framework's own check on epsilon, in the versions [from, until): it raises before any kernel
// runs. PyTorch's F.batch_norm refuses eps <= 0 in 2.10 and 2.11 and, from 2.12, eps < 0 always
// and eps == 0 in training (torch/nn/functional.py of each wheel; measured on 2.11.0).
struct EpsRefusal {
  enum class Refuses { NonPositive, NegativeOrZeroInTraining };
  Version from;
  std::optional<Version> until;   // nullopt: still in force
  Refuses refuses = Refuses::NonPositive;
  std::string error;              // what the framework raises, as a user sees it

  bool in_force(const Version& v) const { return from <= v && (!until || v < *until); }
  bool refuses_in_training(double eps) const { return eps <= 0; }
  bool refuses_in_eval(double eps) const { return refuses == Refuses::NonPositive ? eps <= 0 : eps < 0; }
};

// The families the table knows. An extractor per family turns calls into facts.
inline constexpr std::string_view kNormalizationFamily = "normalization";
inline constexpr std::string_view kConvolutionFamily = "convolution";
inline constexpr std::string_view kLoaderFamily = "loader";
inline constexpr std::string_view kOptimizerFamily = "optimizer";  // eps of torch.optim (dtype rules)
// Not a table family: the Python extractor of element types (python/extract/tensor_dtype), which
// reads convolution, normalization and optimizer entries as consumers.
inline constexpr std::string_view kDtypeFamily = "dtype";
// The Python extractor of spatial sizes through layer stacks (python/extract/shape_chain.h).
inline constexpr std::string_view kShapeFamily = "shape";

// One argument an extractor reads, by its role in the family ("eps", "kernel_size").
struct ApiArg {
  std::string name;               // the keyword
  std::optional<int> index;       // positional index, excluding self; nullopt: keyword-only
  std::optional<double> default_number;
  std::string default_text;       // a string default ("valid"), or the JSON of a list default
  bool has_default = false;
  // Project callables: the default as written in their def (a location, maybe a reference).
  std::optional<Value> project_default;
};

struct ApiEntry {
  std::string canonical;          // the first name listed
  std::string family;             // "normalization", "convolution"
  std::string framework;          // key into frameworks ("torch", "keras", ...)
  bool is_class = false;
  std::map<std::string, ApiArg, std::less<>> args;  // by role

  // normalization
  EpsStorage eps_storage = EpsStorage::Float64;
  CudnnPath cudnn_path = CudnnPath::None;
  std::string eps_attribute;      // attribute holding eps on an instance ("" if none)
  std::vector<EpsRefusal> eps_refusals;  // the framework's own checks, oldest first
  std::string refusal_condition;  // when the checks run, if not always ("when it does not synchronize ...")

  // loader: what the framework does with a batch size it refuses (measured: tests/probes)
  struct LoaderInfo {
    bool refuses_zero = true;          // false: 0 means "not given" (Keras), only n < 0 fails
    bool none_disables_batching = false;  // PyTorch: batch_size=None is "no automatic batching"
    std::string when;                  // "when the DataLoader is constructed"
    std::string error;                 // "ValueError: ... batch_size={n}"
    std::string measured;              // "torch 2.11.0"
  } loader;
  bool is_method = false;         // kind "method": matched by name on an object the resolver cannot type
  bool framework_replay = false;  // gpu_check's framework tier replays it with its framework's standard call
  std::vector<std::string> cpp_spellings;  // how C++ code names it, where its names' last parts do not

  // convolution
  int spatial_dims = 0;
  std::string layout;             // "NCHW" (channels first) or "NHWC"; "" when the call decides

  // Project callables added by the project step (engine/project.h): a function or class of the
  // analysed code that passes a value on to `underlying`, a framework API (how the code names
  // it there: `underlying_spelled`), through the places in `forwards` (definition first).
  bool from_project = false;
  std::string underlying;
  std::string underlying_spelled;
  std::vector<ProvenanceStep> forwards;
  // A project callable passing several of its parameters on (`stem_eps` to one BatchNorm2d,
  // `head_eps` to another): one entry per parameter, the others here. A use of the callable is
  // a use of each.
  std::vector<ApiEntry> also;

  const ApiArg* arg(std::string_view role) const;
  // The normalization's epsilon argument (every normalization entry has one).
  const ApiArg& eps() const;
};

// A dataset whose samples all have one size (torchvision's MNIST: 1x28x28), before its transform.
struct DatasetInfo {
  std::vector<std::int64_t> sample;  // (C, H, W)
  std::string source;                // where the size is stated
};

// How tensor operations set or keep an element type (the table's element_types): what the dtype
// reader knows of the ops between a tensor's source and the layer it reaches.
struct ElementTypeOps {
  std::set<std::string, std::less<>> keeping_methods;    // `x.m(...)` has x's type
  std::set<std::string, std::less<>> keeping_functions;  // `f(x, ...)` has x's type
  std::set<std::string, std::less<>> floating_only;      // of those, the ones computing in floating point
  std::set<std::string, std::less<>> autocast_float32;   // ops CUDA autocast runs in float32
  std::map<std::string, DType, std::less<>> setting_functions;  // the result's type, always
  std::map<std::string, DType, std::less<>> setting_methods;
};

// Objects whose attributes their construction's arguments set (the table's config_objects): what
// the constant folder reads as a config. Qualified names throughout.
struct ConfigObjectKinds {
  std::set<std::string, std::less<>> keyword_namespaces;  // SimpleNamespace(bn_eps=...): keywords
  std::set<std::string, std::less<>> mapping_namespaces;  // EasyDict({"bn_eps": ...}): one dict
  std::set<std::string, std::less<>> field_class_decorators;  // @dataclass: fields by keyword or position
  std::set<std::string, std::less<>> field_class_bases;       // class C(NamedTuple): the same
  std::set<std::string, std::less<>> keyword_field_bases;     // class C(BaseModel): fields by keyword
  std::set<std::string, std::less<>> field_default_functions; // field(default=...)
};

struct FrameworkInfo {
  std::string key;
  std::string display;            // "PyTorch"
  std::vector<std::string> roots; // top-level Python modules
};

class ApiTable {
 public:
  // The table compiled into the binary, parsed once.
  static const ApiTable& builtin();
  static ApiTable parse(std::string_view json_text);  // throws std::runtime_error on bad data

  // A copy with `extra` entries (project callables), each under its names.
  ApiTable with_entries(std::span<const ApiEntry> extra, std::span<const std::vector<std::string>> names) const;

  // Look up a fully qualified name such as "torch.nn.BatchNorm2d".
  const ApiEntry* find(std::string_view qualified_name) const;
  const FrameworkInfo* framework(std::string_view key) const;
  // The framework whose root module is `top_module` ("torch" for "torch"), or nullptr.
  const FrameworkInfo* framework_for_module(std::string_view top_module) const;
  // Every qualified name in the table, for star-import binding.
  const std::vector<std::string>& qualified_names() const { return names_; }
  // The names of one family's entries.
  std::vector<std::string> names_of(std::string_view family) const;
  // Substrings of which at least one must occur in a file for an API of these families to be
  // named in it (the prefilter and the region planner read them). Empty `families`: all.
  std::vector<std::string> trigger_tokens(std::span<const std::string> families = {}) const;
  // Every Python leaf name of these families ("BatchNorm2d", "batch_norm"): the identifiers a
  // definition must name to use one of their APIs (the region planner matches whole words).
  std::vector<std::string> trigger_words(std::span<const std::string> families = {}) const;
  // The identifiers a C++ file must name for one of the table's C++ APIs to be used in it: cuDNN
  // function names, the last part of a libtorch name (`batch_norm`), or the entry's cpp_spellings
  // (`BatchNorm2dOptions`, a typedef the qualified name does not show). The C++ prefilter's words.
  // `framework` non-empty: only that framework's entries ("cudnn", "torch").
  std::vector<std::string> cpp_trigger_words(std::string_view framework = {}) const;
  // Config registry names as code quotes them ("'BN'", "\"SyncBN\""): substrings to match anywhere.
  std::vector<std::string> quoted_tokens(std::span<const std::string> families = {}) const;
  // Attribute names that hold a family's value on an instance (".eps" writes), for the planner.
  std::vector<std::string> instance_attributes() const;
  // A family's method entries (`kind: method`) by method name: "batch" -> tensorflow.data.Dataset.batch.
  std::vector<std::pair<std::string, const ApiEntry*>> methods_of(std::string_view family) const;
  // Registry type names of config systems (mmcv `dict(type='BN')`) -> the API they build.
  const ApiEntry* config_type(std::string_view system, std::string_view type) const;
  const std::map<std::string, std::map<std::string, std::string>>& config_types() const { return config_types_; }
  // The dataset a fully qualified name builds ("torchvision.datasets.MNIST"), or nullptr.
  const DatasetInfo* dataset(std::string_view qualified_name) const;
  // The qualified names of the datasets, in the table's order.
  std::vector<std::string> dataset_names() const;
  const ElementTypeOps& element_types() const { return element_types_; }
  const ConfigObjectKinds& config_objects() const { return config_objects_; }

 private:
  void index_names(std::size_t entry, const std::vector<std::string>& names);
  std::vector<ApiEntry> apis_;
  std::unordered_map<std::string, std::size_t> by_name_;
  std::vector<std::string> names_;
  std::vector<std::size_t> name_entry_;  // parallel to names_
  std::vector<FrameworkInfo> frameworks_;
  std::map<std::string, std::map<std::string, std::string>> config_types_;  // system -> type -> API name
  std::vector<DatasetInfo> datasets_;
  std::map<std::string, std::size_t, std::less<>> dataset_by_name_;
  ElementTypeOps element_types_;
  ConfigObjectKinds config_objects_;
};

}  // namespace cudnnlint
