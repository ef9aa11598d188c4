#include "engine/project.h"

#include "engine/config_files.h"

#include "cache/hash.h"
#include "engine/session_cache.h"

#include "config/config_file.h"
#include "core/identifier.h"
#include "core/suppression.h"
#include "engine/settleable.h"
#include "python/frontend.h"
#include "python/imports.h"
#include "python/incremental_tree.h"
#include "python/lexing.h"
#include "python/syntax.h"

#include <algorithm>
#include <cmath>
#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <cstring>
#include <unordered_map>
#include <unordered_set>

namespace cudnnlint {

namespace {

constexpr int kMaxRounds = 6;
constexpr int kMaxChain = 12;
// At most this many config files may name a key whose value is folded into expressions.
constexpr std::size_t kMaxFoldedConfigFiles = 8;

std::string leaf_of(std::string_view qualified) {
  const auto dot = qualified.rfind('.');
  return std::string(dot == std::string_view::npos ? qualified : qualified.substr(dot + 1));
}

std::string where_text(const Location& where) {
  return where.path + ":" + std::to_string(where.range.begin.line);
}

// Names that hold parsed command-line arguments in real code.
bool args_like(std::string_view root) {
  const auto dot = root.rfind('.');
  std::string lower;
  for (char c : dot == std::string_view::npos ? root : root.substr(dot + 1))
    lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  return lower.find("arg") != std::string::npos || lower.find("opt") != std::string::npos ||
         lower.find("flag") != std::string::npos || lower.find("hparam") != std::string::npos || lower == "hp" ||
         lower == "hps";
}



bool config_like_root(std::string_view name) {
  std::string lower;
  for (char c : name) lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  return lower == "_c" || lower == "c" || lower.find("cfg") != std::string::npos || lower.find("conf") != std::string::npos;
}

// Whether `text` may set a config default for a key ending in `key` the way yacs-style code does:
// `<root>.A.<key> = value` with a config-like root (or, in a file that builds config nodes, any
// root but self). Mirrors python/extract/config_values.h so that only such files are parsed.
// string_view::find, by glibc's memmem: find stops at every '.' of a file (memchr, then memcmp).
std::size_t find_text(std::string_view text, std::string_view needle, std::size_t from) {
  if (from > text.size()) return std::string_view::npos;
  const void* hit = ::memmem(text.data() + from, text.size() - from, needle.data(), needle.size());
  return hit == nullptr ? std::string_view::npos : static_cast<std::size_t>(static_cast<const char*>(hit) - text.data());
}

bool may_set_config_key(std::string_view text, std::string_view key) {
  std::optional<bool> builds;  // looked for only when a root is not config-like
  auto builds_nodes = [&] {
    if (!builds)
      builds = text.find("CN(") != std::string_view::npos || text.find("CfgNode(") != std::string_view::npos ||
               text.find("ConfigDict(") != std::string_view::npos || text.find("EasyDict(") != std::string_view::npos ||
               text.find("edict(") != std::string_view::npos || text.find("AttrDict(") != std::string_view::npos;
    return *builds;
  };
  const std::string needle = "." + std::string(key);
  for (std::size_t at = find_text(text, needle, 0); at != std::string_view::npos; at = find_text(text, needle, at + 1)) {
    std::size_t after = at + needle.size();
    if (after < text.size() && is_identifier_char(text[after])) continue;
    while (after < text.size() && (text[after] == ' ' || text[after] == '\t')) ++after;
    if (after >= text.size() || text[after] != '=' || (after + 1 < text.size() && text[after + 1] == '=')) continue;
    std::size_t begin = at;
    while (begin > 0 && (is_identifier_char(text[begin - 1]) || text[begin - 1] == '.')) --begin;
    const std::string_view chain = text.substr(begin, at - begin);
    const std::string_view root = chain.substr(0, chain.find('.'));
    if (root.empty() || root == "self") continue;
    if (config_like_root(root) || builds_nodes()) return true;
  }
  return false;
}

// Whether `text` assigns an attribute named `dest` (`args.batch_size = ...`, `opt.bs += 1`, not
// `==`) or names it in `set_defaults(...)`: an argparse default the code replaces at run time.
bool rewrites_dest(std::string_view text, std::string_view dest) {
  const std::string needle = "." + std::string(dest);
  for (std::size_t at = find_text(text, needle, 0); at != std::string_view::npos; at = find_text(text, needle, at + 1)) {
    std::size_t after = at + needle.size();
    if (after < text.size() && is_identifier_char(text[after])) continue;
    while (after < text.size() && (text[after] == ' ' || text[after] == '\t')) ++after;
    if (after >= text.size()) break;
    if (text[after] == '=' && (after + 1 >= text.size() || text[after + 1] != '=')) return true;
    if (after + 1 < text.size() && text[after + 1] == '=' && std::string_view("+-*/|&").find(text[after]) != std::string_view::npos)
      return true;
  }
  for (std::size_t at = text.find("set_defaults("); at != std::string_view::npos; at = text.find("set_defaults(", at + 1)) {
    const std::size_t end = text.find(')', at);
    const std::string_view call = text.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at);
    if (call.find(dest) != std::string_view::npos) return true;
  }
  return false;
}

// The key paths `text` reads off a config-like object (`cfg.data.size`, `config["train"]["eps"]`,
// `self.cfg.MODEL.X`): those the project step looks up in the config files before a file's second
// extraction. A read the text only seems to hold (in a string) costs a lookup, nothing more: the
// folder reads the code itself.
constexpr std::size_t kMaxComposedConfigPaths = 256;

std::set<std::string> config_key_paths(std::string_view text) {
  std::set<std::string> paths;
  // Reads that stand as a whole call argument (`build(cfg.model)`): the callee's reads off its
  // parameter are under that node (python/const_eval.cpp config_constant composes the two).
  std::set<std::string> handed_on, reads;
  auto whole_argument = [&](std::size_t begin, std::size_t end) {
    while (begin > 0 && (text[begin - 1] == ' ' || text[begin - 1] == '\t')) --begin;
    while (end < text.size() && (text[end] == ' ' || text[end] == '\t')) ++end;
    return begin > 0 && (text[begin - 1] == '(' || text[begin - 1] == ',') && end < text.size() &&
           (text[end] == ')' || text[end] == ',');
  };
  auto identifier_at = [&](std::size_t at) {
    std::size_t end = at;
    while (end < text.size() && is_identifier_char(text[end])) ++end;
    return text.substr(at, end - at);
  };
  for (std::size_t at = 0; at < text.size(); ++at) {
    if (!is_identifier_char(text[at]) || (at > 0 && (is_identifier_char(text[at - 1]) || text[at - 1] == '.'))) continue;
    std::string_view root = identifier_at(at);
    std::size_t next = at + root.size();
    std::string root_text(root);
    if (root == "self" && next + 1 < text.size() && text[next] == '.') {
      const std::string_view attribute = identifier_at(next + 1);
      root_text += "." + std::string(attribute);
      root = attribute;
      next += 1 + attribute.size();
    }
    if (root.empty() || !(config_like_root(root) || args_like(root))) {
      at = next > at ? next - 1 : at;
      continue;
    }
    std::vector<std::string_view> keys;
    while (next < text.size() && keys.size() < 16) {
      if (text[next] == '.' && next + 1 < text.size() && is_identifier_char(text[next + 1])) {
        keys.push_back(identifier_at(next + 1));
        next += 1 + keys.back().size();
      } else if (text[next] == '[' && next + 2 < text.size() && (text[next + 1] == '"' || text[next + 1] == '\'')) {
        const std::size_t close = text.find(text[next + 1], next + 2);
        if (close == std::string_view::npos || close + 1 >= text.size() || text[close + 1] != ']') break;
        keys.push_back(text.substr(next + 2, close - next - 2));
        next = close + 2;
      } else {
        break;
      }
    }
    std::string path;
    for (const std::string_view key : keys) {
      path += (path.empty() ? "" : ".") + std::string(key);
      // A single compound key off an args-like object is an argparse flag's, not a config file's.
      if (path.find('.') != std::string::npos || (distinctive_key_path(path) && !args_like(root_text))) paths.insert(path);
    }
    if (!path.empty() && !args_like(root_text)) {
      if (reads.size() < kMaxComposedConfigPaths) reads.insert(path);
      if (whole_argument(at, next)) handed_on.insert(path);
    }
    at = next > at ? next - 1 : at;
  }
  // Each node handed on, with each read of the text under it (bounded: each costs a lookup).
  std::size_t composed = 0;
  for (const std::string& node : handed_on)
    for (const std::string& read : reads) {
      if (composed++ >= kMaxComposedConfigPaths) return paths;
      if (read != node && !read.starts_with(node + ".")) paths.insert(node + "." + read);
    }
  return paths;
}

// float16's smallest normal number, 2^-14: the planner's small float literals lie below it.
constexpr double kSmallestFloat16Normal = 6.103515625e-05;

struct SettledValue {
  double value = 0.0;
  std::vector<ProvenanceStep> provenance;  // definition first
  NumberKind kind = NumberKind::Unknown;
};

class ProjectStep {
 public:
  ProjectStep(const ProjectInput& input, std::vector<PythonFileResult>& results)
      : in_(input), results_(results), table_(*input.pass.table) {}

