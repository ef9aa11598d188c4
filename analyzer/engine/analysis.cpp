#include "engine/analysis.h"

#include "config/config_file.h"
#include "core/api_table.h"
#include "core/line_hash.h"
#include "cache/codec.h"
#include "engine/analysis_cache.h"
#include "engine/fixes.h"
#include "engine/module_index.h"
#include "engine/session_cache.h"
#include "engine/project.h"
#include "engine/python_pass.h"
#include "python/relevance.h"
#include "engine/target_resolution.h"
#include "core/framework_releases.h"
#include "discovery/gitignore.h"
#include "rules/rule.h"

#include <algorithm>
#include <filesystem>
#include <set>
#include <map>
#include <memory>
#include <tuple>

namespace cudnnlint {

namespace {

bool suppressed_by(const Finding& finding, const std::vector<SuppressionComment>& suppressions) {
  for (const auto& s : suppressions) {
    if (s.line != finding.location.range.begin.line) continue;
    if (s.rules.empty()) return true;
    for (const auto& rule : s.rules)
      if (rule == finding.rule_id || rule == "cudnnlint-" + finding.rule_id) return true;
  }
  return false;
}

// A per-file-ignores pattern against a finding's path: the path as discovered ("./" dropped), or
// its file name when the pattern names no folder (as Ruff matches `__init__.py`).
bool per_file_pattern_matches(const PerFileIgnore& entry, std::string_view discovered) {
  std::string_view pattern = entry.pattern;
  std::string relative(discovered);
  if (!entry.anchor.empty()) {
    std::error_code ec;
    const auto absolute = std::filesystem::absolute(std::filesystem::path(relative), ec).lexically_normal();
    relative = absolute.lexically_relative(entry.anchor).generic_string();
    if (ec || relative.empty() || relative.starts_with("..")) return false;  // outside the configuration's folder
  }
  std::string_view path = relative;
  while (path.starts_with("./")) path.remove_prefix(2);
  if (pattern.find('/') == std::string_view::npos) {
    const std::size_t slash = path.rfind('/');
    return wildmatch(pattern, slash == std::string_view::npos ? path : path.substr(slash + 1));
  }
  while (pattern.starts_with("./")) pattern.remove_prefix(2);
  return wildmatch(pattern, path);
}

bool selected(const Finding& finding, const AnalysisOptions& options) {
  auto listed = [&](const std::vector<std::string>& ids) {
    return std::find(ids.begin(), ids.end(), finding.rule_id) != ids.end();
  };
  if (!options.select.empty() && !listed(options.select)) return false;
  if (listed(options.ignore)) return false;
  return std::none_of(options.per_file_ignores.begin(), options.per_file_ignores.end(), [&](const PerFileIgnore& entry) {
    return listed(entry.rules) && per_file_pattern_matches(entry, finding.location.path);
  });
}

// The Python families a run extracts: those whose Python facts a selected rule reads. Convolution
// geometry from Python carries no input size yet, so no rule fires on it: it is extracted for
// --format facts only (all families, or those of the --select'ed rules).
std::vector<std::string> python_families(const AnalysisOptions& options) {
  auto selected_family = [&](std::string_view family) {
    if (options.select.empty()) return true;
    return std::any_of(options.select.begin(), options.select.end(), [&](const std::string& id) {
      const RuleInfo* rule = find_rule(id);
      return rule != nullptr && rule->family == family;
    });
  };
  std::vector<std::string> families;
  // The loader rules also read the batch norms a loader's batches reach (a class building
  // nn.Linear then nn.BatchNorm1d): the normalization family's words keep those definitions parsed.
  const bool loader = selected_family("loader") || selected_family("shape");
  if (selected_family("batchnorm") || loader) families.emplace_back(kNormalizationFamily);
  if (loader) families.emplace_back(kLoaderFamily);
  if (options.keep_facts && selected_family("conv")) families.emplace_back(kConvolutionFamily);
  if (selected_family("dtype")) families.emplace_back(kDtypeFamily);
  if (selected_family("shape")) families.emplace_back(kShapeFamily);
  return families;
}

// The headers the run's C/C++ files include, by the name they include them with.
class IncludedHeaders {
 public:
  void add(const std::string& includer, std::string_view text) {
    const std::string dir = includer.find('/') == std::string::npos ? "" : includer.substr(0, includer.rfind('/') + 1);
    for (std::size_t at = text.find("include"); at != std::string_view::npos; at = text.find("include", at + 7)) {
      // `#include "a/b.h"` or `# include <a/b.h>`: a '#' before it on its line, only blanks between.
      std::size_t back = at;
      while (back > 0 && (text[back - 1] == ' ' || text[back - 1] == '\t')) --back;
      if (back == 0 || text[back - 1] != '#') continue;
      std::size_t open = at + 7;
      while (open < text.size() && (text[open] == ' ' || text[open] == '\t')) ++open;
      if (open >= text.size() || (text[open] != '"' && text[open] != '<')) continue;
      const char close_char = text[open] == '"' ? '"' : '>';
      const std::size_t close = text.find(close_char, open + 1);
      if (close == std::string_view::npos || text.substr(open + 1, close - open - 1).find('\n') != std::string_view::npos)
        continue;
      std::string name(text.substr(open + 1, close - open - 1));
      if (name.empty()) continue;
      // "../x.h" is relative to the includer; "a/b.h" may be found under any include directory.
      if (name.starts_with("./") || name.starts_with("../")) relative_.insert(normalize_path_spelling(dir + name));
      else names_.insert(normalize_path_spelling(name));
    }
  }
  bool includes(const std::string& header) const {
    const std::string path = normalize_path_spelling(header);
    if (relative_.contains(path) || names_.contains(path)) return true;
    // "include/cudnn_frontend/node/batchnorm.h" is included as "cudnn_frontend/node/batchnorm.h",
    // "node/batchnorm.h" or "batchnorm.h": every suffix after a '/'.
    for (std::size_t slash = path.find('/'); slash != std::string::npos; slash = path.find('/', slash + 1))
      if (names_.contains(path.substr(slash + 1))) return true;
    return false;
  }

