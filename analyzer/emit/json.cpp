// Machine-readable output: one JSON object with the target, findings and diagnostics.
#include "emit/emitters.h"
#include "emit/json_stream.h"
#include "emit/replay_json.h"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace cudnnlint {

namespace {

// In a notebook, as Ruff's JSON has it: the lines are the cell's, and "cell" says which (1-based,
// every cell counted); "file_line" is the .ipynb file's line that holds the code.
nlohmann::json position_json(const Location& location, const std::optional<NotebookPlace>& notebook) {
  const auto& r = location.range;
  nlohmann::json position = {{"path", location.path},
                             {"line", notebook ? notebook->line : r.begin.line},
                             {"column", r.begin.column},
                             {"end_line", notebook ? notebook->end_line : r.end.line},
                             {"end_column", r.end.column},
                             {"column_utf16", r.begin.column_utf16},
                             {"end_column_utf16", r.end.column_utf16}};
  if (notebook) {
    position["cell"] = notebook->cell;
    position["file_line"] = notebook->file_line;
  }
  return position;
}


}  // namespace

nlohmann::json finding_json(const Finding& f) {
  nlohmann::json item = position_json(f.location, f.notebook);
  item["rule"] = f.rule_id;
  item["kb"] = f.kb_id;
  item["level"] = level_name(f.level);
  item["message"] = f.message;
  item["detail"] = f.detail;
  item["target"] = f.target_note;
  nlohmann::json related = nlohmann::json::array();
  for (const auto& r : f.related) {
    nlohmann::json entry = position_json(r.where, r.notebook);
    entry["message"] = r.message;
    related.push_back(std::move(entry));
  }
  item["related"] = std::move(related);
  item["replay"] = replay_to_json(f.replay);
  if (f.gpu_check) item["gpu_check"] = verdict_to_json(*f.gpu_check);
  if (!f.line_hash.empty()) item["line_hash"] = f.line_hash;
  if (f.fix) {
    // Ruff's shape: an applicability and edits with 1-based positions (end exclusive).
    nlohmann::json edits = nlohmann::json::array();
    for (const TextEdit& edit : f.fix->edits)
      edits.push_back({{"line", edit.range.begin.line}, {"column", edit.range.begin.column},
                       {"end_line", edit.range.end.line}, {"end_column", edit.range.end.column},
                       {"content", edit.replacement}});
    item["fix"] = {{"message", f.fix->description}, {"applicability", f.fix->safe ? "safe" : "unsafe"},
                   {"edits", std::move(edits)}};
  }
  return item;
}

void write_statistics_json(std::ostream& out, const Report& report) {
  nlohmann::json rows = nlohmann::json::array();
  for (const RuleCount& count : rule_counts(report.result.findings))
    rows.push_back({{"rule", count.rule_id},
                    {"level", std::string(level_name(count.level))},
                    {"count", count.count},
                    {"summary", count.summary}});
  out << rows.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
}

