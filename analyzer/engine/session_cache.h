// First-pass results kept in memory across the analyses of one process, the language server's:
// on each keystroke the document is analysed with the workspace modules it imports, and those
// that did not change are not parsed again. An entry is keyed as the disk cache's are
// (engine/analysis_cache.h): the bytes' hash, the path, the module name, is_package and the
// options that change facts; so a stale entry cannot be found, only dropped for room.
#pragma once

#include "cache/hash.h"
#include "cache/store.h"
#include "engine/analysis.h"
#include "engine/module_index.h"
#include "engine/python_pass.h"

#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace cudnnlint {

// Each entry has a key (everything its content depends on, the bytes included) and a slot (the
// same without the bytes: one file in one role). A slot holds one entry, the latest: a document
// edited 1,000 times keeps one result, not 1,000.
class SessionCache {
 public:
  explicit SessionCache(std::size_t max_entries = 4096) : max_entries_(max_entries) {}
  std::optional<PythonFileResult> find(const cache::Hash128& key) const;
  void put(const cache::Hash128& key, const cache::Hash128& slot, const PythonFileResult& result);
  std::size_t size() const;
  std::size_t hits() const;
  // What a module binds at its top level (the project step's `from .constants import EPS`).
  std::shared_ptr<const python::ModuleExports> find_exports(const cache::Hash128& key) const;
  void put_exports(const cache::Hash128& key, const cache::Hash128& slot,
                   std::shared_ptr<const python::ModuleExports> exports);
  // The hash of a file's bytes while its stat is the one recorded with it: on each keystroke the
  // document's imports are then neither read nor hashed again. A stat is recorded once settled.
  std::optional<cache::Hash128> known_hash(const std::string& path, const cache::FileStat& now) const;
  void remember_hash(const std::string& path, const cache::FileStat& stat, const cache::Hash128& hash);

 private:
  mutable std::mutex mutex_;
  std::size_t max_entries_;
  std::unordered_map<cache::Hash128, PythonFileResult, cache::Hash128Hasher> entries_;
  std::unordered_map<cache::Hash128, cache::Hash128, cache::Hash128Hasher> slots_;  // slot -> its entry's key
  std::deque<cache::Hash128> order_;  // oldest first: the first to go when the session is full
  std::unordered_map<cache::Hash128, std::shared_ptr<const python::ModuleExports>, cache::Hash128Hasher> exports_;
  std::unordered_map<cache::Hash128, cache::Hash128, cache::Hash128Hasher> export_slots_;
  std::unordered_map<std::string, std::pair<cache::FileStat, cache::Hash128>> hashes_;  // by path
  mutable std::size_t hits_ = 0;
};

// A SessionCache as the first pass of one run sees it: looked up by the bytes the run reads (the
// editor's buffer for an open document), so nothing is known before a file is read.
class SessionFirstPass final : public FirstPassCache {
 public:
  // `open`: the editor's open documents (changing with each keystroke), neither looked up nor kept.
  SessionFirstPass(SessionCache& session, const std::vector<std::string>& files, const ModuleIndex& modules,
                   std::string fingerprint, const ParsedPythonFiles* open = nullptr)
      : session_(session), files_(files), modules_(modules), fingerprint_(std::move(fingerprint)), open_(open),
        keys_(files.size()), stats_(files.size()) {}
  std::optional<PythonFileResult> before_read(std::size_t file) override;
  std::optional<PythonFileResult> after_read(std::size_t file, std::string_view bytes) override;
  void store(std::size_t file, const PythonFileResult& result) override;

 private:
  cache::Hash128 slot_of(std::size_t file) const;  // the file in its role, without its bytes

  SessionCache& session_;
  const std::vector<std::string>& files_;
  const ModuleIndex& modules_;
  std::string fingerprint_;
  const ParsedPythonFiles* open_;
  // By file (each written by one worker only): its entry's key and slot, and its stat before it
  // was read.
  std::vector<std::optional<std::pair<cache::Hash128, cache::Hash128>>> keys_;
  std::vector<std::optional<cache::FileStat>> stats_;
};

}  // namespace cudnnlint