 private:
  std::set<std::string> names_;
  std::set<std::string> relative_;
};

// The paths named on the command line that are files, spelled as discovery spells them.
std::set<std::string> named_files(const std::vector<std::string>& paths) {
  std::set<std::string> named;
  for (const auto& path : paths) {
    std::error_code ec;
    if (!std::filesystem::is_directory(path, ec)) named.insert(normalize_path_spelling(path));
  }
  return named;
}

// Findings may sit in another file than the facts that produced them (a parameter's default, a
// config line): suppressions, excerpts and fingerprints come from the finding's own file.
class FindingFiles {
 public:
  FindingFiles(const LoadLimits& limits, std::map<std::string, std::vector<SuppressionComment>> suppressions)
      : limits_(limits), suppressions_(std::move(suppressions)) {
    limits_.require_utf8 = false;
  }
  const std::vector<SuppressionComment>& suppressions(const std::string& path) {
    static const std::vector<SuppressionComment> none;
    const auto it = suppressions_.find(path);
    return it == suppressions_.end() ? none : it->second;
  }
  const SourceFile* file(const std::string& path) {
    auto it = files_.find(path);
    if (it == files_.end()) {
      auto loaded = load_source_file(path, limits_);
      std::unique_ptr<SourceFile> file;
      if (auto* f = std::get_if<SourceFile>(&loaded)) file = std::make_unique<SourceFile>(std::move(*f));
      it = files_.emplace(path, std::move(file)).first;
    }
    return it->second.get();
  }
  // GitHub's line hashes of the file's lines: a notebook's are those of the .ipynb file itself, where
  // SARIF places its findings (what upload-sarif would compute there).
  const std::vector<std::string>& hashes(const std::string& path) {
    auto it = hashes_.find(path);
    if (it == hashes_.end()) {
      const SourceFile* f = file(path);
      std::vector<std::string> lines;
      if (f && f->notebook()) lines = primary_location_line_hashes(read_file_bytes(path).value_or(""));
      else if (f) lines = primary_location_line_hashes(f->text());
      it = hashes_.emplace(path, std::move(lines)).first;
    }
    return it->second;
  }

