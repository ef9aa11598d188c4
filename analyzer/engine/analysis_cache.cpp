#include "engine/analysis_cache.h"

#include "cache/codec.h"
#include "core/source_file.h"
#include "cpp/frontend.h"
#include "engine/analysis.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <unordered_map>

namespace cudnnlint {

namespace {

// The version alone would let a rebuilt development binary read entries of the one before it.
std::string tool_identity() {
  std::string id = "cudnnlint ";
  id += CUDNNLINT_VERSION;
  if (const auto exe = cache::stat_file("/proc/self/exe")) {
    id += ' ';
    id += std::to_string(exe->size);
    id += ' ';
    id += std::to_string(exe->mtime_ns);
  }
  return id;
}

// 3164 -> "3,164"
std::string with_separators(std::size_t n) {
  const std::string digits = std::to_string(n);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out.push_back(',');
    out.push_back(digits[i]);
  }
  return out;
}

}  // namespace

AnalysisCache::AnalysisCache(std::unique_ptr<cache::Store> store) : store_(std::move(store)), tool_(tool_identity()) {
  std::error_code ec;
  cwd_ = std::filesystem::current_path(ec).string();
}

std::unique_ptr<AnalysisCache> AnalysisCache::open(const AnalysisOptions& options,
                                                   std::vector<FileDiagnostic>& diagnostics) {
  // An editor's unsaved buffers (LoadLimits::overlay) are not what the files' stat and bytes say.
  if (!options.cache.enabled || options.limits.overlay) return nullptr;
  const std::filesystem::path dir = options.cache.dir.empty() ? std::filesystem::path(".cudnnlint_cache")
                                                              : std::filesystem::path(options.cache.dir);
  std::string problem;
  auto store = cache::Store::open(dir, options.cache.max_bytes, problem);
  if (!store) {
    diagnostics.push_back({FileDiagnostic::Severity::Warning, dir.string(), std::nullopt,
                           problem + "; running without the cache (--no-cache says so quietly)"});
    return nullptr;
  }
  return std::unique_ptr<AnalysisCache>(new AnalysisCache(std::move(store)));
}

std::string AnalysisCache::absolute(const std::string& path) const {
  if (!path.empty() && path.front() == '/') return path;
  return (std::filesystem::path(cwd_) / path).lexically_normal().string();
}

std::optional<cache::Hash128> AnalysisCache::hash_of(const std::string& path, bool may_read) {
  const std::string full = absolute(path);
  const auto stat = cache::stat_file(full);
  if (!stat) return std::nullopt;
  if (auto known = store_->known_hash(full, *stat)) {
    ++store_->counters().hashes_known;
    return known;
  }
  if (!may_read) return std::nullopt;
  const auto bytes = read_file_bytes(full);
  if (!bytes) return std::nullopt;
  const cache::Hash128 hash = cache::hash_bytes(*bytes);
  ++store_->counters().files_hashed;
  store_->remember(full, *stat, hash);
  return hash;
}

bool AnalysisCache::dependencies_unchanged(const std::vector<std::pair<std::string, std::string>>& dependencies,
                                           const std::vector<std::string>& absent) {
  for (const auto& [path, hex] : dependencies) {
    const auto now = hash_of(path, true);
    if (!now || now->hex() != hex) return false;
  }
  for (const auto& path : absent) {
    std::error_code ec;
    if (std::filesystem::exists(path, ec) || ec) return false;
  }
  return true;
}

// ---- the run ---------------------------------------------------------------------------------

// The statistics a run's entry keeps (for --timings and the summary), either way.
template <typename From, typename To>
void copy_statistics(const From& from, To& to) {
  to.files_parsed = from.files_parsed;
  to.bytes_read = from.bytes_read;
  to.bytes_parsed = from.bytes_parsed;
  to.tracked = from.tracked;
  to.suppressed = from.suppressed;
  to.project_rounds = from.project_rounds;
  to.project_apis = from.project_apis;
  to.project_bytes_parsed = from.project_bytes_parsed;
}

