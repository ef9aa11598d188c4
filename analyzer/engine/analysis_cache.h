// The analysis's use of the cache (cache/store.h): the keys, and what is kept under them.
//  - Python files: the first pass's result per file, keyed by the file's bytes, its path and
//    module, the tool's identity and the options that change facts (the families the selected
//    rules read, --full-parse, the file limits).
//  - C/C++/CUDA files: clang's result per translation unit, keyed by the file's bytes and its
//    clang command, valid while every file clang read (headers) hashes as it did.
//  - The run: its findings, keyed by every discovered file's path and hash, the options and the
//    resolved target, valid while the files it depends on beyond those hash as they did. On a
//    second run over an unchanged tree this is the only entry read, and no source file is.
// The tool's identity is its version and its executable's size and time: a rebuilt binary never
// reads its predecessor's entries.
#pragma once

#include "cache/hash.h"
#include "cache/store.h"
#include "engine/module_index.h"
#include "engine/python_pass.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace cudnnlint {

struct AnalysisOptions;
struct AnalysisResult;
namespace cpp {
struct CppFileResult;
}

class AnalysisCache final : public FirstPassCache {
 public:
  // nullptr when the options turn the cache off; a folder that cannot be used is a warning.
  static std::unique_ptr<AnalysisCache> open(const AnalysisOptions& options, std::vector<FileDiagnostic>& diagnostics);

  // The hash of a file's bytes: from its stat record, else read. nullopt when it cannot be read.
  std::optional<cache::Hash128> hash_of(const std::string& path, bool may_read);

  // ---- the run
  // The run's key over `files` (every discovered file, in order) and `fingerprint` (the options
  // and the target, as text), or nullopt when a file's hash is not known without reading it and
  // `may_read` is false.
  std::optional<cache::Hash128> run_key(const std::vector<std::string>& files, const std::string& fingerprint,
                                        bool may_read);
  // Fills `result` from the run's entry when there is one and its dependencies are unchanged:
  // the findings, the statistics, and the front-ends' and project step's `diagnostics`.
  bool load_run(const cache::Hash128& key, AnalysisResult& result);
  // `dependencies`: files beyond `files` the result depends on (the headers clang read);
  // `absent`: paths whose absence it depends on (where clang looked for a missing header).
  void store_run(const cache::Hash128& key, const AnalysisResult& result, const std::vector<FileDiagnostic>& diagnostics,
                 const std::vector<std::string>& files, std::vector<std::string> dependencies,
                 std::vector<std::string> absent);

  // ---- the Python first pass
  void prepare_python(const std::vector<std::string>& files, const ModuleIndex& modules, std::string fingerprint);
  std::optional<PythonFileResult> before_read(std::size_t file) override;
  std::optional<PythonFileResult> after_read(std::size_t file, std::string_view bytes) override;
  void store(std::size_t file, const PythonFileResult& result) override;

  // ---- C/C++/CUDA translation units
  std::optional<cpp::CppFileResult> load_cpp(const std::string& path, const std::string& command_text);
  void store_cpp(const std::string& path, const std::string& command_text, const cpp::CppFileResult& result);

  // Writes what this run added; problems become warnings.
  void save(std::vector<FileDiagnostic>& diagnostics);

  // "the run's entry, no source file read" or "812 of 3,164 Python files from the cache": for --timings.
  std::string summary();

 private:
  explicit AnalysisCache(std::unique_ptr<cache::Store> store);
  std::string absolute(const std::string& path) const;
  std::optional<cache::Hash128> python_key(std::size_t file, const cache::Hash128& content) const;
  std::optional<PythonFileResult> python_entry(const cache::Hash128& key);
  bool dependencies_unchanged(const std::vector<std::pair<std::string, std::string>>& dependencies,
                              const std::vector<std::string>& absent);

  std::unique_ptr<cache::Store> store_;
  std::string tool_;
  std::string cwd_;
  const std::vector<std::string>* python_files_ = nullptr;
  const ModuleIndex* modules_ = nullptr;
  std::string python_fingerprint_;
  std::vector<std::optional<cache::FileStat>> python_stats_;
  std::vector<std::optional<cache::Hash128>> python_hashes_;
  bool run_hit_ = false;
  std::atomic<std::size_t> python_hits_{0}, cpp_hits_{0};
  std::size_t python_files_count_ = 0;
};

}  // namespace cudnnlint
