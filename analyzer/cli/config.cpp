#include "cli/config.h"

#include "core/tree_bounds.h"

#include "core/api_table.h"
#include "core/source_file.h"
#include "core/target.h"

#include "core/suggest.h"

#include <algorithm>
#include <set>
#include <stdexcept>
#include <toml++/toml.h>

namespace cudnnlint {

namespace {

std::vector<std::string> string_list(const toml::node_view<const toml::node>& node, const std::string& key,
                                     const std::filesystem::path& file) {
  std::vector<std::string> out;
  if (!node) return out;
  const toml::array* array = node.as_array();
  if (array == nullptr) throw std::runtime_error(file.string() + ": '" + key + "' must be an array of strings");
  for (const auto& item : *array) {
    const auto value = item.value<std::string>();
    if (!value) throw std::runtime_error(file.string() + ": '" + key + "' must be an array of strings");
    out.push_back(*value);
  }
  return out;
}

std::string join(const std::vector<std::string>& items, std::string_view separator) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : std::string(separator)) + item;
  return out;
}

ProjectConfig read_table(const toml::table& table, const std::filesystem::path& file) {
  static const std::vector<std::string> known = {"cudnn-version", "frameworks",       "select",
                                                 "ignore",        "extend-select",    "extend-ignore",
                                                 "per-file-ignores", "exclude",      "fail-level",
                                                 "max-file-size"};
  for (const auto& [key, value] : table) {
    (void)value;
    if (std::find(known.begin(), known.end(), key.str()) == known.end())
      throw std::runtime_error(file.string() + ": unknown key '" + std::string(key.str()) + "'" +
                               did_you_mean(key.str(), known) + " (keys: " + join(known, ", ") + ")");
  }
  ProjectConfig config;
  config.file = file;
  const toml::node_view<const toml::node> view{table};
  if (auto v = view["cudnn-version"]) {
    if (!v.is_string()) throw std::runtime_error(file.string() + ": 'cudnn-version' must be a string like \"8.9\"");
    config.cudnn_version = v.value<std::string>();
  }
  if (auto v = view["frameworks"]; v && v.is_table()) {
    for (const auto& [name, version] : *v.as_table()) {
      const auto text = version.value<std::string>();
      if (!text) throw std::runtime_error(file.string() + ": frameworks." + std::string(name.str()) + " must be a string");
      config.frameworks.push_back(std::string(name.str()) + "=" + *text);
    }
  } else {
    config.frameworks = string_list(view["frameworks"], "frameworks", file);
  }
  config.select = string_list(view["select"], "select", file);
  config.ignore = string_list(view["ignore"], "ignore", file);
  config.extend_select = string_list(view["extend-select"], "extend-select", file);
  config.extend_ignore = string_list(view["extend-ignore"], "extend-ignore", file);
  if (auto v = view["per-file-ignores"]) {
    const toml::table* patterns = v.as_table();
    if (patterns == nullptr)
      throw std::runtime_error(file.string() + ": 'per-file-ignores' must be a table of pattern = [rule ids]");
    for (const auto& [pattern, rules] : *patterns) {
      const std::string key = "per-file-ignores.\"" + std::string(pattern.str()) + "\"";
      std::error_code ec;
      config.per_file_ignores.push_back(PerFileIgnore{
          std::string(pattern.str()), string_list(toml::node_view<const toml::node>{rules}, key, file),
          std::filesystem::absolute(file, ec).parent_path().lexically_normal().string()});
    }
  }
  config.exclude = string_list(view["exclude"], "exclude", file);
  if (auto v = view["fail-level"]) {
    if (!v.is_string()) throw std::runtime_error(file.string() + ": 'fail-level' must be a string");
    config.fail_level = v.value<std::string>();
  }
  if (auto v = view["max-file-size"]) {
    const auto size = v.value<std::int64_t>();
    if (!size || *size <= 0) throw std::runtime_error(file.string() + ": 'max-file-size' must be a positive integer");
    config.max_file_size = static_cast<std::uintmax_t>(*size);
  }
  return config;
}

