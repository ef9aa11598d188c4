// gpu_check: replays each finding's configuration against the installed cuDNN and attaches
// what happened (confirmed, not reproduced, skipped) to the finding.
#pragma once

#include "core/finding.h"
#include "gpu_check/framework_tier.h"
#include "gpu_check/runtime.h"

#include <span>
#include <string>

namespace cudnnlint::gpu {

struct GpuCheckOptions {
  std::string cudnn_library;  // --cudnn-library: this file only
  bool cudnn = true;          // false: the framework tier only (--gpu-check-tier framework)
  bool execution = true;      // false: descriptor tier only, never touch the GPU
  bool framework = true;      // the framework tier, for findings the cuDNN tiers do not settle
  FrameworkTierOptions framework_options;
};

// Runs both tiers where available over `findings` (in place) and summarises.
GpuCheckSummary run_gpu_check(std::span<Finding> findings, const GpuEnvironment& environment);
GpuCheckSummary run_gpu_check(std::span<Finding> findings, const GpuCheckOptions& options);

// One line per tier and library, for `cudnnlint doctor`.
std::string describe_environment(const GpuEnvironment& environment);

}  // namespace cudnnlint::gpu
