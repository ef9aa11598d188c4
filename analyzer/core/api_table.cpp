#include "core/api_table.h"

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
  throw std::runtime_error("unknown cudnn_path '" + text + "'");
}

EpsStorage parse_storage(const std::string& text) {
  if (text == "float64") return EpsStorage::Float64;
  if (text == "float32") return EpsStorage::Float32;
  if (text == "array") return EpsStorage::Array;
  throw std::runtime_error("unknown eps_storage '" + text + "'");
}

EpsRefusal parse_refusal(const nlohmann::json& json) {
  EpsRefusal refusal;
  const auto version = [](const nlohmann::json& text) {
    const auto v = parse_version(text.get<std::string>());
    if (!v) throw std::runtime_error("eps_refusals: bad version '" + text.get<std::string>() + "'");
    return *v;
  };
  refusal.from = version(json.at("from"));
  if (json.contains("until")) refusal.until = version(json.at("until"));
  const std::string refuses = json.at("refuses").get<std::string>();
  if (refuses == "non_positive") refusal.refuses = EpsRefusal::Refuses::NonPositive;
  else if (refuses == "negative_or_zero_in_training") refusal.refuses = EpsRefusal::Refuses::NegativeOrZeroInTraining;
  else throw std::runtime_error("eps_refusals: unknown refuses '" + refuses + "'");
  refusal.error = json.at("error").get<std::string>();
  return refusal;
}

std::string_view leaf_of(std::string_view qualified) {
  const auto colons = qualified.rfind("::");
  if (colons != std::string_view::npos) qualified = qualified.substr(colons + 2);
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

ApiArg parse_arg(const nlohmann::json& json) {
  ApiArg arg;
  arg.name = json.at("name").get<std::string>();
  if (json.contains("index") && !json.at("index").is_null()) arg.index = json.at("index").get<int>();
  if (json.contains("default")) {
    const auto& d = json.at("default");
    arg.has_default = !d.is_null();
    if (d.is_number()) arg.default_number = d.get<double>();
    else if (d.is_string()) arg.default_text = d.get<std::string>();
    else if (!d.is_null()) arg.default_text = d.dump();
  }
  return arg;
}

}  // namespace

const ApiArg* ApiEntry::arg(std::string_view role) const {
  const auto it = args.find(role);
  return it == args.end() ? nullptr : &it->second;
}

const ApiArg& ApiEntry::eps() const {
  static const ApiArg none{};
  const ApiArg* found = arg("eps");
  return found ? *found : none;
}

void ApiTable::index_names(std::size_t entry, const std::vector<std::string>& names) {
  for (const auto& name : names) {
    if (!by_name_.emplace(name, entry).second) throw std::runtime_error("name listed twice: " + name);
    names_.push_back(name);
    name_entry_.push_back(entry);
  }
}

