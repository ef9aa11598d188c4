// Machine-readable output: one JSON object with the target, findings and diagnostics.
#include "emit/emitters.h"
#include "emit/replay_json.h"

#include <algorithm>
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
    item["replay"] = replay_to_json(f.replay);
    if (f.gpu_check) item["gpu_check"] = verdict_to_json(*f.gpu_check);
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
  nlohmann::json doc = {
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
  if (report.result.gpu_check) doc["gpu_check"] = summary_to_json(*report.result.gpu_check);
  out << doc.dump(2) << '\n';
}

}  // namespace cudnnlint

namespace cudnnlint {

void write_facts(std::ostream& out, const Report& report) {
  auto location_json = [](const Location& l) {
    return nlohmann::json{{"path", l.path}, {"line", l.range.begin.line}, {"column", l.range.begin.column}};
  };
  const char* sources[] = {"explicit", "default", "not_constant", "unresolvable"};
  nlohmann::json files = nlohmann::json::array();
  for (const FileFacts& facts : report.result.facts) {
    nlohmann::json norms = nlohmann::json::array();
    for (const NormalizationFact& n : facts.normalizations) {
      nlohmann::json item = {{"api", n.api},
                             {"spelled_as", n.spelled_as},
                             {"origin", n.origin},
                             {"call", location_json(n.call)},
                             {"eps_source", sources[static_cast<int>(n.eps_source)]}};
      if (n.eps) {
        item["eps"] = n.eps->value;
        nlohmann::json provenance = nlohmann::json::array();
        for (const auto& step : n.eps->provenance) provenance.push_back(location_json(step.where));
        item["provenance"] = std::move(provenance);
      }
      if (n.eps_location) item["eps_location"] = location_json(*n.eps_location);
      for (const auto& [name, arg] : n.literal_args) item["args"][name] = arg.spelling;
      item["uses"] = n.uses.size();
      norms.push_back(std::move(item));
    }
    auto descriptor_json = [&](const DescriptorFact& d) {
      nlohmann::json values = nlohmann::json::object();
      for (std::size_t i = 0; i < d.names.size(); ++i)
        values[d.names[i]] = d.values[i] ? nlohmann::json(d.values[i]->value) : nlohmann::json(nullptr);
      return nlohmann::json{{"api", d.api}, {"call", location_json(d.call)}, {"descriptor", d.descriptor},
                            {"data_type", d.data_type}, {"format", d.format}, {"values", values}};
    };
    nlohmann::json descriptors = nlohmann::json::array();
    for (const auto& d : facts.descriptors) descriptors.push_back(descriptor_json(d));
    nlohmann::json convolutions = nlohmann::json::array();
    for (const auto& c : facts.convolutions)
      convolutions.push_back({{"api", c.api}, {"call", location_json(c.call)}, {"input", descriptor_json(c.input)},
                              {"filter", descriptor_json(c.filter)}, {"convolution", descriptor_json(c.convolution)}});
    nlohmann::json tensor_inputs = nlohmann::json::array();
    for (const auto& t : facts.tensor_inputs) {
      nlohmann::json item = {{"consumer", t.consumer}, {"use", location_json(t.use)}, {"variable", t.variable},
                             {"dtype", t.dtype}, {"dtype_location", location_json(t.dtype_location)}};
      if (!t.weight_dtype.empty()) item["weight_dtype"] = t.weight_dtype;
      if (t.weight_dtype_location) item["weight_dtype_location"] = location_json(*t.weight_dtype_location);
      tensor_inputs.push_back(std::move(item));
    }
    files.push_back({{"path", facts.path},
                     {"frameworks", facts.frameworks},
                     {"normalizations", norms},
                     {"descriptors", descriptors},
                     {"convolutions", convolutions},
                     {"tensor_inputs", tensor_inputs}});
  }
  std::sort(files.begin(), files.end(), [](const auto& a, const auto& b) { return a["path"] < b["path"]; });
  out << nlohmann::json{{"files", files},
                        {"summary",
                         {{"files", report.result.files_discovered},
                          {"files_parsed", report.result.files_parsed},
                          {"bytes_read", report.result.bytes_read},
                          {"bytes_parsed", report.result.bytes_parsed}}}}
             .dump(2)
      << '\n';
}

}  // namespace cudnnlint
