// The cache's encoding of what the analysis computes: a file's facts and diagnostics, a run's
// findings, and the canonical text of a target (part of a run's key). MessagePack through
// nlohmann/json: compact, and read back into the same structs. The encoding is private to one
// build of the tool (the tool's identity is part of every key), so it carries no version of its own.
#pragma once

#include "core/facts.h"
#include "core/finding.h"
#include "core/target.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cudnnlint::cache {

// What the Python front-end's first pass learned from one file.
struct PythonEntry {
  std::optional<FileFacts> facts;       // set when the file was analysed
  std::vector<std::uint64_t> identifiers;  // the identifier filter's words
  // What the file may bind to a number at module level (python::NumericBindings).
  std::vector<std::string> numeric_names;
  std::vector<std::pair<std::string, std::string>> numeric_aliases;
  std::vector<std::string> numeric_flags;
  std::vector<FileDiagnostic> diagnostics;
  std::uint64_t bytes_read = 0;
  std::uint64_t bytes_parsed = 0;
};

// What a run computed from its files, up to the findings (before --baseline, fixes and gpu_check).
struct RunEntry {
  std::vector<Finding> findings;
  std::vector<FileDiagnostic> diagnostics;  // those of the front-ends and the project step
  std::uint64_t files_parsed = 0, bytes_read = 0, bytes_parsed = 0, suppressed = 0;
  TrackedFlows tracked;
  std::uint64_t project_rounds = 0, project_apis = 0, project_bytes_parsed = 0;
  // Files outside the run's own whose bytes the findings depend on (the headers clang read, a
  // file a finding points into), by absolute path, with the hex hash of their bytes.
  std::vector<std::pair<std::string, std::string>> dependencies;
  // Absolute paths that must not exist (where clang looked for a header it did not find).
  std::vector<std::string> absent;
};

// What clang learned from one C/C++/CUDA translation unit, with the files it read.
struct CppEntry {
  FileFacts facts;
  std::vector<std::string> stand_ins;
  std::uint64_t text_size = 0;
  std::vector<FileDiagnostic> diagnostics;
  std::vector<std::pair<std::string, std::string>> dependencies;  // as RunEntry's
  std::vector<std::string> absent;                                // as RunEntry's
};

std::string encode(const PythonEntry& entry);
std::string encode(const RunEntry& entry);
// nullopt when the bytes are not an entry of this build (a corrupt or foreign file: a miss).
std::optional<PythonEntry> decode_python(std::string_view bytes);
std::optional<RunEntry> decode_run(std::string_view bytes);
std::string encode(const CppEntry& entry);
std::optional<CppEntry> decode_cpp(std::string_view bytes);

// Facts alone, for tests that compare what a cached run returns with what a fresh one does.
std::string encode(const FileFacts& facts);

// The target as canonical text: equal targets, equal texts.
std::string canonical_text(const Target& target);

}  // namespace cudnnlint::cache
