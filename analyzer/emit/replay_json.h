// Replay configurations and gpu_check verdicts as JSON: written into SARIF/JSON results and
// read back by `cudnnlint gpu-check report.sarif`.
#pragma once

#include "core/finding.h"

#include <nlohmann/json.hpp>

namespace cudnnlint {

nlohmann::json replay_to_json(const ReplayConfig& replay);
// Reads what replay_to_json wrote; fields it lacks stay empty. Throws nlohmann::json::exception
// on a wrong type.
ReplayConfig replay_from_json(const nlohmann::json& json);

nlohmann::json verdict_to_json(const GpuVerdict& verdict);
nlohmann::json summary_to_json(const GpuCheckSummary& summary);

// "confirmed: CUDNN_STATUS_BAD_PARAM (cuDNN 9.19.0, descriptor tier)", for text and annotations.
std::string verdict_line(const GpuVerdict& verdict);
// "gpu_check: 2 confirmed, 0 not reproduced, 6 skipped; descriptor tier ran (cuDNN 9.19.0); ..."
std::string summary_line(const GpuCheckSummary& summary);

}  // namespace cudnnlint
