// One pass of the Python front-end over a set of files, in parallel: read each file once,
// skip it when it cannot name a trigger token, analyse the rest. The project step runs a first
// pass over every file and further passes over the few files its findings make interesting.
#pragma once

#include "core/progress.h"
#include "core/api_table.h"
#include "core/facts.h"
#include "core/source_file.h"
#include "core/text_search.h"
#include "engine/module_index.h"
#include "python/frontend.h"
#include "python/imports.h"

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace cudnnlint {

class SessionCache;  // engine/session_cache.h

struct PythonFileResult {
  std::optional<FileFacts> facts;          // set when the file was analysed
  IdentifierFilter identifiers;            // the first pass's filter of the file's identifiers
  python::NumericBindings numeric;         // the first pass's python::numeric_bindings
  std::vector<FileDiagnostic> diagnostics;
  std::size_t bytes_read = 0;
  std::size_t bytes_parsed = 0;
  bool cacheable = true;                   // false after an internal error or a file that could not be read
};

// The first pass's cache (engine/analysis_cache.h), asked for each file before it is read (by
// its stat) and after (by its bytes); told of each file's result. Called from worker threads.
class FirstPassCache {
 public:
  virtual ~FirstPassCache() = default;
  virtual std::optional<PythonFileResult> before_read(std::size_t file) = 0;
  virtual std::optional<PythonFileResult> after_read(std::size_t file, std::string_view bytes) = 0;
  virtual void store(std::size_t file, const PythonFileResult& result) = 0;
};

struct PythonPassOptions {
  const ApiTable* table = nullptr;
  Progress* progress = nullptr;   // told of each file finished (the first pass only)
  python::PythonOptions python;   // module and is_package are filled per file
  LoadLimits limits;
  bool skip_prefilter = false;    // --full-parse: no trigger prefilter
  // The first pass: a file must name one of `words` (or hold one of `quoted` as a string) to be
  // parsed; every file's identifier filter is kept for later passes.
  std::vector<std::string> words;
  std::vector<std::string> quoted;
  // Words that count only in files importing one of `framework_markers` at module level
  // ("tensorflow", "keras"): method names such as `batch` and `fit`, common everywhere, name an
  // API only there.
  std::vector<std::string> framework_markers;
  std::vector<std::string> framework_words;
  // A file is also chosen when it holds both halves of one of python.pairs (the region planner
  // then keeps only the definitions holding both).
  bool build_filters = false;
  // A later pass: only files naming one of these identifiers are analysed (whatever the mode),
  // and, when set, for which `select` holds.
  std::vector<std::string> required;
  std::function<bool(std::string_view)> select;
  unsigned jobs = 0;
  FirstPassCache* cache = nullptr;  // the first pass only
  // Trees parsed ahead, by path (python::PythonOptions::parsed); may be null.
  const std::map<std::string, std::shared_ptr<const python::ParsedSource>, std::less<>>* parsed = nullptr;
  // The later passes' results kept in memory across runs (the language server's), keyed by each
  // file's bytes and the exact options it is analysed with; may be null.
  SessionCache* session = nullptr;
};

// Runs `fn(i)` for i in [0, count) on `jobs` threads (0: one per core); each thread owns a parser.
void parallel_for(std::size_t count, unsigned jobs, const std::function<void(std::size_t, const python::Parser&)>& fn);

// Analyses `files[i]` for each i in `which` into `results[i]`. A later pass (`required` set)
// reads only the files whose first-pass filter (`filters`, when given) may name a required word.
void run_python_pass(const std::vector<std::string>& files, const ModuleIndex& modules,
                     const std::vector<std::size_t>& which, const PythonPassOptions& options,
                     std::vector<PythonFileResult>& results, const std::vector<PythonFileResult>* filters = nullptr);

// Reads a file's text for a token search or a lazy parse; nullopt (and no diagnostic) when it
// cannot be read: the first pass has reported that already.
std::optional<SourceFile> read_quietly(const std::string& path, const LoadLimits& limits);

}  // namespace cudnnlint
