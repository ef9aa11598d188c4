#include "gpu_check/gpu_check.h"

#include "gpu_check/tiers.h"

#include <chrono>
#include <memory>
#include <sstream>

namespace cudnnlint::gpu {

namespace {

bool is_bad_param(const std::string& status) { return status.rfind("CUDNN_STATUS_BAD_PARAM", 0) == 0; }

// Whether `result` settles what the finding predicts, and how. A failure other than BAD_PARAM
// (NOT_SUPPORTED, EXECUTION_FAILED, a sub-library that did not load, ...) says nothing about the
// finding's values, so it settles nothing.
std::optional<GpuVerdict::Outcome> judge(const ReplayConfig& replay, const TierResult& result) {
  if (!result.decisive) return std::nullopt;
  if (replay.expect == Expectation::NonFiniteOutput) {
    if (result.nonfinite) return GpuVerdict::Outcome::Confirmed;
    if (result.failed && !is_bad_param(result.status)) return std::nullopt;
    if (result.failed) return GpuVerdict::Outcome::NotReproduced;
    return std::nullopt;  // success and finite at this tier: only running it can say
  }
  if (result.failed && !is_bad_param(result.status)) return std::nullopt;
  if (result.failed && replay.expect == Expectation::BadParam) return GpuVerdict::Outcome::Confirmed;
  return GpuVerdict::Outcome::NotReproduced;
}

GpuVerdict skipped(std::string why) {
  GpuVerdict verdict;
  verdict.outcome = GpuVerdict::Outcome::Skipped;
  verdict.reason = why;
  verdict.detail = std::move(why);
  return verdict;
}

// What the execution tier would have tested, for a skip.
std::string needs_execution(const ReplayConfig& replay) {
  if (replay.op == ReplayOp::Batchnorm) return "cuDNN checks epsilon only when batch norm runs, on a GPU";
  return "only running the operation on a GPU can show this";
}

}  // namespace

GpuCheckSummary run_gpu_check(std::span<Finding> findings, const GpuEnvironment& environment) {
  const auto started = std::chrono::steady_clock::now();
  GpuCheckSummary summary;
  if (environment.cudnn) {
    summary.cudnn_version = environment.cudnn->version;
    summary.cudnn_library = environment.cudnn->file + " (" + environment.cudnn->from.origin + ")";
    summary.descriptor_tier = "ran";
  } else {
    summary.descriptor_tier = "not run: " + environment.cudnn_missing;
  }
  std::unique_ptr<ExecutionTier> execution;
  if (environment.execution_tier()) {
    execution = std::make_unique<ExecutionTier>(*environment.cudnn, *environment.cuda);
    summary.device = environment.device;
    summary.execution_tier = execution->broken().empty() ? "ran" : "not run: " + execution->broken();
  } else {
    summary.execution_tier = "not run: " + (environment.cudnn ? environment.execution_unavailable : "cuDNN is not loaded");
  }

  for (Finding& finding : findings) {
    const ReplayConfig& replay = finding.replay;
    if (replay.op == ReplayOp::None || !replay.unknown.empty()) {
      finding.gpu_check = skipped("not replayable: " + (replay.unknown.empty() ? "not a cuDNN configuration" : replay.unknown));
    } else if (!environment.cudnn) {
      finding.gpu_check = skipped("cuDNN not loaded: " + environment.cudnn_missing);
    } else {
      GpuVerdict verdict;
      verdict.cudnn_version = environment.cudnn->version;
      const TierResult descriptor = run_descriptor_tier(*environment.cudnn, replay);
      if (auto outcome = judge(replay, descriptor)) {
        verdict.outcome = *outcome;
        verdict.tier = "descriptor";
        verdict.status = descriptor.status;
        verdict.detail = descriptor.detail;
      } else if (execution && execution->broken().empty()) {
        if (auto executed = execution->run(replay)) {
          verdict.tier = "execution";
          verdict.device = environment.device;
          verdict.status = executed->status;
          verdict.detail = executed->detail;
          if (auto outcome = judge(replay, *executed)) {
            verdict.outcome = *outcome;
          } else if (replay.expect == Expectation::NonFiniteOutput && !executed->failed) {
            verdict.outcome = GpuVerdict::Outcome::NotReproduced;  // ran, succeeded, output finite
          } else {
            verdict.outcome = GpuVerdict::Outcome::Skipped;
            verdict.reason = "the execution tier could not test it: " + executed->detail;
          }
        } else {
          verdict.outcome = GpuVerdict::Outcome::Skipped;
          verdict.tier = "execution";
          verdict.device = environment.device;
          verdict.reason = "execution tier stopped: " + execution->broken();
          verdict.detail = descriptor.detail + "; " + verdict.reason;
        }
      } else {
        verdict.outcome = GpuVerdict::Outcome::Skipped;
        verdict.tier = "descriptor";
        verdict.status = descriptor.status;
        const std::string why = execution ? execution->broken() : environment.execution_unavailable;
        verdict.reason = descriptor.decisive && descriptor.failed
                             ? "cuDNN returned " + descriptor.status + ", which says nothing about the finding's values"
                             : needs_execution(replay) + ", and the execution tier did not run (" + why + ")";
        verdict.detail = descriptor.detail + "; " + verdict.reason;
      }
      for (const auto& assumption : replay.assumed) verdict.detail += "; assumed " + assumption;
      finding.gpu_check = std::move(verdict);
    }
    switch (finding.gpu_check->outcome) {
      case GpuVerdict::Outcome::Confirmed: ++summary.confirmed; break;
      case GpuVerdict::Outcome::NotReproduced: ++summary.not_reproduced; break;
      case GpuVerdict::Outcome::Skipped: ++summary.skipped; break;
    }
  }
  if (execution && !execution->broken().empty() && summary.execution_tier == "ran")
    summary.execution_tier = "stopped: " + execution->broken();
  summary.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return summary;
}

GpuCheckSummary run_gpu_check(std::span<Finding> findings, const GpuCheckOptions& options) {
  const auto started = std::chrono::steady_clock::now();
  GpuCheckSummary summary;
  if (options.cudnn) {
    const GpuEnvironment environment = probe_environment(options.cudnn_library, options.execution);
    summary = run_gpu_check(findings, environment);
  } else {
    summary.descriptor_tier = summary.execution_tier = "not run: --gpu-check-tier framework";
    for (Finding& finding : findings)
      if (!finding.replay.framework.replayable())
        finding.gpu_check = skipped("no framework case, and only the framework tier was asked for");
  }
  if (options.framework) {
    const FrameworkTierRun tier = run_framework_tier(findings, options.framework_options);
    summary.framework_tier = tier.summary.empty() ? "not needed: no finding has a framework case" : tier.summary;
    summary.confirmed = summary.not_reproduced = summary.skipped = 0;
    for (const Finding& finding : findings) {
      if (!finding.gpu_check) continue;
      switch (finding.gpu_check->outcome) {
        case GpuVerdict::Outcome::Confirmed: ++summary.confirmed; break;
        case GpuVerdict::Outcome::NotReproduced: ++summary.not_reproduced; break;
        case GpuVerdict::Outcome::Skipped: ++summary.skipped; break;
      }
    }
  }
  summary.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return summary;
}

std::string describe_environment(const GpuEnvironment& environment) {
  std::ostringstream out;
  if (environment.cudnn) {
    out << "cuDNN:          " << environment.cudnn->version << " (" << environment.cudnn->file << ", found via "
        << environment.cudnn->from.origin << ")\n";
  } else {
    out << "cuDNN:          not found: " << environment.cudnn_missing << "\n";
    for (const auto& tried : environment.cudnn_tried) out << "                tried " << tried << "\n";
  }
  if (environment.cuda) {
    out << "CUDA runtime:   " << (environment.cuda_runtime_version.empty() ? "?" : environment.cuda_runtime_version)
        << " (" << environment.cuda->file << ")\n";
    out << "CUDA driver:    "
        << (environment.cuda_driver_version.empty() ? "none (no NVIDIA driver loaded)" : environment.cuda_driver_version)
        << "\n";
  } else {
    out << "CUDA runtime:   not found\n";
  }
  if (environment.device_count > 0)
    out << "GPU:            " << environment.device << " (compute capability " << environment.compute_capability
        << ", " << environment.device_count << " device" << (environment.device_count > 1 ? "s" : "") << ")\n";
  else
    out << "GPU:            none\n";
  out << "tiers:\n";
  out << "  descriptor    " << (environment.descriptor_tier() ? "available" : "unavailable: " + environment.cudnn_missing)
      << "\n";
  out << "  execution     "
      << (environment.execution_tier() ? "available"
                                       : "unavailable: " + (environment.cudnn ? environment.execution_unavailable
                                                                              : std::string("cuDNN is not loaded")))
      << "\n";
  return out.str();
}

}  // namespace cudnnlint::gpu
