#include "server/project.h"

#include "cli/config.h"
#include "config/config_file.h"
#include "cpp/frontend.h"
#include "discovery/discovery.h"

#include <algorithm>
#include <set>
#include <variant>

namespace cudnnlint::server {

bool is_python(std::string_view path) { return path.ends_with(".py") || path.ends_with(".pyi"); }

bool is_project_file(const std::filesystem::path& path) {
  const std::string name = path.filename().string();
  return name == "pyproject.toml" || name == ".cudnnlint.toml" || name == "setup.cfg" || name == "setup.py" ||
         name == "poetry.lock" || name == "uv.lock" || name == "Pipfile.lock" || name == "compile_commands.json" ||
         name == "environment.yml" || name == "environment.yaml" ||
         ((name.starts_with("requirements") || name.starts_with("constraints")) && name.ends_with(".txt")) ||
         path.parent_path().filename() == "requirements";
}

bool only_in_editor(const std::string& path, const LoadLimits& limits) {
  // C, C++ and CUDA are analysed from the saved file (clang reads it), never from a buffer.
  if (!limits.overlay || !limits.overlay->contains(path) || cpp::is_cpp_source(path)) return false;
  std::error_code ec;
  return !std::filesystem::exists(std::filesystem::status(path, ec));  // as discovery looks
}

void Project::set_root(std::string root) {
  const std::lock_guard lock(mutex_);
  while (root.size() > 1 && root.back() == '/') root.pop_back();
  root_ = std::move(root);
  files_.reset();
  import_graph_.reset();
  targets_.clear();
  drop_module_indexes();
  config_readers_.clear();
}

bool Project::inside(const std::string& path) const {
  return !root_.empty() && path.size() > root_.size() && path.starts_with(root_) &&
         (root_ == "/" || path[root_.size()] == '/');
}

const Project::Files& Project::files(const AnalysisOptions& options) {
  if (!files_) {
    files_.emplace();
    const std::vector<std::string> roots{root_};
    DiscoveryResult found = discover(roots, options.discovery);
    for (auto& path : found.files) {
      if (is_python(path)) files_->python.push_back(std::move(path));
      else if (!cpp::is_cpp_source(path)) files_->configs.push_back(std::move(path));
    }
    for (const FileDiagnostic& d : found.diagnostics) log_ << "cudnnlint server: " << d.path << ": " << d.message << '\n';
  }
  return *files_;
}

std::string Project::pins_key(const std::vector<std::string>& paths) {
  // The folders the pins are searched upward from (config/pins.h).
  std::set<std::string> folders;
  for (const auto& path : paths) folders.insert(std::filesystem::path(path).parent_path().string());
  std::string key;
  for (const auto& folder : folders) key += folder + '\n';
  return key;
}

const std::string& Project::pins_key_of(const std::vector<std::string>& paths) {
  if (paths != pins_paths_ || pins_key_.empty()) {
    pins_paths_ = paths;
    pins_key_ = pins_key(paths);
  }
  return pins_key_;
}

void Project::drop_module_indexes() {
  // A new cache, not a cleared one: an analysis on the other thread keeps the one it was given.
  module_indexes_ = std::make_shared<ModuleIndexCache>();
}

AnalysisOptions Project::options_for(const std::string& path,
                                     std::shared_ptr<const std::map<std::string, std::string, std::less<>>> overlay,
                                     ParsedPythonFiles parsed, std::shared_ptr<SessionCache> session, std::string& note) {
  const std::lock_guard lock(mutex_);
  AnalysisOptions options;
  options.paths = {path};
  options.line_hashes = false;
  options.jobs = 1;  // one document and its imports: threads would cost more than they give
  options.session = std::move(session);
  options.limits.overlay = std::move(overlay);
  options.parsed_python = std::move(parsed);
  // The configuration a command-line run in the workspace would read.
  try {
    apply_project_config(
        load_project_config(root_.empty() ? std::filesystem::path(path).parent_path() : std::filesystem::path(root_), {}),
        options);
  } catch (const std::exception& e) {
    log_ << "cudnnlint server: configuration: " << e.what() << '\n';
  }
  // A document of the workspace: with the files `cudnnlint .` would follow from it, and the config
  // files code may read.
  if (is_python(path) && inside(path)) add_python_neighbours(path, options, note);
  else if (config::is_config_file(path) && inside(path)) add_config_readers(path, options, note);
  if (only_in_editor(path, options.limits)) {
    // A new file, not saved yet: discovery would refuse it ("no such file or directory"); its
    // buffer is its text. The other paths are the workspace walk's, so none needs discovering.
    options.paths_discovered = true;
  }
  // The pins read for the same folders last time (the dependency files are watched: a change
  // clears this).
  if (const auto known = targets_.find(pins_key_of(options.paths)); known != targets_.end()) {
    options.target = known->second;
    options.read_pins = false;
  }
  return options;
}

void Project::add_python_neighbours(const std::string& path, AnalysisOptions& options, std::string& note) {
  const Files& project = files(options);
  if (!import_graph_) import_graph_.emplace(project.python, options.limits);
  ImportClosure closure = import_graph_->closure(path, options.limits, kMaxAnalysed);
  std::set<std::string> analysed(closure.files.begin(), closure.files.end());
  std::size_t importers = 0;
  for (const std::string& importer : import_graph_->importers_of(path)) {
    if (analysed.size() >= kMaxAnalysed || ++importers > kMaxImporters) {
      closure.truncated = true;
      break;
    }
    for (std::string& file : import_graph_->closure(importer, options.limits, kMaxAnalysed - analysed.size()).files)
      if (analysed.insert(file).second) closure.files.push_back(std::move(file));
  }
  if (closure.truncated) note_cut(path, note);
  // Every file but a document the walk did not find (new, or excluded) is one it found, with
  // these options: discovery need not look at them again.
  options.paths_discovered = std::binary_search(project.python.begin(), project.python.end(), path);
  options.paths = std::move(closure.files);
  options.paths.insert(options.paths.end(), project.configs.begin(), project.configs.end());
  options.module_indexes = module_indexes_;
}

void Project::add_config_readers(const std::string& path, AnalysisOptions& options, std::string& note) {
  const Files& project = files(options);
  if (!import_graph_) import_graph_.emplace(project.python, options.limits);
  std::vector<std::string> keys;
  if (const auto loaded = load_source_file(path, options.limits); std::holds_alternative<SourceFile>(loaded))
    keys = config_keys(std::get<SourceFile>(loaded).text());
  std::vector<std::string> paths{path};
  std::set<std::string> analysed{path};
  for (const std::string& reader : config_readers_.readers(keys, project.python, options.limits)) {
    if (analysed.size() >= kMaxAnalysed) {
      note_cut(path, note);
      break;
    }
    for (std::string& file : import_graph_->closure(reader, options.limits, kMaxAnalysed - analysed.size()).files)
      if (analysed.insert(file).second) paths.push_back(std::move(file));
  }
  for (const std::string& config : project.configs)
    if (analysed.insert(config).second) paths.push_back(config);
  options.paths_discovered = std::binary_search(project.configs.begin(), project.configs.end(), path);
  options.paths = std::move(paths);
  options.module_indexes = module_indexes_;
}

void Project::note_cut(const std::string& path, std::string& note) {
  if (cut_noted_) return;
  cut_noted_ = true;
  note = "cudnnlint: " + path + " is analysed with the first " + std::to_string(kMaxAnalysed) +
         " workspace files it imports or is imported by, or that read it (and the first " +
         std::to_string(kMaxImporters) + " importers); values from the rest are not followed";
}

void Project::remember(const AnalysisOptions& options, const AnalysisResult& result) {
  if (!options.read_pins) return;
  const std::lock_guard lock(mutex_);
  targets_[pins_key_of(options.paths)] = result.target;
}

void Project::configuration_changed() {
  const std::lock_guard lock(mutex_);
  targets_.clear();     // the pins or the configured versions may have changed
  files_.reset();       // the excludes may have changed
  import_graph_.reset();
  drop_module_indexes();
  config_readers_.clear();
}

void Project::files_came_or_went() {
  const std::lock_guard lock(mutex_);
  files_.reset();  // a module or config file came or went: imports may resolve elsewhere
  import_graph_.reset();
  drop_module_indexes();  // an __init__.py may have come or gone
  config_readers_.clear();
}

void Project::module_changed() {
  const std::lock_guard lock(mutex_);
  import_graph_.reset();    // its imports may have changed
  config_readers_.clear();  // and the config keys it names
}

}  // namespace cudnnlint::server
