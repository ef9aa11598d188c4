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

// Rules, filters and output details for one file's facts: shared by both front-ends.
void judge_facts(const SourceFile& file, FileFacts facts, const AnalysisOptions& options, AnalysisResult& into) {
  std::vector<Finding> findings;
  run_rules(facts, options.target, findings);
  std::vector<std::string> hashes;
  for (Finding& finding : findings) {
    if (!selected(finding, options)) continue;
    if (suppressed_by(finding, facts.suppressions)) {
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
  if (options.keep_facts) into.facts.push_back(std::move(facts));
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
  judge_facts(file, std::move(analysis.facts), options, into);
}

// C++/CUDA files: read and vetted like Python files, then parsed by clang (which reads them
// itself, with their headers); files that name no cuDNN function are not handed to clang.
void analyze_cpp_files(const std::vector<std::string>& paths, const AnalysisOptions& options,
                       std::vector<AnalysisResult>& per_file, const std::vector<std::size_t>& indices) {
  std::vector<std::string> to_parse;
  std::vector<std::size_t> parse_index;
  for (std::size_t k = 0; k < paths.size(); ++k) {
    AnalysisResult& into = per_file[indices[k]];
    LoadLimits limits = options.limits;
    limits.require_utf8 = false;
    auto loaded = load_source_file(paths[k], limits);
    if (auto* error = std::get_if<LoadError>(&loaded)) {
      into.diagnostics.push_back({FileDiagnostic::Severity::Error, paths[k], std::nullopt, std::move(error->message)});
      continue;
    }
    const SourceFile& file = std::get<SourceFile>(loaded);
    into.bytes_read += file.text().size();
    if (!options.full_parse && !cpp::may_contain_cpp_trigger(file.text())) continue;
    to_parse.push_back(paths[k]);
    parse_index.push_back(indices[k]);
  }
  if (to_parse.empty()) return;
  cpp::CppOptions cpp_options = options.cpp;
  cpp_options.jobs = options.jobs;
  auto results = cpp::analyze_cpp(to_parse, ApiTable::builtin(), cpp_options);
  for (std::size_t k = 0; k < results.size(); ++k) {
    AnalysisResult& into = per_file[parse_index[k]];
    ++into.files_parsed;
    into.bytes_parsed += results[k].text.size();
    for (auto& diag : results[k].diagnostics) into.diagnostics.push_back(std::move(diag));
    const SourceFile file(to_parse[k], std::move(results[k].text));
    judge_facts(file, std::move(results[k].facts), options, into);
  }
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

  std::vector<AnalysisResult> per_file(files.size());
  // C++ goes to clang in one batch (it parallelises itself); Python to the workers below.
  std::vector<std::string> cpp_files;
  std::vector<std::size_t> cpp_indices;
  std::vector<std::size_t> python_indices;
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (cpp::is_cpp_source(files[i])) {
      cpp_files.push_back(files[i]);
      cpp_indices.push_back(i);
    } else {
      python_indices.push_back(i);
    }
  }
  analyze_cpp_files(cpp_files, options, per_file, cpp_indices);
  unsigned jobs = options.jobs != 0 ? options.jobs : std::max(1u, std::thread::hardware_concurrency());
  jobs = static_cast<unsigned>(std::min<std::size_t>(jobs, std::max<std::size_t>(python_indices.size(), 1)));
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    const python::Parser parser;  // tree-sitter parsers are not thread-safe: one per worker
    for (std::size_t k = next++; k < python_indices.size(); k = next++) {
      const std::size_t i = python_indices[k];
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
