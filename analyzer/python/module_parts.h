// The language server's analysis of an edited module, part by part (python/regions.h,
// split_into_parts): a part whose text, and whose imports' text, are what they were at the last
// analysis keeps its facts, moved to where the part now sits; only the parts an edit touched are
// parsed and walked again. A 5,000-line module of independent classes then costs a keystroke one
// class, not 70,000 nodes. A module whose definitions all name each other is one part: it gains
// nothing, and loses nothing.
#pragma once

#include "python/frontend.h"

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace cudnnlint::python {

class ModulePartsCache {
 public:
  // A top-level statement of a part's parse: its bytes in the file and its first line, then.
  struct Place {
    std::uint32_t begin = 0, end = 0, line = 0;
    bool operator==(const Place&) const = default;
  };
  struct Entry {
    FileFacts facts;
    std::vector<Place> places;  // the parse's statements (imports and the part's own), in order
  };
  struct Counts {
    std::size_t parts = 0, reused = 0;
  };
  // A module the last analysis sent whole: its text then, and the byte ranges in it of the
  // statements of the part that holds most of it.
  struct WholeNote {
    std::string text;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> chunks;
  };
  // What the last analysis did (for tests and the benchmark).
  Counts last() const {
    const std::lock_guard lock(mutex_);
    return last_;
  }
  // How many times the module was cut into parts, in all.
  std::size_t cuts() const {
    const std::lock_guard lock(mutex_);
    return cuts_;
  }

 private:
  friend std::optional<PythonAnalysis> analyze_by_parts(const SourceFile&, const ApiTable&, const Parser&,
                                                        const PythonOptions&, ModulePartsCache&);
  mutable std::mutex mutex_;
  // What every part's facts depend on besides its own text: the module's imports and what the
  // extractors read from its whole text. Entries of another context are dropped.
  struct Context {
    std::string shared;
    std::unordered_map<std::string, Entry> entries;  // the last analysis's, by their parts' text
  };
  std::map<std::string, Context> contexts_;  // by the options the facts depend on
  Counts last_;
  std::size_t cuts_ = 0;
  // The last analysis went whole for a part holding most of the module: an edit inside one of
  // that part's statements sends the module whole again without cutting it (the cut was most of
  // what is left of such a keystroke's cost). Going whole is always right: this only skips the
  // search for a cheaper way, as long as the edits stay there.
  std::optional<WholeNote> whole_;
};

// nullopt when the module cannot be cut (a syntax error, a text the lexer cannot split, a single
// part): analyze_python then analyses it whole, as always.
std::optional<PythonAnalysis> analyze_by_parts(const SourceFile& file, const ApiTable& table, const Parser& parser,
                                               const PythonOptions& options, ModulePartsCache& cache);

}  // namespace cudnnlint::python
