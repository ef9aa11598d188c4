// The API table (rules/api_table.json, compiled in): which framework calls are batch
// normalizations, where their epsilon sits by name and position, and how the framework
// hands epsilon to cuDNN. Front-ends look calls up here; rules read the path semantics.
#pragma once

#include <optional>
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

struct NormalizationApi {
  std::string canonical;          // the first name listed
  std::string framework;          // key into frameworks ("torch", "keras", ...)
  bool is_class = false;
  std::string eps_name;
  std::optional<int> eps_index;   // positional index, excluding self
  std::optional<double> eps_default;
  std::string eps_attribute;      // attribute holding eps on an instance ("" if none)
  EpsStorage eps_storage = EpsStorage::Float64;
  CudnnPath cudnn_path = CudnnPath::None;
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

  // Look up a fully qualified name such as "torch.nn.BatchNorm2d".
  const NormalizationApi* find(std::string_view qualified_name) const;
  const FrameworkInfo* framework(std::string_view key) const;
  // The framework whose root module is `top_module` ("torch" for "torch"), or nullptr.
  const FrameworkInfo* framework_for_module(std::string_view top_module) const;
  // Every qualified name in the table, for star-import binding.
  const std::vector<std::string>& qualified_names() const { return names_; }
  // Substrings of which at least one must occur in a file for any API here to be named in it.
  const std::vector<std::string>& trigger_tokens() const { return trigger_tokens_; }

 private:
  std::vector<NormalizationApi> apis_;
  std::unordered_map<std::string, std::size_t> by_name_;
  std::vector<std::string> names_;
  std::vector<FrameworkInfo> frameworks_;
  std::vector<std::string> trigger_tokens_;
};

const char* cudnn_path_name(CudnnPath path);

}  // namespace cudnnlint
