// SARIF 2.1.0 for GitHub code scanning: rules built from the KB (help text and Markdown),
// repo-relative URIs under %SRCROOT%, UTF-16 columns, relatedLocations for provenance and
// partialFingerprints.primaryLocationLineHash computed as codeql-action does.
#include "emit/emitters.h"
#include "emit/json_stream.h"
#include "emit/replay_json.h"

#include "core/uri.h"
#include "kb/kb.h"
#include "rules/rule.h"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>

namespace cudnnlint {

namespace {

nlohmann::json artifact_location(const std::string& path, const std::filesystem::path& root) {
  const std::string relative = relative_to(path, root);
  if (!relative.empty()) return {{"uri", percent_encode_path(relative)}, {"uriBaseId", "%SRCROOT%"}};
  std::error_code ec;
  const auto absolute = std::filesystem::absolute(path, ec).lexically_normal();
  return {{"uri", file_uri(absolute.generic_string())}};
}

// In a notebook the region is the .ipynb file's lines that hold the code (a source line is a JSON
// string there: its columns are not the code's), which is what GitHub shows; the cell is named in
// the message and the properties.
nlohmann::json region(const SourceRange& range, const std::optional<NotebookPlace>& notebook) {
  if (notebook) return {{"startLine", notebook->file_line}, {"endLine", notebook->file_end_line}};
  nlohmann::json r = {{"startLine", range.begin.line}, {"startColumn", range.begin.column_utf16}};
  if (range.end.line >= range.begin.line && range.end.byte_offset > range.begin.byte_offset) {
    r["endLine"] = range.end.line;
    r["endColumn"] = range.end.column_utf16;
  }
  return r;
}

// " (cell 3, line 2, column 5)" for a place in a notebook, "" elsewhere.
std::string cell_note(const std::optional<NotebookPlace>& notebook, const Location& location) {
  if (!notebook) return "";
  return " (cell " + std::to_string(notebook->cell) + ", line " + std::to_string(notebook->line) + ", column " +
         std::to_string(location.range.begin.column) + ")";
}

std::string pascal_case(std::string_view id) {
  std::string out;
  bool upper = true;
  for (char c : id) {
    if (c == '-') {
      upper = true;
      continue;
    }
    out += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
    upper = false;
  }
  return out;
}

std::string clip(std::string text, std::size_t limit) {
  if (text.size() <= limit) return text;
  std::size_t cut = limit - 3;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;  // keep UTF-8 whole
  return text.substr(0, cut) + "...";
}

nlohmann::json rule_descriptor(const RuleInfo& rule) {
  const kb::Entry* entry = kb::find(rule.kb_id);
  const std::string summary(rule.summary);
  std::string full = entry ? entry->root_cause : summary;
  std::string help_text = summary + ". Knowledge-base entry " + std::string(rule.kb_id) +
                          "; run `cudnnlint explain " + std::string(rule.kb_id) + "` for the full entry.";
  if (entry) help_text += "\n\n" + entry->root_cause;
  const char* severity = rule.default_level == Level::Error     ? "error"
                         : rule.default_level == Level::Warning ? "warning"
                                                                : "recommendation";
  nlohmann::json descriptor = {
      {"id", rule.id},
      {"name", pascal_case(rule.id)},
      {"shortDescription", {{"text", clip(summary, 1000)}}},
      {"fullDescription", {{"text", clip(full.empty() ? summary : full, 1000)}}},
      {"help", {{"text", help_text}}},
      {"defaultConfiguration", {{"level", level_name(rule.default_level)}}},
      {"properties",
       {{"tags", {"cudnn",
                  rule.id.rfind("bn-", 0) == 0      ? "batch-norm"
                  : rule.id.rfind("torch-", 0) == 0 ? "dtype"
                                                    : "descriptor",
                  "correctness",
                  "kb:" + std::string(rule.kb_id)}},
        // The clamp depends on the input rank, which static analysis cannot see.
        {"precision", rule.id == "bn-eps-silently-clamped" ? "medium" : "high"},
        {"problem.severity", severity},
        {"kb", rule.kb_id}}}};
  if (entry) {
    descriptor["help"]["markdown"] = kb::render_markdown(*entry, kb::Lang::En);
    if (!entry->official_doc_url.empty()) descriptor["helpUri"] = entry->official_doc_url;
  }
  return descriptor;
}

}  // namespace

std::string relative_to(const std::filesystem::path& path, const std::filesystem::path& root) {
  std::error_code ec;
  const auto absolute = std::filesystem::absolute(path, ec).lexically_normal();
  const auto base = std::filesystem::absolute(root, ec).lexically_normal();
  const auto relative = absolute.lexically_relative(base);
  if (relative.empty()) return "";
  const std::string text = relative.generic_string();
  if (text == ".." || text.rfind("../", 0) == 0) return "";
  return text;
}

std::size_t write_sarif(std::ostream& out, const Report& report) {
  nlohmann::json rules = nlohmann::json::array();
  for (const RuleInfo& rule : all_rules()) rules.push_back(rule_descriptor(rule));

  auto result_json = [&](const Finding& f) {
    std::size_t rule_index = 0;
    for (const RuleInfo& rule : all_rules()) {
      if (rule.id == f.rule_id) break;
      ++rule_index;
    }
    nlohmann::json result = {
        {"ruleId", f.rule_id},
        {"ruleIndex", rule_index},
        {"level", level_name(f.level)},
        {"message", {{"text", full_message(f) + " (KB: " + f.kb_id + ")" + cell_note(f.notebook, f.location)}}},
        {"locations",
         {{{"physicalLocation",
            {{"artifactLocation", artifact_location(f.location.path, report.source_root)},
             {"region", region(f.location.range, f.notebook)}}}}}},
        {"properties", {{"kb", f.kb_id}, {"target", f.target_note}, {"replay", replay_to_json(f.replay)}}}};
    if (f.notebook)
      result["properties"]["notebook"] = {{"cell", f.notebook->cell},
                                          {"line", f.notebook->line},
                                          {"column", f.location.range.begin.column}};
    if (f.gpu_check) result["properties"]["gpuCheck"] = verdict_to_json(*f.gpu_check);
    if (!f.line_hash.empty()) result["partialFingerprints"] = {{"primaryLocationLineHash", f.line_hash}};
    if (f.fix) {
      // SARIF's fixes (§3.55): valid SARIF that GitHub code scanning does not read (not in its
      // supported list) and does not reject; editors and `sarif` tools can apply them.
      nlohmann::json replacements = nlohmann::json::array();
      for (const TextEdit& edit : f.fix->edits)
        // Explicit ends: an insertion is an empty region (SARIF's default end is the line's end).
        replacements.push_back({{"deletedRegion",
                                 {{"startLine", edit.range.begin.line}, {"startColumn", edit.range.begin.column_utf16},
                                  {"endLine", edit.range.end.line}, {"endColumn", edit.range.end.column_utf16}}},
                                {"insertedContent", {{"text", edit.replacement}}}});
      result["fixes"] = {{{"description", {{"text", f.fix->description + (f.fix->safe ? "" : " (unsafe)")}}},
                          {"artifactChanges",
                           {{{"artifactLocation", artifact_location(f.location.path, report.source_root)},
                             {"replacements", std::move(replacements)}}}}}};
    }
    if (!f.related.empty()) {
      nlohmann::json related = nlohmann::json::array();
      int id = 1;
      for (const auto& r : f.related) {
        related.push_back({{"id", id++},
                           {"message", {{"text", r.message + cell_note(r.notebook, r.where)}}},
                           {"physicalLocation",
                            {{"artifactLocation", artifact_location(r.where.path, report.source_root)},
                             {"region", region(r.where.range, r.notebook)}}}});
      }
      result["relatedLocations"] = std::move(related);
    }
    return result;
  };

  // GitHub rejects a run of more than 25,000 results: the most severe are kept (errors, then
  // warnings, then notes; in report order within a level), and the rest are named below.
  const auto& findings = report.result.findings;
  std::vector<std::size_t> kept(findings.size());
  for (std::size_t i = 0; i < kept.size(); ++i) kept[i] = i;
  std::size_t dropped_by_level[3] = {0, 0, 0};
  if (kept.size() > kGithubMaxResultsPerRun) {
    std::stable_sort(kept.begin(), kept.end(), [&](std::size_t a, std::size_t b) {
      return static_cast<int>(findings[a].level) > static_cast<int>(findings[b].level);
    });
    for (std::size_t i = kGithubMaxResultsPerRun; i < kept.size(); ++i)
      ++dropped_by_level[static_cast<int>(findings[kept[i]].level)];
    kept.resize(kGithubMaxResultsPerRun);
    std::sort(kept.begin(), kept.end());
  }
  const std::size_t dropped = findings.size() - kept.size();

  nlohmann::json notifications = nlohmann::json::array();
  if (dropped != 0)
    notifications.push_back(
        {{"level", "warning"},
         {"message",
          {{"text", std::to_string(dropped) + " of " + std::to_string(findings.size()) +
                        " results not written: GitHub code scanning rejects a run of more than " +
                        std::to_string(kGithubMaxResultsPerRun) + " results; the most severe were kept (left out: " +
                        std::to_string(dropped_by_level[2]) + " errors, " + std::to_string(dropped_by_level[1]) +
                        " warnings, " + std::to_string(dropped_by_level[0]) + " notes); -f json has them all"}}}});
  for (const auto& d : report.result.diagnostics) {
    nlohmann::json physical = {{"artifactLocation", artifact_location(d.path, report.source_root)}};
    if (d.position) physical["region"] = {{"startLine", d.position->line}, {"startColumn", d.position->column_utf16}};
    notifications.push_back({{"level", d.severity == FileDiagnostic::Severity::Error ? "error" : "warning"},
                             {"message", {{"text", d.message}}},
                             {"locations", {{{"physicalLocation", physical}}}}});
  }
  std::error_code ec;
  std::string root_uri =
      file_uri(std::filesystem::absolute(report.source_root, ec).lexically_normal().generic_string());
  if (root_uri.back() != '/') root_uri += '/';

  nlohmann::json run_properties = {{"target", report.target.describe_cudnn()}};
  if (report.result.baselined != 0) run_properties["baselined"] = report.result.baselined;
  if (report.result.gpu_check) run_properties["gpuCheck"] = summary_to_json(*report.result.gpu_check);
  nlohmann::json log = {
      {"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
      {"version", "2.1.0"},
      {"runs",
       {{{"tool",
          {{"driver",
            {{"name", "cudnnlint"},
             {"version", CUDNNLINT_VERSION},
             {"semanticVersion", CUDNNLINT_VERSION},
             {"rules", rules}}}}},
         {"originalUriBaseIds", {{"%SRCROOT%", {{"uri", root_uri}}}}},
         {"columnKind", "utf16CodeUnits"},
         {"invocations",
          {{{"executionSuccessful", !report.result.usage_error}, {"toolExecutionNotifications", notifications}}}},
         {"results", kStreamedArrayMarker},
         {"properties", run_properties}}}}};
  // "category/" names the category with no run id; a category with a '/' already says both.
  if (!report.category.empty())
    log["runs"][0]["automationDetails"] = {
        {"id", report.category.find('/') == std::string::npos ? report.category + "/" : report.category}};
  // The results are written one by one (runs[0].results, three levels deep): 65,000 of them as
  // one tree took 1 GB.
  write_with_streamed_array(out, log, "results", 3, kept.size(),
                            [&](std::size_t i) { return result_json(findings[kept[i]]); });
  return dropped;
}

}  // namespace cudnnlint
