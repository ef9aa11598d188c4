// Output formats. Emitters only format a finished analysis; adding one never touches a rule.
#pragma once

#include "core/target.h"
#include "engine/analysis.h"

#include <nlohmann/json_fwd.hpp>

#include <cstddef>
#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

namespace cudnnlint {

struct Report {
  const AnalysisResult& result;
  const Target& target;
  std::filesystem::path source_root;  // SARIF URIs are relative to it (%SRCROOT%)
  std::string category;               // SARIF automationDetails.id's category (--category); "" for none
};

// GitHub code scanning rejects a run with more results than this (docs: SARIF upload limits).
inline constexpr std::size_t kGithubMaxResultsPerRun = 25000;

void write_text(std::ostream& out, const Report& report, bool color);
// One line per finding: `path:line:col: level: rule-id message`, then the summary.
void write_concise(std::ostream& out, const Report& report, bool color);
// The findings under their file's name, one indented `line:col level rule-id message` each.
void write_grouped(std::ostream& out, const Report& report, bool color);

// --statistics: the findings counted per rule, most frequent first (ties by rule id).
struct RuleCount {
  std::string rule_id;
  Level level = Level::Warning;  // the most severe of the rule's findings
  std::size_t count = 0;
  std::string summary;           // the rule's one-line summary
};
std::vector<RuleCount> rule_counts(const std::vector<Finding>& findings);
void write_statistics(std::ostream& out, const Report& report);
// The same as JSON: [{"rule", "level", "count", "summary"}].
void write_statistics_json(std::ostream& out, const Report& report);
void write_json(std::ostream& out, const Report& report);
// One finding as write_json writes it (for reports that embed findings: triage).
nlohmann::json finding_json(const Finding& f);
// Keeps within GitHub's limits: past kGithubMaxResultsPerRun it writes the most severe results
// and says in toolExecutionNotifications what it left out. Returns how many results it left out.
std::size_t write_sarif(std::ostream& out, const Report& report);
void write_github(std::ostream& out, const Report& report);
// The Facts IR of every analysed file, as JSON: for debugging rules and front-ends.
void write_facts(std::ostream& out, const Report& report);

// Per-file problems (unreadable, syntax error, ...) as compiler-style lines, for stderr.
void write_diagnostics(std::ostream& out, const AnalysisResult& result, bool color);

// The path of `path` relative to `root` with '/' separators, or "" when it lies outside.
std::string relative_to(const std::filesystem::path& path, const std::filesystem::path& root);

}  // namespace cudnnlint
