// `cudnnlint triage LOG [PATH...]`: from a crash log to the code. Recognises the failure against
// the KB (triage/recognise.h), maps the failing frames onto the tree (triage/frame_map.h),
// analyses the tree as the command line does (so that values are followed across modules and
// configuration files), and ranks the findings by how close they are to the failing frames and
// by whether their KB entry is the recognised failure's.
#pragma once

#include "engine/analysis.h"
#include "triage/frame_map.h"
#include "triage/log_scan.h"
#include "triage/recognise.h"

#include <nlohmann/json_fwd.hpp>

#include <istream>
#include <string>
#include <vector>

namespace cudnnlint::triage {

struct RankedFinding {
  std::size_t finding = 0;           // index into TriageReport::analysis.findings
  double score = 0.0;
  std::vector<std::string> reasons;  // why it ranks where it does, in words
};

struct TriageReport {
  std::string log_name;                 // the file, or "<stdin>"
  LogScan scan;
  Recognition recognition;
  std::vector<MappedFrame> frames;      // the failing frames (outermost first), mapped onto the tree
  std::vector<std::string> related_files;  // the mapped frames' files and what they import
  AnalysisResult analysis;
  std::vector<RankedFinding> findings;  // the ones that may explain the failure, best first
  bool explained = false;               // a finding near the failing frames has a recognised entry
};

// Reads the log from `log` (streamed; memory stays bounded) and analyses `analysis.paths`.
// Throws std::runtime_error when the log cannot be read.
TriageReport triage(std::istream& log, std::string log_name, const AnalysisOptions& analysis);

// The top entry's workarounds (objects of the KB's workaround schema), for the report.
std::vector<const nlohmann::json*> workarounds_of(const TriageReport& report);

}  // namespace cudnnlint::triage