toml::table parse_file(const std::filesystem::path& file) {
  LoadLimits limits;
  limits.max_bytes = 16u << 20;
  auto loaded = load_source_file(file.string(), limits);
  if (auto* error = std::get_if<LoadError>(&loaded)) throw std::runtime_error(file.string() + ": " + error->message);
  const SourceFile& source = std::get<SourceFile>(loaded);
  // toml++ reads the original bytes only when their ASCII copy is a valid document and every
  // non-ASCII byte stands in a string or comment (core/source_file.h: toml++ 3.3's undefined
  // behaviour on the others).
  const std::string ascii = toml_ascii_copy(source.text());
  try {
    toml::table table = toml::parse(ascii, file.string());
    if (ascii == source.text()) return table;
  } catch (const toml::parse_error& e) {
    const auto& where = e.source().begin;
    throw std::runtime_error(file.string() + ":" + std::to_string(where.line) + ":" + std::to_string(where.column) +
                             ": invalid TOML: " + std::string(e.description()));
  }
  if (const auto at = find_toml_non_ascii_outside_strings(source.text()); at != std::string::npos)
    throw std::runtime_error(file.string() + ":" + std::to_string(source.position_at(at).line) +
                             ": invalid TOML: a non-ASCII character outside a string or comment");
  try {
    return toml::parse(source.text(), file.string());
  } catch (const toml::parse_error& e) {
    const auto& where = e.source().begin;
    throw std::runtime_error(file.string() + ":" + std::to_string(where.line) + ":" + std::to_string(where.column) +
                             ": invalid TOML: " + std::string(e.description()));
  }
}

}  // namespace

ProjectConfig load_project_config(const std::filesystem::path& start, const std::filesystem::path& explicit_file) {
  namespace fs = std::filesystem;
  if (!explicit_file.empty()) {
    if (!fs::exists(explicit_file)) throw std::runtime_error(explicit_file.string() + ": no such file");
    const toml::table doc = parse_file(explicit_file);
    if (explicit_file.filename() == "pyproject.toml") {
      const auto* section = doc["tool"]["cudnnlint"].as_table();
      return section ? read_table(*section, explicit_file) : ProjectConfig{};
    }
    return read_table(doc, explicit_file);
  }
  std::error_code ec;
  // A config file found on the way is the tree's: one that is a link out of its folder would have
  // its keys quoted in the errors (and its settings taken) from a file outside the tree.
  const auto stays = [](const fs::path& file) {
    std::error_code link_ec;
    if (!fs::is_symlink(fs::symlink_status(file, link_ec))) return;
    if (!resolves_within(file, fs::canonical(file.parent_path(), link_ec)))
      throw std::runtime_error(file.string() + ": a symbolic link that leads outside its folder: not read");
  };
  for (fs::path dir = fs::absolute(start, ec); !dir.empty(); dir = dir.parent_path()) {
    const fs::path dedicated = dir / ".cudnnlint.toml";
    if (fs::is_regular_file(dedicated, ec)) {
      stays(dedicated);
      return read_table(parse_file(dedicated), dedicated);
    }
    const fs::path pyproject = dir / "pyproject.toml";
    if (fs::is_regular_file(pyproject, ec)) {
      stays(pyproject);
      const toml::table doc = parse_file(pyproject);
      if (const auto* section = doc["tool"]["cudnnlint"].as_table()) return read_table(*section, pyproject);
    }
    if (dir == dir.root_path()) break;
  }
  return ProjectConfig{};
}

void add_framework_pins(const std::vector<std::string>& specs, const std::string& where, Target& target) {
  std::set<std::string> seen;
  for (const auto& spec : specs) {
    auto [name, version] = parse_framework_spec(spec);
    const FrameworkInfo* known = ApiTable::builtin().framework(name);
    if (known == nullptr || name == "cudnn")
      throw std::invalid_argument(where + ": unknown framework '" + name +
                                  "' (known: torch, tensorflow, keras, flax, haiku, mxnet, paddle; the cuDNN "
                                  "version is --cudnn-version)");
    if (!seen.insert(name).second) throw std::invalid_argument(where + ": framework '" + name + "' given twice");
    target.frameworks[name] = version;
    target.framework_sources[name] = where;
  }
}

void apply_project_config(const ProjectConfig& config, AnalysisOptions& options) {
  options.discovery.exclude = config.exclude;
  options.select = config.select;
  options.ignore = config.ignore;
  // extend-select widens what select chose (all rules when it chose none: nothing to widen).
  if (!options.select.empty())
    options.select.insert(options.select.end(), config.extend_select.begin(), config.extend_select.end());
  options.ignore.insert(options.ignore.end(), config.extend_ignore.begin(), config.extend_ignore.end());
  options.per_file_ignores = config.per_file_ignores;
  if (config.max_file_size) options.limits.max_bytes = *config.max_file_size;
  const std::string name = config.file.empty() ? "" : config.file.filename().string();
  if (config.cudnn_version) {
    options.target.cudnn = parse_version(*config.cudnn_version);
    if (!options.target.cudnn)
      throw std::invalid_argument("bad cuDNN version '" + *config.cudnn_version + "' (expected e.g. 7.4 or 8.9.5)");
    options.target.cudnn_source = name;
  }
  add_framework_pins(config.frameworks, name, options.target);
}

}  // namespace cudnnlint
