// `cudnnlint gpu-check report.sarif`: findings read back from a SARIF log that cudnnlint wrote
// (each result's properties.replay), and the log annotated with the verdicts.
#pragma once

#include "core/finding.h"

#include <filesystem>
#include <string>
#include <string_view>
#include <nlohmann/json.hpp>
#include <vector>

namespace cudnnlint {

struct SarifFindings {
  nlohmann::json log;
  std::vector<Finding> findings;  // one per result, runs in order
};

// Throws std::runtime_error naming the file and the problem (unreadable, not JSON, not SARIF).
SarifFindings read_sarif_findings(const std::filesystem::path& file);
// The same from a log's text; `name` is what the errors call it.
SarifFindings parse_sarif_findings(std::string_view text, const std::string& name);

// Writes properties.gpuCheck into each result and the summary into each run's properties.
void annotate_sarif(SarifFindings& report, const GpuCheckSummary& summary);

}  // namespace cudnnlint