 private:
  LoadLimits limits_;
  std::map<std::string, std::vector<SuppressionComment>> suppressions_;
  std::map<std::string, std::unique_ptr<SourceFile>> files_;
  std::map<std::string, std::vector<std::string>> hashes_;
};

// "torch >=2.1,<2.5 (requirements.txt:3)": the ranges a target pins.
std::string describe_ranges(const Target& target) {
  std::string text;
  for (const auto& [framework, range] : target.framework_ranges)
    text += (text.empty() ? "" : ", ") + framework + " " + range.text + target.source_note(framework);
  return text;
}

// The releases of a range at which a finding fires (`firing[v]` non-null), in a few words: listed
// when they are few, else those where it does not, else a count (a two-framework range has dozens).
std::string releases_firing(const std::vector<Target>& variants, const std::vector<const Finding*>& firing) {
  constexpr std::size_t kListed = 4;
  std::vector<std::string_view> fires, spared;
  for (std::size_t v = 0; v < variants.size(); ++v) (firing[v] ? fires : spared).push_back(variants[v].variant);
  auto joined = [](const std::vector<std::string_view>& names) {
    std::string out;
    for (const auto name : names) out += (out.empty() ? "" : ", ") + std::string(name);
    return out;
  };
  if (fires.size() <= kListed) return joined(fires);
  if (spared.size() <= 2) return "every release but " + joined(spared);
  return std::to_string(fires.size()) + " of " + std::to_string(variants.size()) + " combinations, from " +
         std::string(fires.front()) + " to " + std::string(fires.back());
}

// The rules at each concrete target a ranged target stands for. A finding every release gives
// alike is reported once, saying so; one that differs is reported at its most severe, naming what
// each end of the range gives and where it fires.
std::vector<Finding> judge_variants(const std::vector<const FileFacts*>& all_facts, const ApiTable& table,
                                    const Target& target) {
  const std::vector<Target> variants = target_variants(target);
  std::vector<Finding> findings;
  if (variants.size() == 1) {
    for (const FileFacts* facts : all_facts) run_rules(RuleInput{*facts, variants.front(), table}, findings);
    return findings;
  }
  std::vector<std::vector<Finding>> per_variant(variants.size());
  for (std::size_t v = 0; v < variants.size(); ++v)
    for (const FileFacts* facts : all_facts) run_rules(RuleInput{*facts, variants[v], table}, per_variant[v]);
  using Key = std::tuple<std::string, std::string, std::uint32_t>;
  std::vector<Key> order;
  std::map<Key, std::vector<const Finding*>> by_key;
  for (std::size_t v = 0; v < variants.size(); ++v)
    for (const Finding& f : per_variant[v]) {
      const Key key{f.rule_id, f.location.path, f.location.range.begin.byte_offset};
      auto [it, added] = by_key.try_emplace(key, variants.size(), nullptr);
      if (added) order.push_back(key);
      if (it->second[v] == nullptr) it->second[v] = &f;
    }
  const std::string ranges = describe_ranges(target);
  for (const Key& key : order) {
    const auto& at = by_key.at(key);
    std::size_t pick = 0;
    bool alike = true;
    for (std::size_t v = 0; v < at.size(); ++v) {
      if (at[v] == nullptr) {
        alike = false;
        continue;
      }
      if (at[pick] == nullptr || at[v]->level >= at[pick]->level) pick = v;
    }
    for (std::size_t v = 0; v < at.size(); ++v)
      if (at[v] && (at[v]->level != at[pick]->level || at[v]->message != at[pick]->message)) alike = false;
    Finding finding = *at[pick];
    if (alike) {
      finding.target_note += "; the same for every release of " + ranges + " (" + variants.front().variant + " to " +
                             variants.back().variant + ")";
    } else {
      auto verdict = [&](std::size_t v) {
        return "at " + variants[v].variant + ": " +
               (at[v] == nullptr ? std::string("no finding") : std::string(level_name(at[v]->level)));
      };
      finding.target_note += "; the verdict differs across " + ranges + ": " + verdict(0) + "; " +
                             verdict(at.size() - 1) + " (reported for " + variants[pick].variant + "; fires for " +
                             releases_firing(variants, at) + ")";
    }
    findings.push_back(std::move(finding));
  }
  return findings;
}

// Rules over every file's settled facts, then the filters and what the outputs need.
void judge(const std::vector<const FileFacts*>& all_facts, const ApiTable& table, const AnalysisOptions& options,
           FindingFiles& files, AnalysisResult& result) {
  std::vector<Finding> findings = judge_variants(all_facts, table, result.target);
  // One finding per rule and place: calls that share a default, or two reads of one config line.
  std::map<std::tuple<std::string, std::string, std::uint32_t>, std::size_t> seen;
  for (Finding& finding : findings) {
    if (!selected(finding, options)) continue;
    const std::string& path = finding.location.path;
    if (suppressed_by(finding, files.suppressions(path))) {
      ++result.suppressed;
      continue;
    }
    const auto key = std::tuple{finding.rule_id, path, finding.location.range.begin.byte_offset};
    if (const auto it = seen.find(key); it != seen.end()) {
      Finding& kept = result.findings[it->second];
      for (auto& related : finding.related)
        if (std::none_of(kept.related.begin(), kept.related.end(), [&](const RelatedLocation& r) {
              return r.where.path == related.where.path &&
                     r.where.range.begin.byte_offset == related.where.range.begin.byte_offset;
            }))
          kept.related.push_back(std::move(related));
      continue;
    }
    if (const SourceFile* file = files.file(path)) {
      if (const NotebookIndex* notebook = file->notebook()) {
        finding.notebook = notebook->place(finding.location.range);
        finding.fix.reset();  // an edit of the cells' module is not an edit of the .ipynb file's JSON
      }
      settle_fix(finding, *file);
      finding.source_line = std::string(file->line_text(finding.location.range.begin.line));
      if (options.line_hashes) {
        const auto& hashes = files.hashes(path);
        const std::size_t line = finding.notebook ? finding.notebook->file_line : finding.location.range.begin.line;
        if (line >= 1 && line <= hashes.size()) finding.line_hash = hashes[line - 1];
      }
    }
    seen.emplace(key, result.findings.size());
    result.findings.push_back(std::move(finding));
  }
  // Where a note points into a notebook: its cell (once every finding has all its notes).
  for (Finding& finding : result.findings)
    for (RelatedLocation& related : finding.related)
      if (is_notebook_path(related.where.path))
        if (const SourceFile* file = files.file(related.where.path); file && file->notebook())
          related.notebook = file->notebook()->place(related.where.range);
}

// A diagnostic placed in a notebook's module (a syntax error) names the cell and the line in it: the
// module's line means nothing to the reader, and the .ipynb file's line is JSON.
void place_notebook_diagnostics(std::vector<FileDiagnostic>& diagnostics, FindingFiles& files) {
  for (FileDiagnostic& d : diagnostics) {
    if (!d.position || !is_notebook_path(d.path)) continue;
    const SourceFile* file = files.file(d.path);
    if (file == nullptr || file->notebook() == nullptr) continue;
    const NotebookPlace place = file->notebook()->place(SourceRange{*d.position, *d.position});
    d.message = "cell " + std::to_string(place.cell) + ", line " + std::to_string(place.line) + ", column " +
                std::to_string(d.position->column) + ": " + d.message;
    d.position.reset();
  }
}

// A header clang could not find that the run's own files hold (`#include "nms_cuda_kernel.cuh"`
// from a sibling folder): the folder holding it, the -I that would have found it.
void note_include_dirs(const std::vector<std::string>& files, std::vector<FileDiagnostic>& diagnostics) {
  for (FileDiagnostic& d : diagnostics) {
    if (d.missing_header.empty()) continue;
    const std::string suffix = "/" + d.missing_header;
    for (const std::string& file : files)
      if (file.size() > suffix.size() && file.ends_with(suffix)) {
        d.include_dir = file.substr(0, file.size() - suffix.size());
        break;
      }
  }
}

// What changes a Python file's first-pass facts beyond its bytes, path and module.
std::string python_fingerprint(const AnalysisOptions& options, const std::vector<std::string>& families) {
  std::string text = "families";
  for (const auto& family : families) text += " " + family;
  text += "\nfull_parse " + std::to_string(options.full_parse);
  text += "\nmax_bytes " + std::to_string(options.limits.max_bytes) + " utf8 " + std::to_string(options.limits.require_utf8);
  return text;
}

// What changes a run's findings beyond its files' paths and bytes.
std::string run_fingerprint(const AnalysisOptions& options, const std::string& python, const std::string& target,
                            const std::vector<std::string>& cpp_commands) {
  std::string text = python + "\ntarget " + target + "\nline_hashes " + std::to_string(options.line_hashes);
  for (const auto& id : options.select) text += "\nselect " + id;
  for (const auto& id : options.ignore) text += "\nignore " + id;
  for (const auto& entry : options.per_file_ignores)
    for (const auto& id : entry.rules) text += "\nper-file-ignore " + entry.anchor + " " + entry.pattern + " " + id;
  text += "\ncpp timeout " + std::to_string(options.cpp.timeout_seconds) + " -p " + options.cpp.compile_commands_dir;
  for (const auto& arg : options.cpp.extra_args) text += "\nextra-arg " + arg;
  for (const auto& command : cpp_commands) text += "\ncommand " + command;
  return text;
}

}  // namespace

namespace {

// The run's files, by front-end, as discovery gives them (sorted, each once).
struct RunFiles {
  std::vector<std::string> all, python, cpp, config;
};

RunFiles discover_run_files(const AnalysisOptions& options, AnalysisResult& result) {
  DiscoveryResult discovered;
  if (options.paths_discovered) {
    discovered.files = options.paths;
    std::sort(discovered.files.begin(), discovered.files.end());
    discovered.files.erase(std::unique(discovered.files.begin(), discovered.files.end()), discovered.files.end());
  } else {
    discovered = discover(options.paths, options.discovery);
  }
  result.usage_error = discovered.usage_error;
  result.diagnostics = std::move(discovered.diagnostics);
  RunFiles files;
  files.all = std::move(discovered.files);
  result.files_discovered = files.all.size();
  for (const auto& path : files.all) {
    if (cpp::is_cpp_source(path)) files.cpp.push_back(path);
    else if (config::is_config_file(path)) files.config.push_back(path);
    else files.python.push_back(path);
  }
  return files;
}

// The run's entry in the cache: a run over files whose stat records say they are unchanged, with
// the same options, is answered from it without reading a file; else it is asked again once every
// file is read (a file touched but unchanged), and stored once the run is judged. Inert without a
// cache, and with --format facts (which needs every file's facts).
class RunEntry {
 public:
  RunEntry(AnalysisCache* cache, const AnalysisOptions& options, const RunFiles& files,
           const std::string& python_options, AnalysisResult& result)
      : cache_(cache), files_(files), result_(result), own_diagnostics_from_(result.diagnostics.size()) {
    if (cache_ != nullptr && !files.cpp.empty()) cpp_commands_ = cpp::command_texts(files.cpp, options.cpp);
    cacheable_ = cache_ != nullptr && !options.keep_facts;
    if (cacheable_)
      fingerprint_ = run_fingerprint(options, python_options, cache::canonical_text(result.target), cpp_commands_);
    progress_ = options.progress;
  }
  // The clang command of each C/C++ file (empty without a cache).
  const std::vector<std::string>& cpp_commands() const { return cpp_commands_; }
  // A unit that may parse differently next time: the run is not kept.
  void not_cacheable() { cacheable_ = false; }
  // Answers the run from its entry; `may_read`: a file whose stat record changed is hashed.
  bool answer(bool may_read) {
    if (!cacheable_ || key_) return false;  // a key found before was asked then
    key_ = cache_->run_key(files_.all, fingerprint_, may_read);
    if (!key_) return false;
    // The entry holds the front-ends' diagnostics: those of this run's first pass give way.
    const auto own_begin = result_.diagnostics.begin() + static_cast<std::ptrdiff_t>(own_diagnostics_from_);
    std::vector<FileDiagnostic> so_far(own_begin, result_.diagnostics.end());
    result_.diagnostics.resize(own_diagnostics_from_);
    if (!cache_->load_run(*key_, result_)) {
      result_.diagnostics.insert(result_.diagnostics.end(), so_far.begin(), so_far.end());
      return false;
    }
    if (progress_ != nullptr) progress_->file_done(files_.python.size() + files_.cpp.size());
    result_.cache_summary = cache_->summary();
    cache_->save(result_.diagnostics);
    sort_diagnostics(result_);
    return true;
  }
  // Stores the judged run (`dependencies` and `absent`: clang's headers, found and not) and saves
  // what this run added to the cache.
  void finish(std::vector<std::string> dependencies, std::vector<std::string> absent) {
    if (cache_ == nullptr) return;
    if (cacheable_ && key_) {
      const std::vector<FileDiagnostic> own(
          result_.diagnostics.begin() + static_cast<std::ptrdiff_t>(own_diagnostics_from_), result_.diagnostics.end());
      cache_->store_run(*key_, result_, own, files_.all, std::move(dependencies), std::move(absent));
    }
    result_.cache_summary = cache_->summary();
    cache_->save(result_.diagnostics);
  }
  // Diagnostics in path order, as files are.
  static void sort_diagnostics(AnalysisResult& result) {
    std::stable_sort(result.diagnostics.begin(), result.diagnostics.end(),
                     [](const FileDiagnostic& a, const FileDiagnostic& b) { return a.path < b.path; });
  }

