#include "core/finding.h"

namespace cudnnlint {

const char* level_name(Level level) {
  switch (level) {
    case Level::Note: return "note";
    case Level::Warning: return "warning";
    case Level::Error: return "error";
  }
  return "warning";
}

std::optional<Level> parse_level(std::string_view text) {
  if (text == "note") return Level::Note;
  if (text == "warning") return Level::Warning;
  if (text == "error") return Level::Error;
  return std::nullopt;
}

const char* outcome_name(GpuVerdict::Outcome outcome) {
  switch (outcome) {
    case GpuVerdict::Outcome::Confirmed: return "confirmed";
    case GpuVerdict::Outcome::NotReproduced: return "not reproduced";
    case GpuVerdict::Outcome::Skipped: return "skipped";
  }
  return "skipped";
}

}  // namespace cudnnlint