void write_json(std::ostream& out, const Report& report) {
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
  // A framework the project pins to a range: judged at each release of it (engine/analysis.cpp).
  nlohmann::json ranges = nlohmann::json::object();
  for (const auto& [name, range] : report.target.framework_ranges) ranges[name] = range.text;
  nlohmann::json doc = {
      {"tool", {{"name", "cudnnlint"}, {"version", CUDNNLINT_VERSION}}},
      {"target",
       {{"cudnn", report.target.cudnn ? nlohmann::json(report.target.cudnn->str()) : nlohmann::json(nullptr)},
        {"cudnn_source", report.target.cudnn_source},
        {"frameworks", frameworks},
        {"framework_ranges", ranges},
        {"framework_sources", report.target.framework_sources}}},
      {"findings", kStreamedArrayMarker},
      {"diagnostics", diagnostics},
      {"summary",
       {{"files", report.result.files_discovered},
        {"files_parsed", report.result.files_parsed},
        {"findings", report.result.findings.size()},
        {"suppressed", report.result.suppressed},
        {"baselined", report.result.baselined},
        // How much of the code the value flow followed, failing or not (issue 35).
        {"tracked",
         {{"shape_chains", report.result.tracked.shape_chains}, {"dtype_flows", report.result.tracked.dtype_flows}}},
        {"project_step", {{"rounds", report.result.project_rounds}, {"project_apis", report.result.project_apis}}}}}};
  if (report.result.gpu_check) doc["gpu_check"] = summary_to_json(*report.result.gpu_check);
  // The findings are written one by one: 65,000 of them as one tree took 0.7 GB.
  const auto& findings = report.result.findings;
  write_with_streamed_array(out, doc, "findings", 1, findings.size(),
                            [&](std::size_t i) { return finding_json(findings[i]); });
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
                             {"eps_source", sources[static_cast<int>(n.eps.source)]}};
      if (n.eps.value) {
        item["eps"] = n.eps.value->value;
        nlohmann::json provenance = nlohmann::json::array();
        for (const auto& step : n.eps.value->provenance) provenance.push_back(location_json(step.where));
        item["provenance"] = std::move(provenance);
      }
      if (n.eps.location) item["eps_location"] = location_json(*n.eps.location);
      if (!n.eps.via.empty()) item["eps_via"] = n.eps.via;
      if (n.eps.ref) {
        const char* kinds[] = {"module_attribute", "parameter", "config_key"};
        item["eps_ref"] = {{"kind", kinds[static_cast<int>(n.eps.ref->kind)]}, {"target", n.eps.ref->target}};
      }
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
    auto integer_json = [](const std::optional<IntegerValue>& v) {
      return v ? nlohmann::json(v->value) : nlohmann::json(nullptr);
    };
    auto axes_json = [&](const std::vector<std::optional<IntegerValue>>& values) {
      nlohmann::json out = nlohmann::json::array();
      for (const auto& v : values) out.push_back(integer_json(v));
      return out;
    };
    nlohmann::json convolutions = nlohmann::json::array();
    for (const auto& c : facts.conv_geometries) {
      nlohmann::json item = {{"api", c.api},
                             {"spelled_as", c.spelled_as},
                             {"call", location_json(c.call)},
                             {"spatial_dims", c.spatial_dims},
                             {"in_channels", integer_json(c.in_channels)},
                             {"out_channels", integer_json(c.out_channels)},
                             {"groups", integer_json(c.groups)},
                             {"kernel", axes_json(c.kernel)},
                             {"stride", axes_json(c.stride)},
                             {"padding", axes_json(c.padding)},
                             {"dilation", axes_json(c.dilation)},
                             {"padding_mode", c.padding_mode},
                             {"layout", c.layout}};
      if (!c.input.empty()) item["input"] = axes_json(c.input);
      if (c.dtype != DType::Unknown) item["dtype"] = dtype_name(c.dtype);
      if (c.filter_dtype != DType::Unknown) item["filter_dtype"] = dtype_name(c.filter_dtype);
      if (c.compute_type != DType::Unknown) item["compute_type"] = dtype_name(c.compute_type);
      convolutions.push_back(std::move(item));
    }
    nlohmann::json tensor_inputs = nlohmann::json::array();
    for (const auto& t : facts.tensor_inputs) {
      nlohmann::json item = {{"consumer", t.consumer}, {"use", location_json(t.use)}, {"variable", t.variable},
                             {"dtype", dtype_name(t.dtype)}, {"dtype_spelling", t.dtype_spelling},
                             {"dtype_location", location_json(t.dtype_location)}};
      if (t.weight_dtype != DType::Unknown) item["weight_dtype"] = dtype_name(t.weight_dtype);
      if (t.weight_dtype_location) item["weight_dtype_location"] = location_json(*t.weight_dtype_location);
      if (!t.shape.empty()) item["shape"] = axes_json(t.shape);
      if (!t.framework.empty()) item["framework"] = t.framework;
      tensor_inputs.push_back(std::move(item));
    }
    static const char* const uses[] = {"addend", "divisor", "optimizer_eps", "half_conversion"};
    nlohmann::json low_precision = nlohmann::json::array();
    for (const auto& c : facts.low_precision_constants) {
      nlohmann::json item = {{"use", uses[static_cast<int>(c.use)]}, {"where", location_json(c.where)},
                             {"value", c.value.value},                {"dtype", dtype_name(c.dtype)},
                             {"expression", c.expression},            {"reduced_by", c.reduced_by}};
      if (c.value_is_default) item["default"] = true;
      if (c.reduced_at) item["reduced_at"] = location_json(*c.reduced_at);
      if (!c.api.empty()) item["api"] = c.api;
      low_precision.push_back(std::move(item));
    }
    nlohmann::json shape_chains = nlohmann::json::array();
    for (const auto& c : facts.shape_chains) {
      nlohmann::json steps = nlohmann::json::array();
      for (const auto& step : c.steps)
        steps.push_back({{"label", step.label}, {"where", location_json(step.where)}, {"output", step.output}});
      shape_chains.push_back({{"framework", c.framework}, {"call", location_json(c.call)},
                              {"source", location_json(c.source)}, {"layout", c.layout},
                              {"input", c.input_spatial}, {"steps", steps}, {"rejected_by", c.rejected_by}});
    }
    auto settleable_json = [&](const SettleableValue& v) {
      nlohmann::json item = {{"source", sources[static_cast<int>(v.source)]}};
      if (v.value) item["value"] = v.value->value;
      if (v.location) item["location"] = location_json(*v.location);
      if (!v.via.empty()) item["via"] = v.via;
      if (v.ref) item["ref"] = v.ref->target;
      return item;
    };
    nlohmann::json loaders = nlohmann::json::array();
    for (const auto& l : facts.loaders) {
      nlohmann::json item = {{"api", l.api}, {"spelled_as", l.spelled_as}, {"call", location_json(l.call)},
                             {"batch_param", l.batch_param}, {"origin", l.origin}};
      if (l.batch_none) item["batch_none"] = true;
      else item["batch"] = settleable_json(l.batch);
      if (!l.division.empty()) {
        item["division"] = l.division;
        item["divisor"] = settleable_json(l.divisor);
      }
      if (!l.guard.empty()) item["guard"] = l.guard;
      if (!l.raising_check.empty()) item["raising_check"] = l.raising_check;
      if (l.drop_last) item[l.drop_param] = *l.drop_last;
      if (l.dataset_size) item["dataset_size"] = l.dataset_size->value;
      loaders.push_back(std::move(item));
    }
    nlohmann::json single_sample_calls = nlohmann::json::array();
    for (const auto& f : facts.single_sample_calls)
      single_sample_calls.push_back({{"call", location_json(f.call)}, {"batch", f.batch_text}, {"shape", f.shape},
                                     {"norm", location_json(f.norm)}, {"norm_text", f.norm_text},
                                     {"norm_input", f.norm_input}});
    nlohmann::json forwardings = nlohmann::json::array();
    for (const auto& f : facts.forwardings) {
      nlohmann::json item = {{"callable", f.callable}, {"class", f.is_class}, {"api", f.api},
                             {"reaches", location_json(f.reaches)}};
      if (f.inherits_signature) item["inherits_signature"] = true;
      else item["parameter"] = {{"role", f.role}, {"name", f.parameter}, {"index", f.index}};
      if (f.default_value) item["default"] = f.default_value->spelling;
      forwardings.push_back(std::move(item));
    }
    nlohmann::json arguments = nlohmann::json::array();
    for (const auto& a : facts.arguments) {
      nlohmann::json item = {{"dest", a.dest}, {"flag", a.flag}, {"call", location_json(a.call)}};
      if (a.default_value && a.default_value->constant) item["default"] = a.default_value->constant->value;
      arguments.push_back(std::move(item));
    }
    nlohmann::json config_defaults = nlohmann::json::array();
    for (const auto& d : facts.config_defaults)
      config_defaults.push_back({{"path", d.path}, {"where", location_json(d.where)},
                                 {"value", d.value.constant ? nlohmann::json(d.value.constant->value) : nlohmann::json(nullptr)}});
    files.push_back({{"path", facts.path},
                     {"language", facts.language},
                     {"module", facts.module},
                     {"frameworks", facts.frameworks},
                     {"normalizations", norms},
                     {"descriptors", descriptors},
                     {"convolutions", convolutions},
                     {"tensor_inputs", tensor_inputs},
                     {"low_precision_constants", low_precision},
                     {"shape_chains", shape_chains},
                     {"single_sample_calls", single_sample_calls},
                     {"loaders", loaders},
                     {"forwardings", forwardings},
                     {"arguments", arguments},
                     {"config_defaults", config_defaults},
                     {"tracked",
                      {{"shape_chains", facts.tracked.shape_chains}, {"dtype_flows", facts.tracked.dtype_flows}}}});
  }
  std::sort(files.begin(), files.end(), [](const auto& a, const auto& b) { return a["path"] < b["path"]; });
  out << nlohmann::json{{"files", files},
                        {"summary",
                         {{"files", report.result.files_discovered},
                          {"files_parsed", report.result.files_parsed},
                          {"bytes_read", report.result.bytes_read},
                          {"bytes_parsed", report.result.bytes_parsed},
                          {"tracked",
                           {{"shape_chains", report.result.tracked.shape_chains},
                            {"dtype_flows", report.result.tracked.dtype_flows}}},
                          {"bytes_parsed_by_project_step", report.result.project_bytes_parsed}}}}
             .dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
      << '\n';
}

}  // namespace cudnnlint