  ProjectOutcome run() {
    const auto start = std::chrono::steady_clock::now();
    settle_numeric_names();
    fold_imported_constants();
    fold_config_reads();
    add_project_apis();
    settle_all();
    for (FileFacts& facts : hydra_normalizations(configs_, table_, out_.suppressions))
      out_.config_facts.push_back(std::move(facts));
    out_.table = std::move(table_);
    out_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return std::move(out_);
  }

 private:
  // ---- passes ------------------------------------------------------------------------------

  // Analyses the files that contain one of `required` with `options`; returns their results.
  std::vector<PythonFileResult> pass(const PythonPassOptions& options) {
    std::vector<std::size_t> all(in_.python_files.size());
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
    std::vector<PythonFileResult> results(in_.python_files.size());
    PythonPassOptions later = options;
    later.build_filters = false;
    run_python_pass(in_.python_files, in_.modules, all, later, results, &results_);
    for (const auto& r : results)
      if (r.facts) {
        out_.bytes_parsed += r.bytes_parsed;
        ++out_.files_parsed;
      }
    return results;
  }

  std::vector<const FileFacts*> all_facts() const {
    std::vector<const FileFacts*> out;
    for (const auto& r : results_)
      if (r.facts) out.push_back(&*r.facts);
    return out;
  }

  // ---- module exports ----------------------------------------------------------------------

  const python::ModuleExports* exports_of(std::size_t file) {
    if (const auto it = exports_.find(file); it != exports_.end()) return it->second.get();
    std::shared_ptr<const python::ModuleExports> exports;
    if (auto source = read_quietly(in_.python_files[file], in_.pass.limits)) {
      const ModuleInfo& module = in_.modules.of(file);
      // In a session (the language server), the same bytes as the same module give the same exports.
      std::optional<cache::Hash128> key, slot;
      if (in_.pass.session != nullptr) {
        cache::KeyBuilder builder;
        builder.add("exports").add(in_.python_files[file]).add(module.name).add(static_cast<std::uint64_t>(module.is_package));
        slot = builder.key();
        key = cache::KeyBuilder().add(*slot).add(cache::hash_bytes(source->text())).key();
        exports = in_.pass.session->find_exports(*key);
      }
      if (!exports) {
        if (!parser_) parser_ = std::make_unique<python::Parser>();
        const python::ParsedSource* parsed = nullptr;
        if (in_.pass.parsed != nullptr)
          if (const auto it = in_.pass.parsed->find(in_.python_files[file]); it != in_.pass.parsed->end())
            parsed = it->second.get();
        exports = read_exports_of(file, *source, *parser_, parsed);
        if (key) in_.pass.session->put_exports(*key, *slot, exports);
      }
    }
    const auto* raw = exports.get();
    exports_.emplace(file, std::move(exports));
    return raw;
  }

  std::shared_ptr<const python::ModuleExports> read_exports_of(std::size_t file, const SourceFile& source,
                                                               const python::Parser& parser,
                                                               const python::ParsedSource* parsed) const {
    const ModuleInfo& module = in_.modules.of(file);
    return std::make_shared<const python::ModuleExports>(
        python::module_exports(source, *in_.pass.table, parser, module.name, module.is_package, parsed));
  }

  // The names each module may bind to a number (numbers_), from what the first pass read of each
  // (python::NumericBindings): its numbers, and its aliases whose leaf is a number somewhere in the
  // tree (`EPS = MM_EPS` with `MM_EPS = 1e-8` in another module), the default of one of its own
  // flags (`EPS = args.eps`), or a key a config file names (`EPS = cfg["eps"]`); aliases of aliases
  // too. Only a leaf that may be a number counts: transformers' `FooModel = BarModel` would make a
  // thousand modules look like constants' homes, each then parsed for its exports.
  void settle_numeric_names() {
    numbers_.assign(results_.size(), {});
    // A worklist, each alias waiting for its leaf: linear in the aliases, however long their chains
    // (a tree may hold `A2 = A1`, `A1 = A0`, ... in any order).
    std::unordered_set<std::string_view> numeric;
    std::vector<std::string_view> pending;  // numbers not yet handed to the aliases waiting for them
    auto known = [&](std::string_view name) {
      if (numeric.insert(name).second) pending.push_back(name);
    };
    auto take = [&](std::size_t m, std::size_t a) {
      const std::string& name = results_[m].numeric.aliases[a].first;
      numbers_[m].push_back(name);
      known(name);
    };
    for (std::size_t m = 0; m < results_.size(); ++m) {
      numbers_[m] = results_[m].numeric.numbers;
      for (const std::string& name : results_[m].numeric.numbers) known(name);
    }
    std::unordered_map<std::string_view, std::vector<std::pair<std::size_t, std::size_t>>> waiting;
    for (std::size_t m = 0; m < results_.size(); ++m) {
      const python::NumericBindings& bindings = results_[m].numeric;
      const std::unordered_set<std::string_view> flags(bindings.flags.begin(), bindings.flags.end());
      for (std::size_t a = 0; a < bindings.aliases.size(); ++a) {
        const std::string& leaf = bindings.aliases[a].second;
        if (flags.count(leaf) != 0 || !configs_.candidates(leaf).empty()) take(m, a);  // its own flag, a config key
        else waiting[leaf].emplace_back(m, a);
      }
    }
    while (!pending.empty()) {
      const std::string_view name = pending.back();
      pending.pop_back();
      const auto it = waiting.find(name);
      if (it == waiting.end()) continue;
      const auto aliases = std::move(it->second);
      waiting.erase(it);
      for (const auto& [m, a] : aliases) take(m, a);
    }
  }
  // Settled by run() before anything asks (read_tree_imports asks from its worker threads).
  const std::vector<std::string>& numbers_of(std::size_t m) const { return numbers_[m]; }

