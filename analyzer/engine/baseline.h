// Baselines: adopt cudnnlint on a codebase with existing findings and report only new ones.
// `--write-baseline FILE` records the findings of a run; `--baseline FILE` drops the findings it
// records. A finding is known by its rule, its file (relative to the source root) and the text of
// its line with the whitespace removed, counted: so it survives line shifts, re-indentation and
// edits elsewhere in the file, and a second identical line with the same finding is new.
// The file is sorted JSON, one entry per (path, rule, code) with a count, so that it diffs well:
//   {"tool": "cudnnlint", "version": 1, "findings": [{"path": "...", "rule": "...", "code": "...", "count": 1}]}
#pragma once

#include "core/finding.h"

#include <cstddef>
#include <filesystem>
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace cudnnlint {

class Baseline {
 public:
  using Key = std::tuple<std::string, std::string, std::string>;  // path, rule, code

  // The findings' keys, counted. `root`: paths are recorded relative to it.
  static Baseline of(const std::vector<Finding>& findings, const std::filesystem::path& root);
  // Reads FILE; throws std::runtime_error naming the file and the problem.
  static Baseline read(const std::filesystem::path& file);
  // Writes FILE atomically (a temporary file beside it, then a rename); throws on failure.
  void write(const std::filesystem::path& file) const;

  // Removes from `findings` those the baseline records (each recorded count once); returns how many.
  std::size_t filter(std::vector<Finding>& findings, const std::filesystem::path& root) const;
  std::size_t size() const;

 private:
  std::map<Key, std::size_t> counts_;
};

}  // namespace cudnnlint
