// The triage report as SARIF 2.1.0: the findings that may explain the failure (as `-f sarif`
// writes them), the log as an artifact, a related location on each result pointing at the log
// line that was recognised, and the recognition itself in the run's properties.
#include "emit/emitters.h"
#include "triage/report.h"

#include <nlohmann/json.hpp>

#include <sstream>

namespace cudnnlint::triage {

void write_sarif(std::ostream& out, const TriageReport& report, const std::filesystem::path& source_root) {
  AnalysisResult explaining;
  explaining.target = report.analysis.target;
  explaining.files_discovered = report.analysis.files_discovered;
  explaining.diagnostics = report.analysis.diagnostics;
  for (const RankedFinding& ranked : report.findings) explaining.findings.push_back(report.analysis.findings[ranked.finding]);
  std::ostringstream base;
  cudnnlint::write_sarif(base, Report{explaining, explaining.target, source_root, "triage"});
  nlohmann::json log = nlohmann::json::parse(base.str());
  nlohmann::json& run = log["runs"][0];

  // The log, as an artifact of the run.
  nlohmann::json artifact = {{"length", report.scan.bytes},
                             {"roles", {"referencedOnCommandLine"}},
                             {"description", {{"text", "the crash log that was triaged"}}}};
  const bool from_stdin = report.log_name == "<stdin>";
  if (!from_stdin) artifact["location"] = {{"uri", relative_to(report.log_name, source_root)}, {"uriBaseId", "%SRCROOT%"}};
  if (!run.contains("artifacts")) run["artifacts"] = nlohmann::json::array();
  const std::size_t artifact_index = run["artifacts"].size();
  run["artifacts"].push_back(std::move(artifact));

  const std::optional<std::size_t> primary = report.recognition.primary;
  if (primary) {
    const Failure& failure = report.scan.failures[*primary];
    nlohmann::json region = {{"startLine", failure.where.line},
                             {"byteOffset", failure.where.offset},
                             {"byteLength", failure.where.length},
                             {"snippet", {{"text", failure.text}}}};
    nlohmann::json location = {{"artifactLocation", {{"index", artifact_index}}}, {"region", region}};
    if (!from_stdin) location["artifactLocation"] = {{"uri", relative_to(report.log_name, source_root)}, {"uriBaseId", "%SRCROOT%"}, {"index", artifact_index}};
    std::size_t r = 0;
    for (nlohmann::json& result : run["results"]) {
      int next_id = 0;
      if (result.contains("relatedLocations")) {
        for (const auto& related : result["relatedLocations"])
          if (related.contains("id") && related["id"].is_number_integer()) next_id = std::max(next_id, related["id"].get<int>() + 1);
      } else {
        result["relatedLocations"] = nlohmann::json::array();
      }
      result["relatedLocations"].push_back({{"id", next_id},
                                            {"physicalLocation", location},
                                            {"message", {{"text", "the failure this may explain: " + failure.text}}}});
      if (r < report.findings.size())
        result["properties"]["triage"] = {{"score", report.findings[r].score}, {"reasons", report.findings[r].reasons}};
      ++r;
    }
  }
  const nlohmann::json all = to_json(report);
  run["properties"]["triage"] = {{"log", all["log"]},
                                 {"failure", primary ? nlohmann::json(report.scan.failures[*primary].text) : nlohmann::json(nullptr)},
                                 {"candidates", all["candidates"]},
                                 {"frames", all["frames"]},
                                 {"notes", all["notes"]},
                                 {"explained", report.explained},
                                 {"workarounds", all["workarounds"]}};
  out << log.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
}

}  // namespace cudnnlint::triage