  // Whether file i may import one of the numbers module file m binds, told by i's identifier filter
  // without reading i again: i must name one of them, and name m by its last name (`from .consts
  // import N`, `import pkg.consts`, `from pkg import consts`) or lie inside m, a package (`from .
  // import N`). Every import read_tree_imports can find from i's text is one of these.
  bool may_import_numbers_of(std::size_t i, std::size_t m) const {
    if (i == m) return false;
    const ModuleInfo& module = in_.modules.of(m);
    if (module.name.empty()) return false;
    const std::string_view name = module.name;
    const std::size_t dot = name.rfind('.');
    const std::string_view leaf = dot == std::string_view::npos ? name : name.substr(dot + 1);
    const std::string_view importer = in_.modules.of(i).name;
    const bool inside = module.is_package && importer.size() > name.size() && importer.starts_with(name) &&
                        importer[name.size()] == '.';
    return (inside || results_[i].identifiers.may_contain(leaf)) &&
           results_[i].identifiers.may_contain_any(numbers_of(m));
  }

  // The modules whose constants add_imported_constants will read for `files` (read_tree_imports has
  // read their imports): those binding a number that the importing file may name.
  std::vector<std::size_t> modules_to_read(const std::vector<std::size_t>& files) const {
    std::vector<std::size_t> modules;
    for (const std::size_t i : files)
      if (const auto imports = tree_imports_.find(i); imports != tree_imports_.end())
        for (const auto& [module, file] : imports->second)
          if (exports_.count(file) == 0 && results_[i].identifiers.may_contain_any(numbers_of(file)))
            modules.push_back(file);
    std::sort(modules.begin(), modules.end());
    modules.erase(std::unique(modules.begin(), modules.end()), modules.end());
    return modules;
  }

  // The exports of `files`, read in parallel ahead of the lookups that ask for them one by one. Not in
  // a session (the language server), whose exports cache exports_of consults.
  void read_exports(const std::vector<std::size_t>& files) {
    if (in_.pass.session != nullptr || in_.pass.parsed != nullptr || files.size() < 2) return;
    std::vector<std::shared_ptr<const python::ModuleExports>> read(files.size());
    parallel_for(files.size(), in_.pass.jobs, [&](std::size_t k, const python::Parser& parser) {
      const std::size_t file = files[k];
      if (auto source = read_quietly(in_.python_files[file], in_.pass.limits))
        read[k] = read_exports_of(file, *source, parser, nullptr);
    });
    for (std::size_t k = 0; k < files.size(); ++k) exports_.emplace(files[k], std::move(read[k]));
  }

  // The definition a re-exported name stands for ("pkg.NaiveSyncBN" -> "pkg.layers.bn.NaiveSyncBN").
  std::string canonical(const std::string& qualified, int depth = 0) {
    if (depth > kMaxChain) return qualified;
    const auto split = in_.modules.split(qualified);
    if (!split || split->second.find('.') != std::string::npos) return qualified;
    // A name the module defines (a project callable), or does not spell at all, is no import of
    // it: no need to parse the module to know that.
    if (defined_callables_.count(qualified) > 0 || !results_[split->first].identifiers.may_contain(split->second))
      return qualified;
    const python::ModuleExports* exports = exports_of(split->first);
    if (exports == nullptr) return qualified;
    if (const auto it = exports->imported.find(split->second); it != exports->imported.end())
      return canonical(it->second, depth + 1);
    return qualified;
  }

  // The project callables known so far (each is a def or class of its module).
  void note_defined_callables() {
    for (const FileFacts* facts : all_facts())
      for (const ForwardingFact& f : facts->forwardings) defined_callables_.insert(f.callable);
  }

  // ---- 0. the tree's constants where other modules import them --------------------------------

  // The words of the pairs' halves that go with a small float literal (`half` with `1e-8`).
  std::vector<std::string> small_pair_halves() const {
    std::vector<std::string> words;
    for (const auto& pair : in_.pass.python.pairs)
      for (const auto* half : {&pair.first, &pair.second}) {
        const auto& other = half == &pair.first ? pair.second : pair.first;
        if (std::find(other.begin(), other.end(), python::kSmallFloatLiteral) == other.end()) continue;
        for (const auto& word : *half)
          if (word != python::kSmallFloatLiteral) words.push_back(word);
      }
    return words;
  }

  // The numeric constants of the tree's module `module` (its file: `file`) that the file with
  // identifier filter `user` may name, into `out` by qualified name.
  void add_module_constants(const std::string& module, std::size_t file, const IdentifierFilter& user,
                            ImportedConstants& out) {
    // The module is parsed only when the user may name a number it binds (the first pass's list).
    if (!user.may_contain_any(numbers_of(file))) return;
    const python::ModuleExports* exports = exports_of(file);
    if (exports == nullptr) return;
    for (const auto& [name, value] : exports->values) {
      // A number, or what module_value may settle to one (another module's constant, a config key,
      // the module's own flag).
      if ((!value.constant && !value.ref) || !user.may_contain(name)) continue;
      const std::string qualified = module + "." + name;
      if (out.count(qualified) != 0) continue;
      if (auto settled = module_value(qualified, 0))
        out.emplace(qualified, ConstantValue{settled->value, "", std::move(settled->provenance), settled->kind});
    }
  }

  // The modules of the tree that bind a number and that each of `files` imports, read once per file,
  // the files in parallel (reading them again is most of this step's time).
  void read_tree_imports(const std::vector<std::size_t>& files) {
    std::vector<std::size_t> unread;
    for (const std::size_t i : files)
      if (tree_imports_.count(i) == 0) unread.push_back(i);
    std::vector<std::vector<std::pair<std::string, std::size_t>>> found(unread.size());
    parallel_for(unread.size(), in_.pass.jobs, [&](std::size_t k, const python::Parser&) {
      const std::size_t i = unread[k];
      const auto text = read_quietly(in_.python_files[i], in_.pass.limits);
      if (!text) return;
      const ModuleInfo& info = in_.modules.of(i);
      for (std::string& module : python::imported_module_candidates(
               std::string_view(text->text()).substr(text->content_offset()), {info.name, info.is_package})) {
        const auto file = in_.modules.file_of(module);
        if (file && *file != i && !numbers_of(*file).empty()) found[k].emplace_back(std::move(module), *file);
      }
    });
    for (std::size_t k = 0; k < unread.size(); ++k) tree_imports_.emplace(unread[k], std::move(found[k]));
  }

  // Adds to `into` the tree's numeric constants that file `i` imports and may name (read_tree_imports
  // has read it); whether it imports any. Each file is asked once.
  bool add_imported_constants(std::size_t i, ImportedConstants& into) {
    if (const auto it = imports_constants_.find(i); it != imports_constants_.end()) return it->second;
    bool imports_constants = false;
    const IdentifierFilter& filter = results_[i].identifiers;
    if (const auto imports = tree_imports_.find(i); imports != tree_imports_.end()) {
      for (const auto& [module, file] : imports->second) {
        add_module_constants(module, file, filter, into);
        // The module's constants this file may name (another file may have added them first).
        const std::string prefix = module + ".";
        for (auto it = into.lower_bound(prefix);
             !imports_constants && it != into.end() && std::string_view(it->first).starts_with(prefix); ++it) {
          const std::string_view name = std::string_view(it->first).substr(prefix.size());
          imports_constants = name.find('.') == std::string_view::npos && filter.may_contain(name);
        }
      }
    }
    imports_constants_.emplace(i, imports_constants);
    return imports_constants;
  }

  // The constants imported by the files `reads` may read (a later pass's: argparse or yacs defaults
  // set from an imported constant), added to the map the passes share.
  std::shared_ptr<const ImportedConstants> constants_for(const std::function<bool(std::size_t)>& reads) {
    auto constants = std::make_shared<ImportedConstants>(imported_constants_ ? *imported_constants_ : ImportedConstants{});
    std::vector<std::size_t> files;
    for (std::size_t i = 0; i < results_.size(); ++i)
      if (reads(i)) files.push_back(i);
    read_tree_imports(files);
    for (const std::size_t i : files) add_imported_constants(i, *constants);
    imported_constants_ = constants;
    return imported_constants_;
  }