ApiTable ApiTable::parse(std::string_view json_text) {
  ApiTable table;
  try {
    const auto doc = nlohmann::json::parse(json_text);
    for (const auto& [key, info] : doc.at("frameworks").items()) {
      table.frameworks_.push_back(
          FrameworkInfo{key, info.at("display").get<std::string>(), info.at("roots").get<std::vector<std::string>>()});
    }
    for (const auto& entry : doc.at("apis")) {
      ApiEntry api;
      const auto names = entry.at("names").get<std::vector<std::string>>();
      if (names.empty()) throw std::runtime_error("an entry has no names");
      api.canonical = names.front();
      api.family = entry.at("family").get<std::string>();
      api.framework = entry.at("framework").get<std::string>();
      if (!table.framework(api.framework)) throw std::runtime_error("unknown framework '" + api.framework + "'");
      api.is_class = entry.at("kind").get<std::string>() == "class";
      api.is_method = entry.at("kind").get<std::string>() == "method";
      api.framework_replay = entry.value("framework_replay", false);
      for (const auto& [role, arg] : entry.at("args").items()) api.args.emplace(role, parse_arg(arg));
      if (entry.contains("cpp_spellings")) api.cpp_spellings = entry.at("cpp_spellings").get<std::vector<std::string>>();
      if (api.family == kNormalizationFamily) {
        if (!api.arg("eps")) throw std::runtime_error(api.canonical + ": a normalization needs an \"eps\" argument");
        const auto& norm = entry.at("normalization");
        api.eps_attribute = norm.value("eps_attribute", "");
        api.eps_storage = parse_storage(norm.at("eps_storage").get<std::string>());
        api.cudnn_path = parse_path(norm.at("cudnn_path").get<std::string>());
        if (norm.contains("eps_refusals"))
          for (const auto& refusal : norm.at("eps_refusals")) api.eps_refusals.push_back(parse_refusal(refusal));
        api.refusal_condition = norm.value("refusal_condition", "");
      } else if (api.family == kConvolutionFamily) {
        const auto& conv = entry.at("convolution");
        api.spatial_dims = conv.at("spatial_dims").get<int>();
        api.layout = conv.value("layout", "");
      } else if (api.family == kLoaderFamily) {
        if (!api.arg("batch_size")) throw std::runtime_error(api.canonical + ": a loader needs a \"batch_size\" argument");
        const auto& loader = entry.at("loader");
        api.loader.refuses_zero = loader.at("refuses").get<std::string>() == "non_positive";
        api.loader.none_disables_batching = loader.value("none_disables_batching", false);
        api.loader.when = loader.at("when").get<std::string>();
        api.loader.error = loader.at("error").get<std::string>();
        api.loader.measured = loader.at("measured").get<std::string>();
      } else if (api.family == kOptimizerFamily) {
        // torch.optim's read the dtype of the parameters they are given; Keras's take no parameters.
        if (!api.arg("eps") || (api.framework == "torch" && !api.arg("params")))
          throw std::runtime_error(api.canonical + ": an optimizer needs an \"eps\" argument (and torch's \"params\")");
      } else {
        throw std::runtime_error(api.canonical + ": unknown family '" + api.family + "'");
      }
      const std::size_t index = table.apis_.size();
      table.apis_.push_back(std::move(api));
      table.index_names(index, names);
    }
    if (doc.contains("datasets"))
      for (const auto& entry : doc.at("datasets")) {
        DatasetInfo dataset{entry.at("sample").get<std::vector<std::int64_t>>(), entry.at("source").get<std::string>()};
        if (dataset.sample.empty() || std::any_of(dataset.sample.begin(), dataset.sample.end(), [](std::int64_t v) { return v <= 0; }))
          throw std::runtime_error("a dataset's sample sizes must be positive");
        for (const auto& name : entry.at("names"))
          if (!table.dataset_by_name_.emplace(name.get<std::string>(), table.datasets_.size()).second)
            throw std::runtime_error("dataset " + name.get<std::string>() + " is listed twice");
        table.datasets_.push_back(std::move(dataset));
      }
    if (doc.contains("config_types"))
      for (const auto& [system, types] : doc.at("config_types").items())
        for (const auto& [type, target] : types.items()) {
          const std::string name = target.get<std::string>();
          if (!table.find(name)) throw std::runtime_error("config type " + system + "/" + type + " names unknown API " + name);
          table.config_types_[system][type] = name;
        }
    if (doc.contains("element_types")) {
      const auto& types = doc.at("element_types");
      ElementTypeOps& ops = table.element_types_;
      for (const auto& name : types.at("keeping_methods")) ops.keeping_methods.insert(name.get<std::string>());
      for (const auto& name : types.at("keeping_functions")) ops.keeping_functions.insert(name.get<std::string>());
      for (const auto& name : types.at("floating_only")) ops.floating_only.insert(name.get<std::string>());
      for (const auto& name : types.at("autocast_float32")) ops.autocast_float32.insert(name.get<std::string>());
      const auto element_type = [](const std::string& op, const nlohmann::json& name) {
        const DType dtype = dtype_from_name(name.get<std::string>());
        if (dtype == DType::Unknown) throw std::runtime_error("element_types: " + op + " names no element type");
        return dtype;
      };
      for (const auto& [op, name] : types.at("setting_functions").items())
        ops.setting_functions.emplace(op, element_type(op, name));
      for (const auto& [op, name] : types.at("setting_methods").items())
        ops.setting_methods.emplace(op, element_type(op, name));
    }
    if (doc.contains("config_objects")) {
      const auto& kinds = doc.at("config_objects");
      ConfigObjectKinds& into = table.config_objects_;
      const auto read = [&](const char* key, std::set<std::string, std::less<>>& names) {
        for (const auto& name : kinds.at(key)) names.insert(name.get<std::string>());
      };
      read("keyword_namespaces", into.keyword_namespaces);
      read("mapping_namespaces", into.mapping_namespaces);
      read("field_class_decorators", into.field_class_decorators);
      read("field_class_bases", into.field_class_bases);
      read("keyword_field_bases", into.keyword_field_bases);
      read("field_default_functions", into.field_default_functions);
    }
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(std::string("rules/api_table.json: ") + e.what());
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    if (what.rfind("rules/api_table.json", 0) == 0) throw;
    throw std::runtime_error("rules/api_table.json: " + what);
  }
  return table;
}

const DatasetInfo* ApiTable::dataset(std::string_view qualified_name) const {
  const auto it = dataset_by_name_.find(qualified_name);
  return it == dataset_by_name_.end() ? nullptr : &datasets_[it->second];
}

std::vector<std::string> ApiTable::dataset_names() const {
  std::vector<std::pair<std::size_t, std::string>> ordered;
  for (const auto& [name, index] : dataset_by_name_) ordered.emplace_back(index, name);
  std::sort(ordered.begin(), ordered.end());
  std::vector<std::string> out;
  for (auto& [index, name] : ordered) out.push_back(std::move(name));
  return out;
}

ApiTable ApiTable::with_entries(std::span<const ApiEntry> extra, std::span<const std::vector<std::string>> names) const {
  ApiTable copy = *this;
  for (std::size_t i = 0; i < extra.size() && i < names.size(); ++i) {
    const std::size_t index = copy.apis_.size();
    copy.apis_.push_back(extra[i]);
    for (const auto& name : names[i]) {
      if (!copy.by_name_.emplace(name, index).second) continue;  // a framework name wins over a project alias
      copy.names_.push_back(name);
      copy.name_entry_.push_back(index);
    }
  }
  return copy;
}

