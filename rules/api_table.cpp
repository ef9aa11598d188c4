#include "rules/api_table.h"

#include "core/embedded.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace cudnnlint {

namespace {

CudnnPath parse_path(const std::string& text) {
  if (text == "passthrough") return CudnnPath::Passthrough;
  if (text == "fallback_native") return CudnnPath::FallbackNative;
  if (text == "clamp_tf") return CudnnPath::ClampTf;
  if (text == "keras") return CudnnPath::Keras;
  if (text == "clamp_cudnn_min") return CudnnPath::ClampCudnnMin;
  if (text == "none") return CudnnPath::None;
  if (text == "graph") return CudnnPath::Graph;
  throw std::runtime_error("rules/api_table.json: unknown cudnn_path '" + text + "'");
}

EpsStorage parse_storage(const std::string& text) {
  if (text == "float64") return EpsStorage::Float64;
  if (text == "float32") return EpsStorage::Float32;
  if (text == "array") return EpsStorage::Array;
  throw std::runtime_error("rules/api_table.json: unknown eps_storage '" + text + "'");
}

std::string_view leaf_of(std::string_view qualified) {
  const auto dot = qualified.rfind('.');
  return dot == std::string_view::npos ? qualified : qualified.substr(dot + 1);
}

// The smallest set of substrings that still covers every API leaf name: a file that names an
// API must contain its leaf (through an import, an attribute or a star import of its module).
std::vector<std::string> minimal_cover(std::vector<std::string> leaves) {
  std::sort(leaves.begin(), leaves.end(), [](const auto& a, const auto& b) {
    return a.size() != b.size() ? a.size() < b.size() : a < b;
  });
  std::vector<std::string> kept;
  for (const auto& leaf : leaves) {
    const bool covered = std::any_of(kept.begin(), kept.end(),
                                     [&](const std::string& k) { return leaf.find(k) != std::string::npos; });
    if (!covered) kept.push_back(leaf);
  }
  return kept;
}

}  // namespace

const char* cudnn_path_name(CudnnPath path) {
  switch (path) {
    case CudnnPath::Passthrough: return "passthrough";
    case CudnnPath::FallbackNative: return "fallback_native";
    case CudnnPath::ClampTf: return "clamp_tf";
    case CudnnPath::Keras: return "keras";
    case CudnnPath::ClampCudnnMin: return "clamp_cudnn_min";
    case CudnnPath::None: return "none";
    case CudnnPath::Graph: return "graph";
  }
  return "none";
}

ApiTable ApiTable::parse(std::string_view json_text) {
  ApiTable table;
  try {
    const auto doc = nlohmann::json::parse(json_text);
    for (const auto& [key, info] : doc.at("frameworks").items()) {
      table.frameworks_.push_back(
          FrameworkInfo{key, info.at("display").get<std::string>(), info.at("roots").get<std::vector<std::string>>()});
    }
    std::vector<std::string> leaves;
    for (const auto& entry : doc.at("normalizations")) {
      NormalizationApi api;
      const auto names = entry.at("names").get<std::vector<std::string>>();
      if (names.empty()) throw std::runtime_error("an entry has no names");
      api.canonical = names.front();
      api.framework = entry.at("framework").get<std::string>();
      if (!table.framework(api.framework)) throw std::runtime_error("unknown framework '" + api.framework + "'");
      api.is_class = entry.at("kind").get<std::string>() == "class";
      const auto& eps = entry.at("eps");
      api.eps_name = eps.at("name").get<std::string>();
      if (!eps.at("index").is_null()) api.eps_index = eps.at("index").get<int>();
      if (!eps.at("default").is_null()) api.eps_default = eps.at("default").get<double>();
      api.eps_attribute = entry.value("eps_attribute", "");
      api.eps_storage = parse_storage(entry.at("eps_storage").get<std::string>());
      api.cudnn_path = parse_path(entry.at("cudnn_path").get<std::string>());
      const std::size_t index = table.apis_.size();
      table.apis_.push_back(std::move(api));
      for (const auto& name : names) {
        if (!table.by_name_.emplace(name, index).second)
          throw std::runtime_error("name listed twice: " + name);
        table.names_.push_back(name);
        leaves.emplace_back(leaf_of(name));
      }
    }
    table.trigger_tokens_ = minimal_cover(std::move(leaves));
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(std::string("rules/api_table.json: ") + e.what());
  }
  return table;
}

const ApiTable& ApiTable::builtin() {
  static const ApiTable table = [] {
    for (const auto& file : embedded_files())
      if (file.path == "rules/api_table.json") return parse(file.contents);
    throw std::runtime_error("rules/api_table.json is not compiled into this binary");
  }();
  return table;
}

const NormalizationApi* ApiTable::find(std::string_view qualified_name) const {
  const auto it = by_name_.find(std::string(qualified_name));
  return it == by_name_.end() ? nullptr : &apis_[it->second];
}

const FrameworkInfo* ApiTable::framework(std::string_view key) const {
  for (const auto& fw : frameworks_)
    if (fw.key == key) return &fw;
  return nullptr;
}

const FrameworkInfo* ApiTable::framework_for_module(std::string_view top_module) const {
  for (const auto& fw : frameworks_)
    for (const auto& root : fw.roots)
      if (root == top_module) return &fw;
  return nullptr;
}

}  // namespace cudnnlint