  // Extracts `files` again with `options`; their facts replace the first pass's.
  void extract_again(const std::vector<std::size_t>& files, const PythonPassOptions& options) {
    std::vector<PythonFileResult> again(in_.python_files.size());
    run_python_pass(in_.python_files, in_.modules, files, options, again);
    for (const std::size_t i : files) {
      if (!again[i].facts) continue;
      out_.bytes_parsed += again[i].bytes_parsed;
      ++out_.files_parsed;
      results_[i].facts = std::move(again[i].facts);
      results_[i].diagnostics = std::move(again[i].diagnostics);
      results_[i].cacheable = results_[i].cacheable && again[i].cacheable;
    }
  }

  // A file that imports a number from another module of the tree (`from .consts import EPS`,
  // `import consts` then `consts.N`) is extracted again, whole and past the prefilter, with those
  // values: every extractor then folds them as it folds the file's own constants (a dataset's
  // size, a shape, an epsilon), and both modes read the same code. Files that name none of the
  // run's words cannot produce a fact and are left alone.
  void fold_imported_constants() {
    const std::vector<std::string> small_pair_words = small_pair_halves();
    // Every name a module of the tree binds to a number: a file naming none imports none (its
    // identifier filter says so without reading it again).
    std::vector<std::string> numeric_names;
    for (const auto& names : numbers_)
      numeric_names.insert(numeric_names.end(), names.begin(), names.end());
    std::sort(numeric_names.begin(), numeric_names.end());
    numeric_names.erase(std::unique(numeric_names.begin(), numeric_names.end()), numeric_names.end());
    if (numeric_names.empty()) return;
    auto constants = std::make_shared<ImportedConstants>();
    std::vector<std::size_t> number_modules;
    for (std::size_t m = 0; m < results_.size(); ++m)
      if (!numbers_of(m).empty()) number_modules.push_back(m);
    std::vector<std::size_t> candidates, files;
    for (std::size_t i = 0; i < results_.size(); ++i) {
      // A file the first pass left out names no word of the run, or only a pair's half: a number
      // from elsewhere can complete only a pair that asks for a small float (`x.half() + EPS`).
      if (!results_[i].facts && !results_[i].identifiers.may_contain_any(small_pair_words)) continue;
      if (results_[i].identifiers.may_contain_any(numeric_names) &&
          std::any_of(number_modules.begin(), number_modules.end(),
                      [&](std::size_t m) { return may_import_numbers_of(i, m); }))
        candidates.push_back(i);
    }
    read_tree_imports(candidates);
    read_exports(modules_to_read(candidates));
    for (const std::size_t i : candidates)
      if (add_imported_constants(i, *constants)) files.push_back(i);
    imported_constants_ = constants;
    if (files.empty()) return;
    PythonPassOptions options = in_.pass;
    options.build_filters = false;
    options.skip_prefilter = true;
    options.python.imported_constants = constants;
    // The region planner knows a file's own small constants (`EPS = 1e-8` makes `x.half() + EPS`
    // relevant), not imported ones: a file that may name one it imports is parsed whole.
    std::vector<std::size_t> in_regions, whole;
    for (const std::size_t i : files) (imports_small_constant(i, *constants) ? whole : in_regions).push_back(i);
    extract_again(in_regions, options);
    options.python.mode = python::ParseMode::Full;
    extract_again(whole, options);
  }

  // Whether file `i` may name a constant below float16's smallest normal number that it imports
  // from a module of the tree (read_tree_imports has read it).
  bool imports_small_constant(std::size_t i, const ImportedConstants& constants) const {
    const auto imports = tree_imports_.find(i);
    if (imports == tree_imports_.end()) return false;
    const IdentifierFilter& filter = results_[i].identifiers;
    for (const auto& [module, file] : imports->second) {
      const std::string prefix = module + ".";
      for (auto it = constants.lower_bound(prefix); it != constants.end() && std::string_view(it->first).starts_with(prefix);
           ++it) {
        const std::string_view name = std::string_view(it->first).substr(prefix.size());
        const double value = it->second.value;
        if (name.find('.') == std::string_view::npos && value > 0.0 && value < kSmallestFloat16Normal &&
            filter.may_contain(name))
          return true;
      }
    }
    return false;
  }


  // A file that reads a config key one of the tree's YAML/JSON files sets (`range(cfg["data"]["size"])`,
  // `x + cfg.train.eps`) is extracted again, whole, with those values: every extractor then folds a
  // config read inside an expression as it folds a constant. A read that is an API argument as a
  // whole (an epsilon, a batch size) is left to settle_references, which points at the config line
  // and makes one fact per config file. Only files that name a config reader are read for keys.
  void fold_config_reads() {
    if (in_.config_files.empty()) return;
    static const std::vector<std::string> reader_words{"yaml", "json", "OmegaConf", "hydra", "DictConfig"};
    const std::vector<std::string> small_pair_words = small_pair_halves();
    auto constants = std::make_shared<ConfigConstants>();
    std::map<std::string, std::optional<ConstantValue>> looked_up;
    std::vector<std::size_t> files;
    for (std::size_t i = 0; i < results_.size(); ++i) {
      if (!results_[i].facts && !results_[i].identifiers.may_contain_any(small_pair_words)) continue;
      if (!results_[i].identifiers.may_contain_any(reader_words)) continue;
      const auto source = read_quietly(in_.python_files[i], in_.pass.limits);
      if (!source) continue;
      bool reads = false;
      for (const std::string& path : config_key_paths(python::blank_comments(source->text()))) {
        auto [it, fresh] = looked_up.try_emplace(path);
        if (fresh) it->second = config_constant(path);
        if (!it->second) continue;
        constants->emplace(path, *it->second);
        reads = true;
      }
      if (reads) files.push_back(i);
    }
    if (files.empty()) return;
    PythonPassOptions options = in_.pass;
    options.build_filters = false;
    options.skip_prefilter = true;
    options.python.imported_constants = imported_constants_;
    options.python.config_constants = constants;
    // The region planner does not know which config reads hold numbers: such files are parsed whole.
    options.python.mode = python::ParseMode::Full;
    extract_again(files, options);
  }

  // A value as a number: written, or read from the config files (an argparse flag's
  // `default=cfg["train"]["bs"]`, a yacs default `_C.MODEL.EPS = cfg["model"]["eps"]`).
  std::optional<ConstantValue> value_of(const Value& value) {
    if (value.constant) return value.constant;
    if (value.ref && value.ref->kind == ValueRef::Kind::ConfigKey && !args_like(value.ref->root))
      return config_constant(value.ref->target);
    return std::nullopt;
  }
  std::optional<ConstantValue> default_of(const ArgumentFact& arg) {
    return arg.default_value ? value_of(*arg.default_value) : std::nullopt;
  }

  // The one value the tree's config files give `path`, with where it is set; nullopt where none
  // sets it or two disagree (which config a run loads is its choice).
  std::optional<ConstantValue> config_constant(const std::string& path) {
    // A key that many config files name is an experiment setting each of them chooses: their values
    // rarely agree, and reading them all costs more than the rest of the run.
    if (configs_.candidates(path).size() > kMaxFoldedConfigFiles) return std::nullopt;
    const std::vector<ConfigHit> hits = configs_.values(path, false);
    if (hits.empty()) return std::nullopt;
    for (const ConfigHit& hit : hits) {
      const bool same = hit.value == hits.front().value || (std::isnan(hit.value) && std::isnan(hits.front().value));
      if (!same) return std::nullopt;
    }
    const ConfigHit& hit = hits.front();
    // Files that agree on the number but not on its kind (`2` and `2.0`) leave the kind unknown.
    NumberKind kind = number_kind_of_text(hit.scalar->text);
    for (const ConfigHit& other : hits)
      if (number_kind_of_text(other.scalar->text) != kind) kind = NumberKind::Unknown;
    ConstantValue value{hit.value, hit.scalar->text, hit.steps, kind};
    value.provenance.push_back({hit.scalar->where, hit.scalar->dotted() + ": " + hit.scalar->text + " is set here"});
    return value;
  }

