// The triage report in the command line's three formats. Text for people; JSON and SARIF carry the
// same content as data (SARIF: the findings, the recognised failure in the run's properties, and
// the log as an artifact whose matched region each result points to).
#pragma once

#include "triage/triage.h"

#include <filesystem>
#include <ostream>

namespace cudnnlint::triage {

void write_text(std::ostream& out, const TriageReport& report);
void write_json(std::ostream& out, const TriageReport& report);
void write_sarif(std::ostream& out, const TriageReport& report, const std::filesystem::path& source_root);

// The report's content as JSON (write_json's document; SARIF's run properties take part of it).
nlohmann::json to_json(const TriageReport& report);

}  // namespace cudnnlint::triage
