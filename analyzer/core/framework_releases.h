// Which cuDNN a PyTorch or TensorFlow release runs with when installed from PyPI, from
// rules/framework_cudnn.json (a row per release, each with its source): torch's Linux wheels
// require an nvidia-cudnn-cuXX package of one version, TensorFlow names the cuDNN of its tested
// build configuration. The releases also give the versions a pinned range holds.
#pragma once

#include "core/target.h"

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cudnnlint {

struct FrameworkRelease {
  std::string framework;    // "torch", "tensorflow"
  Version version;          // torch: 2.4.1; tensorflow: 2.15 (the table's rows are minors)
  Version cudnn;
  std::string requirement;  // "nvidia-cudnn-cu12==9.1.0.70", "" when the wheel names none
};

// Every row of the table (parsed once; a broken table is a build-time error, checked by tests).
std::span<const FrameworkRelease> framework_releases();

// The row for `version` of `framework`: an exact release, else (for torch's X.Y and TensorFlow's
// X.Y.Z) the newest row of the same minor. nullptr for versions the table does not know.
const FrameworkRelease* framework_release(std::string_view framework, const Version& version);

// The releases of `framework` the table lists within `range`, oldest first: for torch the newest
// patch of each minor, for TensorFlow each minor.
std::vector<Version> releases_within(std::string_view framework, const VersionRange& range);

// Sets the target's cuDNN from its PyTorch or TensorFlow version (in that order) when the target
// names none, saying where it came from: "torch 2.4.0 (requirements.txt:3) requires
// nvidia-cudnn-cu12==9.1.0.70". Versions the table does not know leave it unknown.
void derive_cudnn(Target& target);

// The concrete targets a target with ranges stands for: one per combination of the releases each
// range holds (the table's releases for torch and TensorFlow; the versions where Keras changes
// behaviour for Keras; the lower bound otherwise), each with its cuDNN derived. A target without
// ranges is its own single variant.
std::vector<Target> target_variants(const Target& target);

}  // namespace cudnnlint