  // ---- 1. project callables ----------------------------------------------------------------

  // Adds to `into` the facts of `more` it does not hold yet (the same call seen again in a later
  // pass is one fact).
  template <class Fact>
  static void merge_settleable(FileFacts& into, FileFacts& more) {
    using S = Settleable<Fact>;
    auto offset = [](const Location& l) { return l.range.begin.byte_offset; };
    auto& known_facts = S::facts(into);
    for (auto& fact : S::facts(more)) {
      const bool known = std::any_of(known_facts.begin(), known_facts.end(), [&](const Fact& f) {
        return offset(f.call) == offset(fact.call) && f.origin == fact.origin && f.api == fact.api &&
               S::slot(f, 0).location.has_value() == S::slot(fact, 0).location.has_value() &&
               (!S::slot(f, 0).location || offset(*S::slot(f, 0).location) == offset(*S::slot(fact, 0).location));
      });
      if (!known) known_facts.push_back(std::move(fact));
    }
    // Facts come in source order, whichever pass found them.
    std::stable_sort(known_facts.begin(), known_facts.end(),
                     [&](const Fact& a, const Fact& b) { return offset(a.call) < offset(b.call); });
  }

  static void merge_new_facts(FileFacts& into, FileFacts&& more) {
    auto offset = [](const Location& l) { return l.range.begin.byte_offset; };
    merge_settleable<NormalizationFact>(into, more);
    merge_settleable<LoaderFact>(into, more);
    for (auto& fact : more.forwardings) {
      const bool known = std::any_of(into.forwardings.begin(), into.forwardings.end(), [&](const ForwardingFact& f) {
        return f.callable == fact.callable && f.role == fact.role && offset(f.reaches) == offset(fact.reaches);
      });
      if (!known) into.forwardings.push_back(std::move(fact));
    }
    for (auto& fact : more.conv_geometries) {
      const bool known = std::any_of(into.conv_geometries.begin(), into.conv_geometries.end(),
                                     [&](const ConvGeometryFact& f) { return offset(f.call) == offset(fact.call); });
      if (!known) into.conv_geometries.push_back(std::move(fact));
    }
    for (auto& framework : more.frameworks)
      if (std::find(into.frameworks.begin(), into.frameworks.end(), framework) == into.frameworks.end())
        into.frameworks.push_back(std::move(framework));
  }

  // Names under which the packages above `callable` re-export it (`from .bn import X` in
  // pkg/__init__.py makes "pkg.X" another name of "pkg.bn.X").
  std::vector<std::string> aliases_of(const std::string& callable) {
    std::vector<std::string> names{callable};
    const std::string leaf = leaf_of(callable);
    std::string package = callable.substr(0, callable.size() - leaf.size());
    if (!package.empty()) package.pop_back();  // the defining module
    const std::string defining_leaf = leaf_of(package);
    while (true) {
      const auto dot = package.rfind('.');
      if (dot == std::string::npos) break;
      package.resize(dot);
      const auto file = in_.modules.file_of(package);
      // Only a package that names the callable, or the module defining it (`from .bn import *`),
      // can re-export it: the first pass's filter says which may.
      if (!file || !(results_[*file].identifiers.may_contain(leaf) ||
                     results_[*file].identifiers.may_contain(defining_leaf)))
        continue;
      const python::ModuleExports* exports = exports_of(*file);
      if (exports == nullptr) continue;
      bool reexported = false;
      if (const auto it = exports->imported.find(leaf); it != exports->imported.end())
        reexported = canonical(it->second) == callable;
      for (const auto& star : exports->star_modules)
        if (!reexported && canonical(star + "." + leaf) == callable) reexported = true;
      if (reexported) names.push_back(package + "." + leaf);
    }
    return names;
  }

  std::optional<ApiEntry> entry_for(const ForwardingFact& f) {
    const ApiEntry* base = table_.find(f.api);
    if (base == nullptr) base = table_.find(canonical(f.api));
    if (base == nullptr) return std::nullopt;
    // The variant of a project callable whose parameter the value reaches.
    for (const ApiEntry& other : base->also)
      if (const ApiArg* arg = other.arg(f.role); arg != nullptr && arg->name == f.api_parameter) base = &other;
    if (!f.inherits_signature && !base->arg(f.role)) return std::nullopt;
    ApiEntry entry = *base;
    entry.also.clear();
    entry.canonical = f.callable;
    entry.is_class = f.is_class;
    entry.from_project = true;
    entry.is_method = false;  // a project function or class is resolved by its name, not matched as a method
    entry.underlying = base->from_project ? base->underlying : f.api;
    entry.underlying_spelled = base->from_project ? base->underlying_spelled : f.api_spelled;
    const std::string name = leaf_of(f.callable);
    ProvenanceStep step;
    step.where = f.reaches;
    if (f.inherits_signature) {
      step.what = f.reaches_text + " takes " + f.api_spelled + "'s arguments";
    } else {
      ApiArg arg;
      arg.name = f.parameter;
      if (f.index >= 0) arg.index = f.index;
      arg.project_default = f.default_value;
      arg.has_default = f.default_value.has_value();
      entry.args.clear();
      entry.args.emplace(f.role, std::move(arg));
      if (!f.is_class) entry.eps_attribute.clear();
      step.what = name + " passes its `" + f.parameter + "` on to " + f.api_spelled + " here";
    }
    entry.forwards.clear();
    entry.forwards.push_back(step);
    if (base->from_project) entry.forwards.insert(entry.forwards.end(), base->forwards.begin(), base->forwards.end());
    return entry;
  }

  void add_project_apis() {
    std::vector<ApiEntry> entries;
    std::vector<std::vector<std::string>> names;
    std::map<std::string, std::size_t> entry_of;  // callable -> index in entries
    std::set<std::string> known;                   // callable + parameter (or signature) seen
    for (int round = 0; round < kMaxRounds; ++round) {
      note_defined_callables();
      // Entries first from what is known, chains (a wrapper of a wrapper) settling over sweeps;
      // the table is rebuilt once per sweep.
      std::vector<std::string> fresh;
      for (bool grew = true; grew;) {
        grew = false;
        for (const FileFacts* facts : all_facts())
          for (const ForwardingFact& f : facts->forwardings) {
            // A class the API table names itself (transformers' Seq2SeqTrainingArguments, a subclass
            // of TrainingArguments) is known already: the table's entry wins.
            if (in_.pass.table->find(f.callable) != nullptr) continue;
            const std::string key = f.callable + '\x1f' + (f.inherits_signature ? std::string("*") : f.role + '\x1f' + f.parameter);
            if (known.count(key)) continue;
            auto entry = entry_for(f);
            if (!entry) continue;
            known.insert(key);
            grew = true;
            if (const auto it = entry_of.find(f.callable); it != entry_of.end()) {
              // Another parameter of a callable already known: one more entry under its names,
              // whose uses are read again for it.
              ApiEntry& first = entries[it->second];
              if (f.inherits_signature || first.args.empty()) continue;
              first.also.push_back(std::move(*entry));
              for (const auto& alias : names[it->second]) fresh.push_back(alias);
              continue;
            }
            entry_of.emplace(f.callable, entries.size());
            std::vector<std::string> aliases = aliases_of(f.callable);
            for (const auto& alias : aliases) fresh.push_back(alias);
            entries.push_back(std::move(*entry));
            names.push_back(std::move(aliases));
          }
        if (grew) table_ = in_.pass.table->with_entries(entries, names);
      }
      if (fresh.empty()) break;
      // Analyse again the code that names one of them, with the grown table: only the parts of
      // each file around the new names (what the earlier passes parsed gave its facts already),
      // and add what is new.
      std::set<std::string> leaves;
      for (const auto& name : fresh) leaves.insert(leaf_of(name));
      PythonPassOptions options = in_.pass;
      options.table = &table_;
      options.python.imported_constants = imported_constants_;
      options.required.assign(leaves.begin(), leaves.end());
      options.python.triggers.clear();
      options.python.trigger_words = options.required;
      options.python.own_names_count = true;  // the project callables' own definitions are needed
      std::vector<PythonFileResult> again = pass(options);
      for (std::size_t i = 0; i < again.size(); ++i) {
        if (!again[i].facts) continue;
        if (!results_[i].facts) {
          results_[i].facts = std::move(again[i].facts);  // the identifier filter stays the first pass's
          results_[i].diagnostics = std::move(again[i].diagnostics);
        } else {
          merge_new_facts(*results_[i].facts, std::move(*again[i].facts));
        }
      }
      ++out_.rounds;
    }
    out_.project_apis = entries.size();
    if (entries.empty()) table_ = *in_.pass.table;
  }

