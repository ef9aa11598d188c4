// The pipeline, end to end for a set of paths: discovery -> read -> front-ends (in parallel)
// -> Facts -> the project step (engine/project.h: values across modules and config files) ->
// rules -> Findings -> filters (select/ignore, inline suppressions). The output order is
// deterministic.
#pragma once

#include "core/progress.h"
#include "core/facts.h"
#include "core/finding.h"
#include "core/source_file.h"
#include "core/target.h"
#include "cpp/frontend.h"
#include "discovery/discovery.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <optional>
#include <vector>

namespace cudnnlint {

namespace python {
class ParsedSource;  // python/incremental_tree.h
}

class SessionCache;  // engine/session_cache.h

class ModuleIndexCache;  // engine/module_index.h

// Python trees parsed ahead, by path (the language server's open documents).
using ParsedPythonFiles = std::map<std::string, std::shared_ptr<const python::ParsedSource>, std::less<>>;

// The cache of facts and runs (engine/analysis_cache.h). Off unless asked for: the command line
// turns it on (--no-cache turns it off); library callers and tests choose.
struct CacheOptions {
  bool enabled = false;
  std::string dir;                          // "" : .cudnnlint_cache in the working directory
  std::uint64_t max_bytes = 256ull << 20;   // the folder's budget: least recently used entries go first
};

// `per-file-ignores`: the rules not reported in the files a pattern matches: git's wildmatch over
// the path relative to `anchor` (the configuration file's folder; empty: the path as discovered),
// or over the file's name when the pattern has no '/'.
struct PerFileIgnore {
  std::string pattern;
  std::vector<std::string> rules;
  std::string anchor;
};

struct AnalysisOptions {
  std::vector<std::string> paths;
  DiscoveryOptions discovery;
  // `paths` are files that a discovery with `discovery` found (the language server's workspace
  // walk): they are taken as they are, not looked at again.
  bool paths_discovered = false;
  LoadLimits limits;
  Target target;
  unsigned jobs = 0;                 // 0: one per hardware thread
  bool full_parse = false;           // parse every file whole: no prefilter, no region parsing
  bool line_hashes = false;          // compute primaryLocationLineHash (SARIF)
  std::vector<std::string> select;   // rule ids to keep (empty: all)
  std::vector<std::string> ignore;   // rule ids to drop
  std::vector<PerFileIgnore> per_file_ignores;
  bool keep_facts = false;           // return every file's facts (--format facts)
  cpp::CppOptions cpp;               // how C++/CUDA files find their compile flags
  // Complete `target` with the project's pins (engine/target_resolution.h) where it is silent.
  bool read_pins = true;
  Progress* progress = nullptr;      // files done and C++ units in flight, for a terminal (may be null)
  CacheOptions cache;
  // Trees of Python files already parsed, used where their text is the file's (the language
  // server keeps one per open document, reparsed incrementally on each edit).
  ParsedPythonFiles parsed_python;
  // First-pass results kept in memory from one analysis to the next (the language server's); used
  // when the disk cache is not.
  std::shared_ptr<SessionCache> session;
  // Module indexes kept from one analysis to the next (the language server's); null: built anew.
  std::shared_ptr<ModuleIndexCache> module_indexes;
};

struct AnalysisResult {
  Target target;                          // the one judged against: the options' target, completed from the pins
  std::vector<Finding> findings;          // sorted by path, line, column, rule
  std::vector<FileDiagnostic> diagnostics;
  std::size_t files_discovered = 0;
  std::size_t files_parsed = 0;
  std::size_t bytes_read = 0;
  std::size_t bytes_parsed = 0;
  TrackedFlows tracked;                   // what the Python front-end followed in the first pass
  std::size_t suppressed = 0;
  std::size_t baselined = 0;              // dropped because --baseline records them
  double project_seconds = 0.0;           // the project step's share of the run
  std::size_t project_rounds = 0;         // passes the project step added
  std::size_t project_apis = 0;           // project callables it found
  std::size_t project_bytes_parsed = 0;   // what its passes parsed (bytes_parsed is the first pass's)
  bool usage_error = false;               // a named path does not exist
  std::vector<FileFacts> facts;           // only with AnalysisOptions::keep_facts
  std::optional<GpuCheckSummary> gpu_check;  // set when gpu_check ran over the findings
  std::string cache_summary;              // what the cache gave ("" without one), for --timings
};

AnalysisResult analyze(const AnalysisOptions& options);

}  // namespace cudnnlint
