// Machine-readable output: one JSON object with the target, findings and diagnostics.
#include "emit/emitters.h"

#include <nlohmann/json.hpp>

namespace cudnnlint {

namespace {

nlohmann::json position_json(const Location& location) {
  const auto& r = location.range;
  return {{"path", location.path},           {"line", r.begin.line},          {"column", r.begin.column},
          {"end_line", r.end.line},          {"end_column", r.end.column},    {"column_utf16", r.begin.column_utf16},
          {"end_column_utf16", r.end.column_utf16}};
}

}  // namespace

void write_json(std::ostream& out, const Report& report) {
  nlohmann::json findings = nlohmann::json::array();
  for (const Finding& f : report.result.findings) {
    nlohmann::json item = position_json(f.location);
    item["rule"] = f.rule_id;
    item["kb"] = f.kb_id;
    item["level"] = level_name(f.level);
    item["message"] = f.message;
    item["target"] = f.target_note;
    nlohmann::json related = nlohmann::json::array();
    for (const auto& r : f.related) {
      nlohmann::json entry = position_json(r.where);
      entry["message"] = r.message;
      related.push_back(std::move(entry));
    }
    item["related"] = std::move(related);
    nlohmann::json replay = {{"op", f.replay.op}, {"dtype", f.replay.dtype}, {"not_replayable", f.replay.unknown}};
    replay["epsilon"] = f.replay.epsilon ? nlohmann::json(*f.replay.epsilon) : nlohmann::json(nullptr);
    item["replay"] = std::move(replay);
    if (!f.line_hash.empty()) item["line_hash"] = f.line_hash;
    findings.push_back(std::move(item));
  }
  nlohmann::json diagnostics = nlohmann::json::array();
  for (const auto& d : report.result.diagnostics) {
    nlohmann::json item = {{"path", d.path},
                           {"severity", d.severity == FileDiagnostic::Severity::Error ? "error" : "warning"},
                           {"message", d.message}};
    if (d.position) {
      item["line"] = d.position->line;
      item["column"] = d.position->column;
    }
    diagnostics.push_back(std::move(item));
  }
  nlohmann::json frameworks = nlohmann::json::object();
  for (const auto& [name, version] : report.target.frameworks)
    frameworks[name] = version ? nlohmann::json(version->str()) : nlohmann::json(nullptr);
  const nlohmann::json doc = {
      {"tool", {{"name", "cudnnlint"}, {"version", CUDNNLINT_VERSION}}},
      {"target",
       {{"cudnn", report.target.cudnn ? nlohmann::json(report.target.cudnn->str()) : nlohmann::json(nullptr)},
        {"frameworks", frameworks}}},
      {"findings", findings},
      {"diagnostics", diagnostics},
      {"summary",
       {{"files", report.result.files_discovered},
        {"files_parsed", report.result.files_parsed},
        {"findings", report.result.findings.size()},
        {"suppressed", report.result.suppressed}}}};
  out << doc.dump(2) << '\n';
}

}  // namespace cudnnlint