  // ---- 2. references -----------------------------------------------------------------------

  std::optional<SettledValue> module_value(const std::string& qualified, int depth) {
    if (depth > kMaxChain) return std::nullopt;
    const auto split = in_.modules.split(qualified);
    if (!split || split->second.find('.') != std::string::npos) return std::nullopt;
    const python::ModuleExports* exports = exports_of(split->first);
    if (exports == nullptr) return std::nullopt;
    const std::string& name = split->second;
    if (const auto it = exports->values.find(name); it != exports->values.end()) {
      const Value& v = it->second;
      std::optional<SettledValue> settled;
      if (v.constant) {
        settled = SettledValue{v.constant->value, v.constant->provenance, v.constant->kind};
      } else if (v.ref && v.ref->kind == ValueRef::Kind::ModuleAttribute) {
        settled = module_value(v.ref->target, depth + 1);
      } else if (v.ref && v.ref->kind == ValueRef::Kind::ConfigKey && !args_like(v.ref->root)) {
        // `BN_EPS = cfg["model"]["bn_eps"]`, with the one value the config files give it.
        if (auto read = config_constant(v.ref->target))
          settled = SettledValue{read->value, std::move(read->provenance), read->kind};
      } else if (v.ref && v.ref->kind == ValueRef::Kind::ConfigKey && v.ref->target.find('.') == std::string::npos) {
        settled = own_flag_default(split->first, v.ref->target);
      }
      if (settled) settled->provenance.push_back({v.where, name + " = " + v.spelling + " is defined here"});
      return settled;
    }
    if (const auto it = exports->imported.find(name); it != exports->imported.end())
      return module_value(it->second, depth + 1);
    if (exports->bound.count(name) != 0) return std::nullopt;  // bound here, but not to one value
    // `from .a import *` then `from .b import *`: the last module that binds the name wins.
    for (auto star = exports->star_modules.rbegin(); star != exports->star_modules.rend(); ++star)
      if (module_binds(*star + "." + name, depth + 1)) return module_value(*star + "." + name, depth + 1);
    return std::nullopt;
  }

  // `EPS = args.eps` in a module that another imports EPS from: the default of that module's own
  // `--eps` flag, when it adds exactly one and never rewrites it. Its file alone is read for its
  // flags (argparse_pass reads every file, and itself asks for imported constants).
  std::optional<SettledValue> own_flag_default(std::size_t file, const std::string& dest) {
    auto [at, fresh] = own_flags_.try_emplace(file);
    if (fresh) {
      PythonPassOptions options = in_.pass;
      options.python.families.clear();
      options.python.argparse = true;
      options.python.imported_constants.reset();
      options.python.config_constants.reset();
      options.python.triggers.clear();
      options.python.trigger_words = {"add_argument"};
      options.required = {"add_argument"};
      options.build_filters = false;
      options.progress = nullptr;
      std::vector<PythonFileResult> results(in_.python_files.size());
      run_python_pass(in_.python_files, in_.modules, {file}, options, results, &results_);
      if (results[file].facts) at->second = std::move(results[file].facts->arguments);
    }
    const ArgumentFact* flag = nullptr;
    for (const ArgumentFact& arg : at->second) {
      if (arg.dest != dest || !arg.default_value || !arg.default_value->constant) continue;
      if (flag != nullptr) return std::nullopt;  // two flags: no one value
      flag = &arg;
    }
    if (flag == nullptr) return std::nullopt;
    const auto source = read_quietly(in_.python_files[file], in_.pass.limits);
    if (!source || rewrites_dest(source->text(), dest)) return std::nullopt;
    SettledValue settled{flag->default_value->constant->value, flag->default_value->constant->provenance,
                         flag->default_value->constant->kind};
    const std::string name = flag->flag.empty() ? flag->dest : flag->flag;
    settled.provenance.push_back({flag->default_value->where, "the default of " + name + " in add_argument; passing " +
                                                                  name + " on the command line overrides it"});
    return settled;
  }

  // Whether the module named by `qualified`'s prefix binds its last part (itself or by a star import).
  bool module_binds(const std::string& qualified, int depth) {
    if (depth > kMaxChain) return false;
    const auto split = in_.modules.split(qualified);
    if (!split || split->second.find('.') != std::string::npos) return false;
    const python::ModuleExports* exports = exports_of(split->first);
    if (exports == nullptr) return false;
    if (exports->bound.count(split->second) != 0) return true;
    return std::any_of(exports->star_modules.begin(), exports->star_modules.end(),
                       [&](const std::string& star) { return module_binds(star + "." + split->second, depth + 1); });
  }

  // The facts that read a value from elsewhere, with where they sit.
  struct Pending {
    std::size_t file;
    std::size_t fact;
  };

  template <class Fact>
  std::vector<Pending> pending(ValueRef::Kind kind, int slot) const {
    using S = Settleable<Fact>;
    std::vector<Pending> out;
    for (std::size_t i = 0; i < results_.size(); ++i) {
      if (!results_[i].facts) continue;
      auto& facts = S::facts(*results_[i].facts);
      for (std::size_t k = 0; k < facts.size(); ++k)
        if (S::slot(facts[k], slot).source == ValueSource::NotConstant && S::slot(facts[k], slot).ref &&
            S::slot(facts[k], slot).ref->kind == kind)
          out.push_back({i, k});
    }
    return out;
  }

  template <class Fact>
  static void settle(Fact& fact, int slot, double value, std::string spelling, std::vector<ProvenanceStep> provenance) {
    using S = Settleable<Fact>;
    const ValueRef ref = *S::slot(fact, slot).ref;
    auto& settled = S::slot(fact, slot).value = ConstantValue{value, std::move(spelling), std::move(provenance)};
    for (const auto& step : ref.steps) settled->provenance.push_back(step);
    S::slot(fact, slot).source = ValueSource::Explicit;
    S::slot(fact, slot).ref.reset();
  }

  // Every family's settleable facts, one family and one value slot after another.
  template <class Fact>
  void settle_family() {
    for (int slot = 0; slot < Settleable<Fact>::slots; ++slot) settle_references<Fact>(slot);
    merge_default_uses<Fact>();
  }

  void settle_all() {
    collect_config_leaves<NormalizationFact>();
    collect_config_leaves<LoaderFact>();
    settle_family<NormalizationFact>();
    settle_family<LoaderFact>();
    inherit_loader_context();
  }

