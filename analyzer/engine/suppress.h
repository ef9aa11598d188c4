// --add-noqa: a `cudnnlint: ignore[rule, ...]` comment on the line of each finding, so that a
// project adopting cudnnlint starts from a clean run and sees only new findings.
#pragma once

#include "core/finding.h"

#include <span>
#include <string>
#include <vector>

namespace cudnnlint {

struct SuppressionEdits {
  std::vector<Finding> edits;          // one per line: a finding whose fix adds (or extends) the comment
  std::vector<std::string> skipped;    // "path:line: why", lines a comment cannot go on
};

// The comments for `findings` in Python files, checked against each file as it is now; a line that
// already holds `cudnnlint: ignore[...]` gets the rules added to its list; a line continued by a
// backslash, and the lines of other files (their results cannot be re-parsed), are listed instead.
SuppressionEdits suppression_edits(std::span<const Finding> findings);

}  // namespace cudnnlint