 private:
  AnalysisCache* cache_;
  const RunFiles& files_;
  AnalysisResult& result_;
  const std::size_t own_diagnostics_from_;
  std::vector<std::string> cpp_commands_;
  std::string fingerprint_;
  std::optional<cache::Hash128> key_;
  bool cacheable_ = false;
  Progress* progress_ = nullptr;
};

// What the C/C++/CUDA front-end gave the run.
struct CppOutcome {
  std::vector<FileFacts> facts;
  std::vector<std::string> dependencies;  // files clang read
  std::vector<std::string> absent;        // where clang looked for a header it did not find
  bool cacheable = true;
};

// The files clang parses: those naming an API a rule reads, less the headers another file of the
// run includes. A header the walk found that another file includes is read by clang as part of
// that file's translation unit; parsed on its own (without the includer's context), it mostly
// gives errors (cudnn-frontend's headers). Named on the command line, it is parsed all the same.
std::vector<std::string> cpp_files_to_parse(const std::vector<std::string>& cpp_files, const AnalysisOptions& options,
                                            AnalysisResult& result) {
  std::vector<std::string> to_parse;
  LoadLimits limits = options.limits;
  limits.require_utf8 = false;
  IncludedHeaders included;
  for (const auto& path : cpp_files) {
    auto loaded = load_source_file(path, limits);
    if (auto* error = std::get_if<LoadError>(&loaded)) {
      result.diagnostics.push_back({FileDiagnostic::Severity::Error, path, std::nullopt, std::move(error->message)});
      continue;
    }
    const SourceFile& file = std::get<SourceFile>(loaded);
    result.bytes_read += file.text().size();
    included.add(path, file.text());
    if (!options.full_parse && !cpp::may_contain_cpp_trigger(file.text())) continue;
    to_parse.push_back(path);
  }
  if (!options.full_parse) {
    const std::set<std::string> named = named_files(options.paths);
    std::erase_if(to_parse, [&](const std::string& path) {
      return cpp::is_header(path) && !named.contains(path) && included.includes(path);
    });
  }
  if (options.progress != nullptr) options.progress->file_done(cpp_files.size() - to_parse.size());
  return to_parse;
}

// C++/CUDA: clang, in one batch (it parallelises itself); units the cache holds (their headers
// unchanged) are not parsed again.
CppOutcome analyze_cpp_files(const std::vector<std::string>& cpp_files, const std::vector<std::string>& commands,
                             const AnalysisOptions& options, AnalysisCache* cache, AnalysisResult& result) {
  CppOutcome out;
  const std::vector<std::string> to_parse = cpp_files_to_parse(cpp_files, options, result);
  if (to_parse.empty()) return out;
  cpp::CppOptions cpp_options = options.cpp;
  cpp_options.jobs = options.jobs;
  cpp_options.progress = options.progress;
  cpp_options.trusted_roots = options.paths;
  std::vector<std::optional<cpp::CppFileResult>> results(to_parse.size());
  std::vector<std::string> fresh;
  std::vector<std::size_t> fresh_at;
  std::map<std::string, const std::string*> command_of;
  for (std::size_t i = 0; i < cpp_files.size() && i < commands.size(); ++i) command_of[cpp_files[i]] = &commands[i];
  for (std::size_t i = 0; i < to_parse.size(); ++i) {
    if (cache != nullptr) results[i] = cache->load_cpp(to_parse[i], *command_of.at(to_parse[i]));
    if (results[i]) {
      if (options.progress != nullptr) options.progress->file_done();
      continue;
    }
    fresh.push_back(to_parse[i]);
    fresh_at.push_back(i);
  }
  if (!fresh.empty()) {
    auto parsed = cpp::analyze_cpp(fresh, ApiTable::builtin(), cpp_options);
    for (std::size_t k = 0; k < parsed.size(); ++k) {
      if (cache != nullptr) cache->store_cpp(fresh[k], *command_of.at(fresh[k]), parsed[k]);
      results[fresh_at[k]] = std::move(parsed[k]);
    }
  }
  for (auto& slot : results) {
    cpp::CppFileResult& r = *slot;
    if (!r.cacheable) out.cacheable = false;
    for (auto& dependency : r.dependencies) out.dependencies.push_back(std::move(dependency));
    for (auto& path : r.absent) out.absent.push_back(std::move(path));
    ++result.files_parsed;
    result.bytes_parsed += r.text_size;
    for (auto& diag : r.diagnostics) result.diagnostics.push_back(std::move(diag));
    out.facts.push_back(std::move(r.facts));
  }
  note_include_dirs(cpp_files, result.diagnostics);
  return out;
}

// The Python passes' options: what makes a file, a definition or a statement relevant is declared
// by the families' extractors (python/relevance.h), read by the prefilter and the region planner
// alike.
PythonPassOptions python_pass_options(const AnalysisOptions& options, std::vector<std::string> families) {
  PythonPassOptions pass;
  pass.table = &ApiTable::builtin();
  pass.limits = options.limits;
  pass.jobs = options.jobs;
  if (!options.parsed_python.empty()) pass.parsed = &options.parsed_python;
  pass.skip_prefilter = options.full_parse;
  pass.python.mode = options.full_parse ? python::ParseMode::Full : python::ParseMode::Regions;
  pass.python.families = std::move(families);
  python::Relevance relevance = python::relevance_of(*pass.table, pass.python.families);
  pass.words = relevance.words;
  pass.quoted = std::move(relevance.quoted);
  pass.framework_markers = std::move(relevance.framework_markers);
  pass.framework_words = std::move(relevance.framework_words);
  pass.build_filters = true;
  pass.python.triggers = std::move(relevance.quoted_tokens);
  pass.python.trigger_words = std::move(relevance.words);
  pass.python.pairs = std::move(relevance.pairs);
  pass.python.attributes = std::move(relevance.attributes);
  pass.python.class_uses_count = relevance.follows_class_uses;
  // In the first pass a definition named like an API (transformers' `class TrainingArguments`) is
  // the library defining it, not code using it.
  pass.python.own_names_count = false;
  return pass;
}

// Python: the first pass over every file, in parallel, through the cache or the editor's session
// when there is one. Leaves `pass` ready for the project step's passes.
std::vector<PythonFileResult> first_python_pass(const std::vector<std::string>& python_files, const ModuleIndex& modules,
                                                const std::string& python_options, const AnalysisOptions& options,
                                                AnalysisCache* cache, PythonPassOptions& pass, AnalysisResult& result) {
  std::vector<PythonFileResult> python_results(python_files.size());
  // No selected rule reads Python facts (`--select cudnn-desc-bad-dim`): no Python file is read.
  // An empty family list means every family to the API table, so the pass must not run at all.
  std::vector<std::size_t> every;
  if (!pass.python.families.empty()) every.resize(python_files.size());
  for (std::size_t i = 0; i < every.size(); ++i) every[i] = i;
  pass.progress = options.progress;
  if (options.progress != nullptr && every.empty()) options.progress->file_done(python_files.size());
  std::optional<SessionFirstPass> session;
  if (cache != nullptr) {
    cache->prepare_python(python_files, modules, python_options);
    pass.cache = cache;
  } else if (options.session) {
    pass.cache = &session.emplace(*options.session, python_files, modules, python_options, &options.parsed_python);
  }
  run_python_pass(python_files, modules, every, pass, python_results);
  pass.progress = nullptr;  // the project step's passes are not counted again
  pass.cache = nullptr;
  pass.session = options.session.get();  // the session keeps the project step's passes too
  for (const auto& r : python_results) {
    result.bytes_read += r.bytes_read;
    if (r.facts) {
      ++result.files_parsed;
      result.bytes_parsed += r.bytes_parsed;
      result.tracked += r.facts->tracked;
    }
  }
  return python_results;
}

void sort_findings(std::vector<Finding>& findings) {
  std::stable_sort(findings.begin(), findings.end(), [](const Finding& a, const Finding& b) {
    const auto& pa = a.location.range.begin;
    const auto& pb = b.location.range.begin;
    return std::tie(a.location.path, pa.line, pa.column, a.rule_id) <
           std::tie(b.location.path, pb.line, pb.column, b.rule_id);
  });
}

}  // namespace

AnalysisResult analyze(const AnalysisOptions& options) {
  AnalysisResult result;
  const RunFiles files = discover_run_files(options, result);
  result.target = options.read_pins ? resolve_target(options.target, options.paths, result.diagnostics) : options.target;
  if (result.target.framework_ranges.empty()) derive_cudnn(result.target);
  if (options.progress != nullptr) options.progress->add_files(files.python.size() + files.cpp.size());

  std::unique_ptr<AnalysisCache> cache = AnalysisCache::open(options, result.diagnostics);
  const std::vector<std::string> families = python_families(options);
  const std::string python_options = python_fingerprint(options, families);
  RunEntry entry(cache.get(), options, files, python_options, result);
  if (entry.answer(/*may_read=*/false)) return result;

  CppOutcome cpp = analyze_cpp_files(files.cpp, entry.cpp_commands(), options, cache.get(), result);
  if (!cpp.cacheable) entry.not_cacheable();

  const std::shared_ptr<const ModuleIndex> modules =
      options.module_indexes ? options.module_indexes->index_for(files.python)
                             : std::make_shared<const ModuleIndex>(files.python);
  PythonPassOptions pass = python_pass_options(options, families);
  std::vector<PythonFileResult> python_results =
      first_python_pass(files.python, *modules, python_options, options, cache.get(), pass, result);
  // Every file read now: the run's entry may hold the rest (a file touched but unchanged).
  if (entry.answer(/*may_read=*/true)) return result;

  // The project step: values across modules, calls and config files.
  ProjectOutcome project = run_project_step(ProjectInput{files.python, files.config, *modules, pass}, python_results);
  result.project_seconds = project.seconds;
  result.project_rounds = project.rounds;
  result.project_apis = project.project_apis;
  result.project_bytes_parsed = project.bytes_parsed;
  for (auto& diag : project.diagnostics) result.diagnostics.push_back(std::move(diag));

  std::map<std::string, std::vector<SuppressionComment>> suppressions = std::move(project.suppressions);
  std::vector<const FileFacts*> all_facts;
  for (const auto& facts : cpp.facts) all_facts.push_back(&facts);
  for (auto& r : python_results) {
    for (auto& diag : r.diagnostics) result.diagnostics.push_back(std::move(diag));
    if (r.facts) all_facts.push_back(&*r.facts);
  }
  for (const auto& facts : project.config_facts) all_facts.push_back(&facts);
  for (const FileFacts* facts : all_facts) suppressions[facts->path] = facts->suppressions;

  FindingFiles finding_files(options.limits, std::move(suppressions));
  judge(all_facts, project.table, options, finding_files, result);
  place_notebook_diagnostics(result.diagnostics, finding_files);
  sort_findings(result.findings);
  entry.finish(std::move(cpp.dependencies), std::move(cpp.absent));
  if (options.keep_facts) {
    for (auto& facts : cpp.facts) result.facts.push_back(std::move(facts));
    for (auto& r : python_results)
      if (r.facts) result.facts.push_back(std::move(*r.facts));
    for (auto& facts : project.config_facts) result.facts.push_back(std::move(facts));
  }
  RunEntry::sort_diagnostics(result);
  return result;
}

}  // namespace cudnnlint
