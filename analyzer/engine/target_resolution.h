// The target a run judges against: the command line's and configuration's versions, then, for
// what they leave open, the project's own pins (config/pins.h) and a Keras 3 source tree, each
// with where it came from. A framework pinned to a range stays a range (Target::framework_ranges);
// a cuDNN the target does not name follows from its PyTorch or TensorFlow release
// (core/framework_releases.h).
#pragma once

#include "core/facts.h"
#include "core/target.h"

#include <string>
#include <vector>

namespace cudnnlint {

Target resolve_target(const Target& given, const std::vector<std::string>& paths,
                      std::vector<FileDiagnostic>& diagnostics);

}  // namespace cudnnlint