std::optional<cache::Hash128> AnalysisCache::run_key(const std::vector<std::string>& files,
                                                     const std::string& fingerprint, bool may_read) {
  // The first pass hashed the Python files it read or found in the stat records.
  std::unordered_map<std::string_view, cache::Hash128> hashed;
  if (python_files_ != nullptr)
    for (std::size_t i = 0; i < python_files_->size(); ++i)
      if (python_hashes_[i]) hashed.emplace((*python_files_)[i], *python_hashes_[i]);
  cache::KeyBuilder key;
  key.add("run").add(tool_).add(fingerprint).add(static_cast<std::uint64_t>(files.size()));
  for (const auto& path : files) {
    const auto known = hashed.find(path);
    const auto hash = known != hashed.end() ? std::optional(known->second) : hash_of(path, may_read);
    if (!hash) return std::nullopt;
    key.add(path).add(*hash);
  }
  return key.key();
}

bool AnalysisCache::load_run(const cache::Hash128& key, AnalysisResult& result) {
  const auto bytes = store_->run_entry(key);
  if (!bytes) return false;
  auto entry = cache::decode_run(*bytes);
  if (!entry || !dependencies_unchanged(entry->dependencies, entry->absent)) return false;
  result.findings = std::move(entry->findings);
  for (auto& d : entry->diagnostics) result.diagnostics.push_back(std::move(d));
  copy_statistics(*entry, result);
  run_hit_ = true;
  return true;
}

void AnalysisCache::store_run(const cache::Hash128& key, const AnalysisResult& result,
                              const std::vector<FileDiagnostic>& diagnostics, const std::vector<std::string>& files,
                              std::vector<std::string> dependencies, std::vector<std::string> absent) {
  cache::RunEntry entry;
  entry.findings = result.findings;
  entry.diagnostics = diagnostics;
  copy_statistics(result, entry);
  // The files the findings point into and those clang read, where the key does not cover them.
  for (const Finding& f : result.findings) {
    dependencies.push_back(f.location.path);
    for (const auto& related : f.related) dependencies.push_back(related.where.path);
  }
  std::set<std::string> covered;
  for (const auto& path : files) covered.insert(absolute(path));
  std::set<std::string> seen;
  for (const auto& path : dependencies) {
    const std::string full = absolute(path);
    if (covered.contains(full) || !seen.insert(full).second) continue;
    const auto hash = hash_of(full, true);
    if (!hash) return;  // a file that cannot be read: not a run to keep
    entry.dependencies.emplace_back(full, hash->hex());
  }
  std::sort(absent.begin(), absent.end());
  absent.erase(std::unique(absent.begin(), absent.end()), absent.end());
  entry.absent = std::move(absent);
  store_->put_run(key, cache::encode(entry));
}

// ---- the Python first pass -------------------------------------------------------------------

void AnalysisCache::prepare_python(const std::vector<std::string>& files, const ModuleIndex& modules,
                                   std::string fingerprint) {
  python_files_ = &files;
  modules_ = &modules;
  python_fingerprint_ = std::move(fingerprint);
  python_stats_.assign(files.size(), std::nullopt);
  python_hashes_.assign(files.size(), std::nullopt);
  python_files_count_ = files.size();
}

std::optional<cache::Hash128> AnalysisCache::python_key(std::size_t file, const cache::Hash128& content) const {
  const ModuleInfo& module = modules_->of(file);
  cache::KeyBuilder key;
  key.add("python").add(tool_).add(python_fingerprint_).add((*python_files_)[file]).add(module.name);
  key.add(static_cast<std::uint64_t>(module.is_package)).add(content);
  return key.key();
}

std::optional<PythonFileResult> AnalysisCache::python_entry(const cache::Hash128& key) {
  const auto bytes = store_->entry(key);
  if (!bytes) return std::nullopt;
  auto entry = cache::decode_python(*bytes);
  if (!entry) return std::nullopt;
  PythonFileResult result;
  result.facts = std::move(entry->facts);
  result.identifiers = IdentifierFilter::from_words(std::move(entry->identifiers));
  result.numeric.numbers = std::move(entry->numeric_names);
  result.numeric.aliases = std::move(entry->numeric_aliases);
  result.numeric.flags = std::move(entry->numeric_flags);
  result.diagnostics = std::move(entry->diagnostics);
  result.bytes_read = entry->bytes_read;
  result.bytes_parsed = entry->bytes_parsed;
  ++python_hits_;
  return result;
}

std::optional<PythonFileResult> AnalysisCache::before_read(std::size_t file) {
  const std::string full = absolute((*python_files_)[file]);
  python_stats_[file] = cache::stat_file(full);
  if (!python_stats_[file]) return std::nullopt;
  const auto hash = store_->known_hash(full, *python_stats_[file]);
  if (!hash) return std::nullopt;
  ++store_->counters().hashes_known;
  python_hashes_[file] = hash;
  return python_entry(*python_key(file, *hash));
}