  // A loader made through a project function (`def train(bs=33): ... DataLoader(data, batch_size=bs)`
  // called as `train()`) is a fact of the call, with the batch size the call gives. What the
  // function's own body fixes about that loader (its dataset, drop_last, the model its batches
  // feed) is the inner loader's, which the function's call does not repeat; and it is reported at
  // the inner loader, the call a note.
  void inherit_loader_context() {
    std::vector<const LoaderFact*> inner;
    for (const auto& r : results_)
      if (r.facts)
        for (const LoaderFact& f : r.facts->loaders) inner.push_back(&f);
    auto holding = [&](const Location& where) -> const LoaderFact* {
      for (const LoaderFact* f : inner)
        if (f->call.path == where.path && f->call.range.begin.byte_offset <= where.range.begin.byte_offset &&
            where.range.begin.byte_offset < f->call.range.end.byte_offset)
          return f;
      return nullptr;
    };
    std::vector<std::pair<LoaderFact*, const LoaderFact*>> inherits;
    for (auto& r : results_) {
      if (!r.facts) continue;
      for (LoaderFact& fact : r.facts->loaders) {
        if (fact.uses.empty()) continue;
        const LoaderFact* from = nullptr;
        for (const ProvenanceStep& step : fact.uses)
          if ((from = holding(step.where)) != nullptr && from != &fact) break;
        if (from != nullptr && from != &fact) inherits.emplace_back(&fact, from);
      }
    }
    for (auto [fact, from] : inherits) {
      // Reported where the loader is made, as without the function; the call is a note already.
      fact->call = from->call;
      fact->spelled_as = from->spelled_as;
      if (!fact->dataset_size && from->dataset_size) {
        fact->dataset_size = from->dataset_size;
        fact->dataset_text = from->dataset_text;
      }
      if (!fact->drop_last && from->drop_last) {
        fact->drop_last = from->drop_last;
        fact->drop_param = from->drop_param;
        fact->drop_location = from->drop_location;
      }
      if (!fact->single_sample_norm && from->single_sample_norm) {
        fact->single_sample_norm = from->single_sample_norm;
        fact->single_sample_norm_text = from->single_sample_norm_text;
        fact->feeds = from->feeds;
        fact->feeds_text = from->feeds_text;
      }
      if (fact->guard.empty()) fact->guard = from->guard;
      if (fact->raising_check.empty()) fact->raising_check = from->raising_check;
    }
  }

  // Every config key the facts of all families read, by its last component: what the yacs
  // defaults pass looks for.
  template <class Fact>
  void collect_config_leaves() {
    using S = Settleable<Fact>;
    for (int slot = 0; slot < S::slots; ++slot)
      for (const Pending& p : pending<Fact>(ValueRef::Kind::ConfigKey, slot)) {
        const ValueRef& ref = *S::slot(S::facts(*results_[p.file].facts)[p.fact], slot).ref;
        // `args.batch_size` is an argparse dest (settled from add_argument), not a yacs key: reading
        // every file that names `batch_size` for a `_C.X.batch_size = ...` would find nothing.
        if (ref.target.find('.') == std::string::npos && args_like(ref.root)) continue;
        config_leaves_.insert(leaf_of(ref.target));
      }
  }

  void remember_suppressions(const std::vector<PythonFileResult>& results) {
    for (const auto& r : results)
      if (r.facts) out_.suppressions.emplace(r.facts->path, r.facts->suppressions);
  }

  // argparse's add_argument defaults, read once.
  const std::vector<PythonFileResult>& argparse_pass() {
    if (!argparse_results_) {
      PythonPassOptions options = in_.pass;
      options.python.families.clear();
      options.python.argparse = true;
      options.python.imported_constants =
          constants_for([&](std::size_t i) { return results_[i].identifiers.may_contain("add_argument"); });
      options.python.triggers.clear();
      options.python.trigger_words = {"add_argument"};
      options.required = {"add_argument"};
      argparse_results_ = pass(options);
      remember_suppressions(*argparse_results_);
    }
    return *argparse_results_;
  }

  // yacs-style defaults (`_C.MODEL.BN_EPS = 1e-5`) of every key in config_leaves_, read once.
  const std::vector<PythonFileResult>& defaults_pass() {
    if (!default_results_) {
      PythonPassOptions options = in_.pass;
      options.python.families.clear();
      options.python.config_defaults = true;
      options.python.imported_constants = constants_for([&](std::size_t i) {
        return std::any_of(config_leaves_.begin(), config_leaves_.end(),
                           [&](const std::string& leaf) { return results_[i].identifiers.may_contain(leaf); });
      });
      options.python.triggers.clear();
      options.python.trigger_words.assign(config_leaves_.begin(), config_leaves_.end());
      options.required = options.python.trigger_words;
      const std::vector<std::string> keys(config_leaves_.begin(), config_leaves_.end());
      options.select = [keys](std::string_view text) {
        return std::any_of(keys.begin(), keys.end(), [&](const std::string& key) { return may_set_config_key(text, key); });
      };
      default_results_ = keys.empty() ? std::vector<PythonFileResult>() : pass(options);
      remember_suppressions(*default_results_);
    }
    return *default_results_;
  }

