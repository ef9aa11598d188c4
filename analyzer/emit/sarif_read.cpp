#include "emit/sarif_read.h"

#include "emit/replay_json.h"

#include "core/source_file.h"
#include "core/uri.h"

#include <cstdint>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace cudnnlint {

namespace {

// GitHub code scanning refuses SARIF files over 10 MB gzipped; a report this large is no SARIF a
// run of cudnnlint wrote.
constexpr std::uintmax_t kMaxSarifBytes = 256u << 20;

// "%SRCROOT%"-relative or absolute file URI -> a path for display.
std::string display_path(const nlohmann::json& artifact) {
  const std::string uri = artifact.value("uri", "");
  return percent_decode(std::string_view(uri).substr(uri.starts_with("file://") ? 7 : 0));
}

// A line or column: a whole number that fits, else 0 (unknown). nlohmann's value() converts a
// float or a huge number with undefined behaviour (a hostile log: `"startLine": 8.2e48`).
std::uint32_t position_field(const nlohmann::json& region, const char* key) {
  const auto it = region.find(key);
  if (it == region.end() || !it->is_number_unsigned()) return 0;
  const auto value = it->get<std::uint64_t>();
  return value > std::numeric_limits<std::uint32_t>::max() ? 0 : static_cast<std::uint32_t>(value);
}

Finding finding_from(const nlohmann::json& result) {
  Finding f;
  f.rule_id = result.value("ruleId", "");
  f.level = parse_level(result.value("level", "warning")).value_or(Level::Warning);
  if (result.contains("message")) f.message = result["message"].value("text", "");
  if (result.contains("locations") && !result["locations"].empty()) {
    const auto& physical = result["locations"][0].value("physicalLocation", nlohmann::json::object());
    f.location.path = display_path(physical.value("artifactLocation", nlohmann::json::object()));
    const auto& region = physical.value("region", nlohmann::json::object());
    f.location.range.begin.line = position_field(region, "startLine");
    f.location.range.begin.column = position_field(region, "startColumn");
  }
  const auto& properties = result.value("properties", nlohmann::json::object());
  f.kb_id = properties.value("kb", "");
  if (properties.contains("replay") && properties["replay"].is_object()) {
    try {
      f.replay = replay_from_json(properties["replay"]);
    } catch (const nlohmann::json::exception& e) {
      f.replay.unknown = std::string("properties.replay is malformed: ") + e.what();
    }
  } else {
    f.replay.unknown = "the result carries no properties.replay (written by cudnnlint 0.1 or later)";
  }
  return f;
}

}  // namespace

SarifFindings read_sarif_findings(const std::filesystem::path& file) {
  // A regular file of bounded size: `gpu-check /dev/zero` read without end (8.4 GB in 20 s).
  LoadLimits limits;
  limits.max_bytes = kMaxSarifBytes;
  limits.require_utf8 = false;
  auto loaded = load_source_file(file.string(), limits);
  if (auto* error = std::get_if<LoadError>(&loaded))
    throw std::runtime_error(file.string() + ": cannot open the SARIF file: " + error->message);
  return parse_sarif_findings(std::get<SourceFile>(loaded).text(), file.string());
}

SarifFindings parse_sarif_findings(std::string_view text, const std::string& name) {
  SarifFindings report;
  try {
    report.log = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {  // parse_error, or out_of_range for a number like 1e400
    throw std::runtime_error(name + ": not valid JSON (" + e.what() + ")");
  }
  if (!report.log.is_object() || !report.log.contains("runs") || !report.log["runs"].is_array())
    throw std::runtime_error(name + ": not a SARIF log (no \"runs\" array)");
  for (const auto& run : report.log["runs"]) {
    if (!run.is_object() || !run.contains("results")) continue;
    if (!run["results"].is_array()) throw std::runtime_error(name + ": a run's \"results\" is not an array");
    for (const auto& result : run["results"]) {
      if (!result.is_object()) throw std::runtime_error(name + ": a result is not an object");
      try {
        report.findings.push_back(finding_from(result));
      } catch (const nlohmann::json::exception& e) {
        throw std::runtime_error(name + ": result " + std::to_string(report.findings.size() + 1) +
                                 " is malformed (" + e.what() + ")");
      }
    }
  }
  return report;
}

void annotate_sarif(SarifFindings& report, const GpuCheckSummary& summary) {
  std::size_t index = 0;
  for (auto& run : report.log["runs"]) {
    if (!run.is_object()) continue;  // skipped when read, too
    run["properties"]["gpuCheck"] = summary_to_json(summary);
    if (!run.contains("results")) continue;
    for (auto& result : run["results"]) {
      const Finding& f = report.findings.at(index++);
      if (f.gpu_check) result["properties"]["gpuCheck"] = verdict_to_json(*f.gpu_check);
    }
  }
}

}  // namespace cudnnlint
