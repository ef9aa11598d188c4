// A rule's verdict on one fact: what emitters print and gpu_check replays.
#pragma once

#include "core/facts.h"

#include <optional>
#include <string>
#include <vector>

namespace cudnnlint {

enum class Level { Note = 0, Warning = 1, Error = 2 };

const char* level_name(Level level);             // "note", "warning", "error"
std::optional<Level> parse_level(std::string_view text);

struct RelatedLocation {
  Location where;
  std::string message;
};

// The configuration gpu_check would rebuild. Filled where the facts give enough.
struct ReplayConfig {
  std::string op;             // "batchnorm"
  std::optional<double> epsilon;
  std::string dtype;          // "" when unknown
  std::string unknown;        // what keeps it from being replayable, "" when replayable
};

struct Finding {
  std::string rule_id;        // e.g. "bn-eps-negative"
  std::string kb_id;          // e.g. "cuda/cudnn-bn-epsilon-negative"
  Level level = Level::Warning;
  Location location;
  std::string message;
  std::vector<RelatedLocation> related;  // provenance, definition first
  std::string target_note;    // which target made the rule fire, e.g. "cuDNN 7.4 (--cudnn-version)"
  std::string line_hash;      // partialFingerprints.primaryLocationLineHash, filled when needed
  std::string source_line;    // the primary line's text, for excerpts
  ReplayConfig replay;
};

} // namespace cudnnlint