  template <class Fact>
  void settle_references(int slot) {
    using S = Settleable<Fact>;
    // Module constants: `from .constants import BN_EPS`.
    for (const Pending& p : pending<Fact>(ValueRef::Kind::ModuleAttribute, slot)) {
      Fact& fact = S::facts(*results_[p.file].facts)[p.fact];
      if (auto settled = module_value(S::slot(fact, slot).ref->target, 0))
        settle(fact, slot, settled->value, S::slot(fact, slot).ref->spelling, std::move(settled->provenance));
    }
    const std::vector<Pending> config_reads = pending<Fact>(ValueRef::Kind::ConfigKey, slot);
    if (config_reads.empty()) return;

    // What may set them: argparse defaults, yacs-style defaults, config files (each pass run once
    // for every family and value slot: see config_leaves_).
    std::set<std::string> argparse_dests;
    for (const Pending& p : config_reads) {
      const ValueRef& ref = *S::slot(S::facts(*results_[p.file].facts)[p.fact], slot).ref;
      if (ref.target.find('.') == std::string::npos && args_like(ref.root)) argparse_dests.insert(ref.target);
    }
    static const std::vector<PythonFileResult> none;
    const std::vector<PythonFileResult>& argparse_results = argparse_dests.empty() ? none : argparse_pass();
    const std::vector<PythonFileResult>& default_results = defaults_pass();

    // One read may be set in several places (two YAML files, two scripts' flags): each is a fact.
    std::map<std::size_t, std::vector<std::pair<std::size_t, std::vector<Fact>>>> replacements;
    for (const Pending& p : config_reads) {
      const Fact& original = S::facts(*results_[p.file].facts)[p.fact];
      const ValueRef& ref = *S::slot(original, slot).ref;
      const Location use = S::slot(original, slot).location.value_or(original.call);
      std::vector<Fact> settled;
      // argparse: `args.bn_eps` with add_argument("--bn-eps", default=...).
      if (argparse_dests.count(ref.target)) {
        // The flags nearest the read: those of its own file, else of its folder or the folders above
        // (a repository of examples defines `--batch-size` once per script).
        std::vector<const ArgumentFact*> flags;
        for (const auto& r : argparse_results)
          if (r.facts)
            for (const ArgumentFact& arg : r.facts->arguments)
              if (arg.dest == ref.target && default_of(arg)) flags.push_back(&arg);
        const std::filesystem::path read_path(original.call.path);
        auto near = [&](auto&& same) {
          std::vector<const ArgumentFact*> out;
          for (const ArgumentFact* arg : flags)
            if (same(std::filesystem::path(arg->call.path))) out.push_back(arg);
          return out;
        };
        // A default the code rewrites (`args.batch_size = args.batch_size or 32`, `if args.bs < 1:
        // args.bs = ...`, `parser.set_defaults(bs=64)`) is not the value: no flag is taken then.
        auto rewritten = [&](const std::string& path) {
          const auto source = read_quietly(path, in_.pass.limits);
          return source && rewrites_dest(source->text(), ref.target);
        };
        if (rewritten(original.call.path) ||
            std::any_of(flags.begin(), flags.end(), [&](const ArgumentFact* a) { return rewritten(a->call.path); }))
          flags.clear();
        if (auto own = near([&](const std::filesystem::path& p) { return p == read_path; }); !own.empty()) {
          flags = std::move(own);
        } else {
          // A folder's flags, else a parent folder's (a package's modules read the flags of the
          // script above them); never those of an unrelated script elsewhere in the tree.
          // Paths as the walk spelled them: `cudnnlint .` gives "net.py", whose folder is "" (the
          // top of the walk is searched too, else the spelling of the path would change findings).
          std::filesystem::path dir = read_path.parent_path();
          std::vector<const ArgumentFact*> found;
          for (int up = 0; up < 3 && found.empty(); ++up) {
            found = near([&](const std::filesystem::path& p) { return p.parent_path() == dir; });
            if (dir.empty() || dir == dir.parent_path()) break;
            dir = dir.parent_path();
          }
          flags = std::move(found);
        }
        std::set<std::string> seen;
        {
          for (const ArgumentFact* candidate : flags) {
            const ArgumentFact& arg = *candidate;
            const Location& at = arg.default_value->where;
            if (!seen.insert(where_text(at) + ":" + std::to_string(at.range.begin.column)).second) continue;
            Fact fact = original;
            const std::string flag = arg.flag.empty() ? arg.dest : arg.flag;
            const auto value = default_of(arg);
            settle(fact, slot, value->value, ref.spelling, value->provenance);
            S::slot(fact, slot).location = at;
            S::slot(fact, slot).via = "the default of " + flag + " in add_argument at " + where_text(arg.call) +
                           "; passing " + flag + " on the command line overrides it";
            fact.uses.push_back({use, "read here as " + ref.spelling});
            settled.push_back(std::move(fact));
          }
        }
      }
      // yacs: `_C.MODEL.BN_EPS = 1e-5`, overridden by any config file that sets the key.
      std::vector<const ConfigDefaultFact*> defaults;
      for (const auto& r : default_results)
        if (r.facts)
          for (const ConfigDefaultFact& d : r.facts->config_defaults)
            if (d.path == ref.target && value_of(d.value)) defaults.push_back(&d);
      const std::vector<ConfigHit> hits = configs_.values(ref.target, !defaults.empty());
      for (const ConfigHit& hit : hits) {
        Fact fact = original;
        settle(fact, slot, hit.value, ref.spelling, hit.steps);
        S::slot(fact, slot).location = hit.scalar->where;
        S::slot(fact, slot).via = hit.scalar->dotted() + ": " + hit.scalar->text + " in " + hit.file;
        fact.origin = "config";
        fact.uses.push_back({use, "read here as " + ref.spelling});
        settled.push_back(std::move(fact));
      }
      if (hits.empty() && S::settle_from_defaults_alone)
        for (const ConfigDefaultFact* d : defaults) {
          Fact fact = original;
          const auto value = value_of(d->value);
          settle(fact, slot, value->value, ref.spelling, value->provenance);
          S::slot(fact, slot).location = d->value.where;
          S::slot(fact, slot).via = "the default of " + d->path + " set at " + where_text(d->where) +
                         "; no config file in the analysed tree sets it";
          fact.uses.push_back({use, "read here as " + ref.spelling});
          settled.push_back(std::move(fact));
        }
      if (!settled.empty()) replacements[p.file].emplace_back(p.fact, std::move(settled));
    }
    for (auto& [file, list] : replacements) {
      auto& norms = S::facts(*results_[file].facts);
      // Back to front, so indices stay valid.
      std::sort(list.begin(), list.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
      for (auto& [index, facts] : list) {
        norms.erase(norms.begin() + static_cast<std::ptrdiff_t>(index));
        norms.insert(norms.begin() + static_cast<std::ptrdiff_t>(index), facts.begin(), facts.end());
      }
    }
  }

  // Calls that take the same default of a project callable are one finding at the default,
  // naming the first call and how many others share it.
  template <class Fact>
  void merge_default_uses() {
    using S = Settleable<Fact>;
    struct Key {
      std::string path;
      std::uint32_t offset;
      std::string api;
      auto operator<=>(const Key&) const = default;
    };
    std::map<Key, std::pair<std::size_t, std::size_t>> first;
    std::map<Key, std::size_t> others;
    for (std::size_t i = 0; i < results_.size(); ++i) {
      if (!results_[i].facts) continue;
      auto& norms = S::facts(*results_[i].facts);
      for (std::size_t k = 0; k < norms.size();) {
        Fact& fact = norms[k];
        if (S::slot(fact, 0).via.rfind("the default of ", 0) != 0 || S::slot(fact, 0).via.find(", used by ") == std::string::npos ||
            !S::slot(fact, 0).location) {
          ++k;
          continue;
        }
        const Key key{S::slot(fact, 0).location->path, S::slot(fact, 0).location->range.begin.byte_offset, fact.api};
        const auto it = first.find(key);
        if (it == first.end()) {
          first.emplace(key, std::pair{i, k});
          ++k;
          continue;
        }
        Fact& kept = S::facts(*results_[it->second.first].facts)[it->second.second];
        // The calls first (the kept fact's own, then the others'), then how the value travels.
        if (!fact.uses.empty())
          kept.uses.insert(kept.uses.begin() + static_cast<std::ptrdiff_t>(std::min(kept.uses.size(), 1 + others[key])),
                           fact.uses.front());
        ++others[key];
        norms.erase(norms.begin() + static_cast<std::ptrdiff_t>(k));
      }
    }
    for (const auto& [key, count] : others) {
      Fact& kept = S::facts(*results_[first[key].first].facts)[first[key].second];
      S::slot(kept, 0).via += " and " + std::to_string(count) + (count == 1 ? " other call" : " other calls");
    }
  }

  const ProjectInput& in_;
  std::vector<PythonFileResult>& results_;
  ApiTable table_;
  ProjectOutcome out_;
  std::unique_ptr<python::Parser> parser_;
  std::shared_ptr<const ImportedConstants> imported_constants_;  // handed to the later passes too
  std::unordered_map<std::size_t, bool> imports_constants_;  // file -> whether it imports one
  // file -> the modules of the tree binding a number that it imports, with their files
  std::unordered_map<std::size_t, std::vector<std::pair<std::string, std::size_t>>> tree_imports_;
  std::unordered_map<std::size_t, std::shared_ptr<const python::ModuleExports>> exports_;
  std::unordered_set<std::string> defined_callables_;
  std::set<std::string> config_leaves_;
  ConfigFiles configs_{in_.config_files, in_.pass.limits, out_.diagnostics, out_.suppressions};
  std::optional<std::vector<PythonFileResult>> argparse_results_, default_results_;
  std::map<std::size_t, std::vector<ArgumentFact>> own_flags_;  // own_flag_default's reads, by file
  std::vector<std::vector<std::string>> numbers_;  // settle_numeric_names'; by file
};

}  // namespace

ProjectOutcome run_project_step(const ProjectInput& input, std::vector<PythonFileResult>& results) {
  return ProjectStep(input, results).run();
}

}  // namespace cudnnlint