const ApiTable& ApiTable::builtin() {
  static const ApiTable table = [] {
    for (const auto& file : embedded_files())
      if (file.path == "rules/api_table.json") return parse(file.contents);
    throw std::runtime_error("rules/api_table.json is not compiled into this binary");
  }();
  return table;
}

const ApiEntry* ApiTable::find(std::string_view qualified_name) const {
  const auto it = by_name_.find(std::string(qualified_name));
  return it == by_name_.end() ? nullptr : &apis_[it->second];
}

std::vector<std::string> ApiTable::names_of(std::string_view family) const {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < names_.size(); ++i)
    if (apis_[name_entry_[i]].family == family) out.push_back(names_[i]);
  return out;
}

std::vector<std::string> ApiTable::trigger_tokens(std::span<const std::string> families) const {
  auto wanted = [&](const std::string& family) {
    return families.empty() || std::find(families.begin(), families.end(), family) != families.end();
  };
  std::vector<std::string> leaves;
  for (std::size_t i = 0; i < names_.size(); ++i) {
    const ApiEntry& api = apis_[name_entry_[i]];
    if (!wanted(api.family)) continue;
    // C++ setters (BatchNormOptions::eps) are found by clang, not by this prefilter; methods: methods_of.
    if (names_[i].find("::") != std::string::npos || api.framework == "cudnn" || api.is_method) continue;
    leaves.emplace_back(leaf_of(names_[i]));
  }
  for (const auto& [system, types] : config_types_)
    for (const auto& [type, target] : types)
      if (const ApiEntry* api = find(target); api && wanted(api->family)) {
        leaves.push_back("'" + type + "'");
        leaves.push_back("\"" + type + "\"");
      }
  return minimal_cover(std::move(leaves));
}

std::vector<std::string> ApiTable::trigger_words(std::span<const std::string> families) const {
  std::vector<std::string> words;
  for (std::size_t i = 0; i < names_.size(); ++i) {
    const ApiEntry& api = apis_[name_entry_[i]];
    if (!families.empty() && std::find(families.begin(), families.end(), api.family) == families.end()) continue;
    // Methods are named by words common in any code (`batch`, `fit`): see methods_of.
    if (names_[i].find("::") != std::string::npos || api.framework == "cudnn" || api.is_method) continue;
    std::string leaf(leaf_of(names_[i]));
    if (std::find(words.begin(), words.end(), leaf) == words.end()) words.push_back(std::move(leaf));
  }
  return words;
}

std::vector<std::string> ApiTable::cpp_trigger_words(std::string_view framework) const {
  std::vector<std::string> words;
  auto add = [&](std::string word) {
    if (std::find(words.begin(), words.end(), word) == words.end()) words.push_back(std::move(word));
  };
  for (std::size_t i = 0; i < names_.size(); ++i) {
    const ApiEntry& api = apis_[name_entry_[i]];
    const std::string& name = names_[i];
    const bool cpp = name.find("::") != std::string::npos || (api.framework == "cudnn" && name.find('.') == std::string::npos);
    if (!cpp || (!framework.empty() && api.framework != framework)) continue;
    if (!api.cpp_spellings.empty()) {
      for (const auto& spelling : api.cpp_spellings) add(spelling);
      continue;
    }
    add(name.substr(name.rfind(':') == std::string::npos ? 0 : name.rfind(':') + 1));
  }
  return words;
}

std::vector<std::string> ApiTable::quoted_tokens(std::span<const std::string> families) const {
  std::vector<std::string> out;
  for (const auto& [system, types] : config_types_)
    for (const auto& [type, target] : types)
      if (const ApiEntry* api = find(target);
          api && (families.empty() || std::find(families.begin(), families.end(), api->family) != families.end())) {
        out.push_back("'" + type + "'");
        out.push_back("\"" + type + "\"");
      }
  return out;
}

std::vector<std::string> ApiTable::instance_attributes() const {
  std::vector<std::string> out;
  for (const auto& api : apis_)
    if (!api.eps_attribute.empty() &&
        std::find(out.begin(), out.end(), api.eps_attribute) == out.end())
      out.push_back(api.eps_attribute);
  return out;
}

std::vector<std::pair<std::string, const ApiEntry*>> ApiTable::methods_of(std::string_view family) const {
  std::vector<std::pair<std::string, const ApiEntry*>> out;
  for (std::size_t i = 0; i < names_.size(); ++i) {
    const ApiEntry& api = apis_[name_entry_[i]];
    if (api.is_method && !api.from_project && api.family == family) out.emplace_back(leaf_of(names_[i]), &api);
  }
  return out;
}

const ApiEntry* ApiTable::config_type(std::string_view system, std::string_view type) const {
  const auto s = config_types_.find(std::string(system));
  if (s == config_types_.end()) return nullptr;
  const auto t = s->second.find(std::string(type));
  return t == s->second.end() ? nullptr : find(t->second);
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
