#include "engine/analysis.h"

#include "emit/line_hash.h"
#include "python/frontend.h"
#include "python/syntax.h"
#include "rules/api_table.h"
#include "rules/rule.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <thread>

namespace cudnnlint {

namespace {

bool suppressed_by(const Finding& finding, const std::vector<SuppressionComment>& suppressions) {
  for (const auto& s : suppressions) {
    if (s.line != finding.location.range.begin.line) continue;
    if (s.rules.empty()) return true;
    for (const auto& rule : s.rules)
      if (rule == finding.rule_id || rule == "cudnnlint-" + finding.rule_id) return true;
  }
  return false;
}

bool selected(const Finding& finding, const AnalysisOptions& options) {
  auto listed = [&](const std::vector<std::string>& ids) {
    return std::find(ids.begin(), ids.end(), finding.rule_id) != ids.end();
  };
  if (!options.select.empty() && !listed(options.select)) return false;
  return !listed(options.ignore);
}

void analyze_loaded(const SourceFile& file, const AnalysisOptions& options, const python::Parser& parser,
                    AnalysisResult& into) {
  const ApiTable& table = ApiTable::builtin();
  const std::string_view content = std::string_view(file.text()).substr(file.content_offset());
  into.bytes_read += file.text().size();
  if (!options.full_parse && !python::may_contain_trigger(content, table)) return;
  ++into.files_parsed;
  python::PythonAnalysis analysis = python::analyze_python(
      file, table, parser, options.full_parse ? python::ParseMode::Full : python::ParseMode::Regions);
  into.bytes_parsed += analysis.parsed_bytes;
  for (auto& diag : analysis.diagnostics) into.diagnostics.push_back(std::move(diag));

  std::vector<Finding> findings;
  run_rules(analysis.facts, options.target, findings);
  std::vector<std::string> hashes;
  for (Finding& finding : findings) {
    if (!selected(finding, options)) continue;
    if (suppressed_by(finding, analysis.facts.suppressions)) {
      ++into.suppressed;
      continue;
    }
    finding.source_line = std::string(file.line_text(finding.location.range.begin.line));
    if (options.line_hashes) {
      if (hashes.empty()) hashes = primary_location_line_hashes(file.text());
      const std::size_t line = finding.location.range.begin.line;
      if (line >= 1 && line <= hashes.size()) finding.line_hash = hashes[line - 1];
    }
    into.findings.push_back(std::move(finding));
  }
  if (options.keep_facts) into.facts.push_back(std::move(analysis.facts));
}

void analyze_path(const std::string& path, const AnalysisOptions& options, const python::Parser& parser,
                  AnalysisResult& into) {
  auto loaded = load_source_file(path, options.limits);
  if (auto* error = std::get_if<LoadError>(&loaded)) {
    into.diagnostics.push_back({FileDiagnostic::Severity::Error, path, std::nullopt, std::move(error->message)});
    return;
  }
  analyze_loaded(std::get<SourceFile>(loaded), options, parser, into);
}

}  // namespace

AnalysisResult analyze(const AnalysisOptions& options) {
  AnalysisResult result;
  DiscoveryResult discovered = discover(options.paths, options.discovery);
  result.usage_error = discovered.usage_error;
  result.diagnostics = std::move(discovered.diagnostics);
  const std::vector<std::string>& files = discovered.files;
  result.files_discovered = files.size();

  unsigned jobs = options.jobs != 0 ? options.jobs : std::max(1u, std::thread::hardware_concurrency());
  jobs = static_cast<unsigned>(std::min<std::size_t>(jobs, std::max<std::size_t>(files.size(), 1)));
  std::vector<AnalysisResult> per_file(files.size());
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    const python::Parser parser;  // tree-sitter parsers are not thread-safe: one per worker
    for (std::size_t i = next++; i < files.size(); i = next++) {
      try {
        analyze_path(files[i], options, parser, per_file[i]);
      } catch (const std::exception& e) {
        // A bug of ours on one file must not cost the user the rest of the run.
        per_file[i].diagnostics.push_back({FileDiagnostic::Severity::Error, files[i], std::nullopt,
                                           std::string("internal error while analysing this file: ") + e.what()});
      }
    }
  };
  if (jobs <= 1) {
    worker();
  } else {
    std::vector<std::jthread> threads;
    threads.reserve(jobs);
    for (unsigned t = 0; t < jobs; ++t) threads.emplace_back(worker);
  }
  for (auto& part : per_file) {
    result.files_parsed += part.files_parsed;
    result.bytes_read += part.bytes_read;
    result.bytes_parsed += part.bytes_parsed;
    std::move(part.facts.begin(), part.facts.end(), std::back_inserter(result.facts));
    result.suppressed += part.suppressed;
    std::move(part.findings.begin(), part.findings.end(), std::back_inserter(result.findings));
    std::move(part.diagnostics.begin(), part.diagnostics.end(), std::back_inserter(result.diagnostics));
  }
  std::stable_sort(result.findings.begin(), result.findings.end(), [](const Finding& a, const Finding& b) {
    const auto& pa = a.location.range.begin;
    const auto& pb = b.location.range.begin;
    return std::tie(a.location.path, pa.line, pa.column, a.rule_id) <
           std::tie(b.location.path, pb.line, pb.column, b.rule_id);
  });
  return result;
}

}  // namespace cudnnlint
