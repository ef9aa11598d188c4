#include "engine/config_files.h"

#include "core/identifier.h"
#include "core/suppression.h"
#include "python/frontend.h"

#include <algorithm>
#include <filesystem>
#include <unordered_set>

namespace cudnnlint {

namespace {

// Whether a YAML file is read by OmegaConf (Hydra), which takes `1e-6` as a number (PyYAML alone
// does not): its own syntax says so.
bool omegaconf_file(std::string_view text) {
  return text.find("${") != std::string_view::npos || text.find("_target_") != std::string_view::npos ||
         text.find("@package") != std::string_view::npos || text.find("defaults:") != std::string_view::npos;
}

}  // namespace

bool distinctive_key_path(const std::string& path) {
  return path.find('.') != std::string::npos || path.find('_') != std::string::npos;
}

ConfigFiles::ConfigFiles(const std::vector<std::string>& files, const LoadLimits& limits,
                         std::vector<FileDiagnostic>& diagnostics,
                         std::map<std::string, std::vector<SuppressionComment>>& suppressions)
    : files_(files), limits_(limits), diagnostics_(diagnostics), suppressions_(suppressions) {}

const config::ConfigDocument* ConfigFiles::document(std::size_t index) {
  if (const auto it = documents_.find(index); it != documents_.end()) return it->second.get();
  std::unique_ptr<config::ConfigDocument> doc;
  auto loaded = load_source_file(files_[index], limits_);
  if (auto* file = std::get_if<SourceFile>(&loaded)) {
    auto parsed = config::ConfigDocument::parse(*file);
    if (auto* d = std::get_if<config::ConfigDocument>(&parsed)) {
      doc = std::make_unique<config::ConfigDocument>(std::move(*d));
      omegaconf_[index] = omegaconf_file(file->text());
      suppressions_[file->path()] = hash_comment_suppressions(file->text());
    } else {
      diagnostics_.push_back(std::get<FileDiagnostic>(std::move(parsed)));
    }
  }
  const auto* raw = doc.get();
  documents_.emplace(index, std::move(doc));
  return raw;
}

// A config file's text, read once. One that cannot be read (over --max-file-size, binary, not
// UTF-8) gets the diagnostic a Python file gets, and reads as "": its values are not used.
const std::string& ConfigFiles::text(std::size_t index) {
  auto& text = texts_[index];
  if (text) return *text;
  auto loaded = load_source_file(files_[index], limits_);
  if (auto* error = std::get_if<LoadError>(&loaded)) {
    diagnostics_.push_back(
        {FileDiagnostic::Severity::Error, files_[index], std::nullopt, std::move(error->message)});
    return text.emplace();
  }
  return text.emplace(std::get<SourceFile>(loaded).text());
}

// Config files that may set `path`: their text names its last key as a word. Every config file's
// words are indexed once, on first use (a tree of hundreds of experiment configs is asked about
// hundreds of keys).
const std::vector<std::size_t>& ConfigFiles::candidates(const std::string& path) {
  if (!words_) {
    words_.emplace();
    for (std::size_t i = 0; i < files_.size(); ++i) {
      const std::string& words = text(i);
      std::unordered_set<std::string_view> seen;
      for (std::size_t at = 0; at < words.size();) {
        if (!is_identifier_char(words[at])) {
          ++at;
          continue;
        }
        std::size_t end = at;
        while (end < words.size() && is_identifier_char(words[end])) ++end;
        const std::string_view word(words.data() + at, end - at);
        if (seen.insert(word).second) (*words_)[std::string(word)].push_back(i);
        at = end;
      }
    }
  }
  static const std::vector<std::size_t> none;
  const std::string last = path.substr(path.rfind('.') == std::string::npos ? 0 : path.rfind('.') + 1);
  if (!is_identifier(last)) {
    // `cfg["batch-size"]`: no word of the index; the texts are searched for it.
    auto& found = spellings_[last];
    if (!found) {
      found.emplace();
      for (std::size_t i = 0; i < files_.size(); ++i)
        if (text(i).find(last) != std::string::npos) found->push_back(i);
    }
    return *found;
  }
  const auto it = words_->find(last);
  return it == words_->end() ? none : it->second;
}


// Where Hydra may mount a config file's keys: under its config group's folder name (one or two
// levels) unless `# @package` says otherwise; "" is the root.
std::vector<std::string> ConfigFiles::mount_prefixes(const config::ConfigDocument& doc) {
  if (doc.package() == "_global_") return {""};
  if (!doc.package().empty() && doc.package() != "_group_") return {doc.package()};
  std::vector<std::string> prefixes{""};
  const std::filesystem::path file(doc.path());
  const std::string parent = file.parent_path().filename().string();
  if (!parent.empty()) prefixes.push_back(parent);
  const std::string grandparent = file.parent_path().parent_path().filename().string();
  if (!parent.empty() && !grandparent.empty()) prefixes.push_back(grandparent + "." + parent);
  return prefixes;
}

// Every config file's value for `path` (the code's key path below its config object).
std::vector<ConfigHit> ConfigFiles::values(const std::string& path, bool yacs_reader) {
  std::vector<ConfigHit> hits;
  if (!distinctive_key_path(path)) return hits;
  for (const std::size_t index : candidates(path)) {
    const config::ConfigDocument* doc = document(index);
    if (doc == nullptr) continue;
    const std::vector<std::string> prefixes = mount_prefixes(*doc);
    for (const auto& prefix : prefixes) {
      std::string key = path;
      if (!prefix.empty()) {
        if (path.rfind(prefix + ".", 0) != 0) continue;
        key = path.substr(prefix.size() + 1);
      }
      const config::ConfigScalar* scalar = doc->find(key);
      if (scalar == nullptr) continue;
      ConfigHit hit;
      hit.file = doc->path();
      const config::ConfigScalar* final_scalar = doc->resolve(*scalar, hit.steps, prefixes);
      if (final_scalar == nullptr) break;
      std::reverse(hit.steps.begin(), hit.steps.end());
      // A file read under a mount is read by Hydra, through OmegaConf.
      const bool python_reader = doc->format() == config::ConfigDocument::Format::Json || yacs_reader ||
                                 omegaconf_[index] || !prefix.empty();
      const auto number = final_scalar->yaml_number ? final_scalar->yaml_number
                          : python_reader           ? final_scalar->python_number
                                                    : std::nullopt;
      if (!number) break;
      hit.scalar = scalar;
      hit.value = *number;
      hits.push_back(std::move(hit));
      break;
    }
  }
  return hits;
}

std::vector<FileFacts> hydra_normalizations(ConfigFiles& configs, const ApiTable& table,
                                            const std::map<std::string, std::vector<SuppressionComment>>& suppressions) {
  std::vector<FileFacts> out;
  const std::vector<std::string> tokens = table.trigger_tokens(std::vector<std::string>{std::string(kNormalizationFamily)});
  for (std::size_t i = 0; i < configs.size(); ++i) {
    if (configs.path(i).ends_with(".json")) continue;
    const std::string& text = configs.text(i);
    if (text.find("_target_") == std::string::npos || !python::may_contain_any(text, tokens)) continue;
    const config::ConfigDocument* doc = configs.document(i);
    if (doc == nullptr) continue;
    FileFacts facts;
    facts.path = doc->path();
    facts.language = "yaml";
    for (const config::TargetNode& node : doc->targets()) {
      const ApiEntry* table_api = table.find(node.target);
      if (table_api == nullptr || table_api->family != kNormalizationFamily) continue;
      std::vector<const ApiEntry*> variants{table_api};
      for (const ApiEntry& other : table_api->also) variants.push_back(&other);
      for (const ApiEntry* api : variants) {
        NormalizationFact fact;
        fact.api = api->from_project ? api->underlying : node.target;
        fact.spelled_as = api->from_project ? api->underlying_spelled : node.target;
        fact.eps_param = api->eps().name;
        fact.call = node.where;
        fact.origin = "hydra _target_";
        const config::ConfigScalar* eps = nullptr;
        for (const std::size_t k : node.keywords)
          if (doc->scalars()[k].path.back() == api->eps().name) eps = &doc->scalars()[k];
        if (eps == nullptr && api->eps().index && static_cast<std::size_t>(*api->eps().index) < node.positional.size())
          eps = &doc->scalars()[node.positional[static_cast<std::size_t>(*api->eps().index)]];
        if (eps == nullptr) {
          fact.eps.source = ValueSource::Default;
          if (api->eps().default_number) fact.eps.value = ConstantValue{*api->eps().default_number, "default", {}};
        } else {
          std::vector<ProvenanceStep> steps;
          const config::ConfigScalar* value = doc->resolve(*eps, steps, ConfigFiles::mount_prefixes(*doc));
          std::reverse(steps.begin(), steps.end());
          fact.eps.location = eps->where;
          // Hydra reads YAML through OmegaConf: `1e-6` is a number there.
          const auto number = value ? (value->yaml_number ? value->yaml_number : value->python_number) : std::nullopt;
          if (number) {
            fact.eps.source = ValueSource::Explicit;
            fact.eps.value = ConstantValue{*number, eps->text, std::move(steps)};
          } else {
            fact.eps.source = ValueSource::NotConstant;
          }
        }
        if (api->from_project)
          for (const auto& step : api->forwards) fact.uses.push_back(step);
        facts.normalizations.push_back(std::move(fact));
      }
    }
    if (const auto it = suppressions.find(facts.path); it != suppressions.end())
      facts.suppressions = it->second;
    if (!facts.normalizations.empty()) out.push_back(std::move(facts));
  }
  return out;
}

}  // namespace cudnnlint