std::optional<PythonFileResult> AnalysisCache::after_read(std::size_t file, std::string_view bytes) {
  const cache::Hash128 hash = cache::hash_bytes(bytes);
  ++store_->counters().files_hashed;
  python_hashes_[file] = hash;
  if (python_stats_[file]) store_->remember(absolute((*python_files_)[file]), *python_stats_[file], hash);
  return python_entry(*python_key(file, hash));
}

void AnalysisCache::store(std::size_t file, const PythonFileResult& result) {
  if (!python_hashes_[file] || !result.cacheable) return;
  cache::PythonEntry entry;
  entry.facts = result.facts;
  entry.identifiers = result.identifiers.words();
  entry.numeric_names = result.numeric.numbers;
  entry.numeric_aliases = result.numeric.aliases;
  entry.numeric_flags = result.numeric.flags;
  entry.diagnostics = result.diagnostics;
  entry.bytes_read = result.bytes_read;
  entry.bytes_parsed = result.bytes_parsed;
  store_->put(*python_key(file, *python_hashes_[file]), cache::encode(entry));
}

// ---- C/C++/CUDA ------------------------------------------------------------------------------

namespace {

std::optional<cache::Hash128> cpp_key(const std::string& tool, const std::string& path, const std::string& command,
                                      const std::optional<cache::Hash128>& content) {
  if (!content) return std::nullopt;
  cache::KeyBuilder key;
  key.add("cpp").add(tool).add(path).add(command).add(*content);
  return key.key();
}

}  // namespace

std::optional<cpp::CppFileResult> AnalysisCache::load_cpp(const std::string& path, const std::string& command_text) {
  const auto key = cpp_key(tool_, path, command_text, hash_of(path, true));
  if (!key) return std::nullopt;
  const auto bytes = store_->entry(*key);
  if (!bytes) return std::nullopt;
  auto entry = cache::decode_cpp(*bytes);
  if (!entry || !dependencies_unchanged(entry->dependencies, entry->absent)) return std::nullopt;
  cpp::CppFileResult result;
  result.facts = std::move(entry->facts);
  result.stand_ins = std::move(entry->stand_ins);
  result.text_size = entry->text_size;
  result.diagnostics = std::move(entry->diagnostics);
  for (auto& [dependency, hex] : entry->dependencies) result.dependencies.push_back(std::move(dependency));
  result.absent = std::move(entry->absent);
  result.cacheable = true;
  ++cpp_hits_;
  return result;
}

void AnalysisCache::store_cpp(const std::string& path, const std::string& command_text,
                              const cpp::CppFileResult& result) {
  if (!result.cacheable) return;
  const auto key = cpp_key(tool_, path, command_text, hash_of(path, true));
  if (!key) return;
  cache::CppEntry entry;
  entry.facts = result.facts;
  entry.stand_ins = result.stand_ins;
  entry.text_size = result.text_size;
  entry.diagnostics = result.diagnostics;
  for (const auto& dependency : result.dependencies) {
    const auto hash = hash_of(dependency, true);
    if (!hash) return;
    entry.dependencies.emplace_back(dependency, hash->hex());
  }
  entry.absent = result.absent;
  store_->put(*key, cache::encode(entry));
}

void AnalysisCache::save(std::vector<FileDiagnostic>& diagnostics) {
  for (const auto& problem : store_->load_problems())
    diagnostics.push_back({FileDiagnostic::Severity::Warning, store_->dir().string(), std::nullopt, "the cache " + problem});
  for (auto& problem : store_->save())
    diagnostics.push_back({FileDiagnostic::Severity::Warning, store_->dir().string(), std::nullopt,
                           "the cache was not saved: " + problem});
}

std::string AnalysisCache::summary() {
  if (run_hit_) {
    const std::size_t hashed = store_->counters().files_hashed;
    if (hashed == 0) return "the run's entry, no source file read";
    return "the run's entry, after hashing " + with_separators(hashed) + (hashed == 1 ? " file" : " files") +
           " whose stat changed";
  }
  std::string text = with_separators(python_hits_) + " of " + with_separators(python_files_count_) +
                     " Python files from the cache";
  if (cpp_hits_ > 0) text += ", " + with_separators(cpp_hits_) + (cpp_hits_ == 1 ? " C/C++ unit" : " C/C++ units");
  return text;
}

}  // namespace cudnnlint
