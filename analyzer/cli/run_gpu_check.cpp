#include "cli/output.h"
#include "cli/subcommands.h"

#include "emit/emitters.h"
#include "emit/replay_json.h"
#include "emit/sarif_read.h"

#include <nlohmann/json.hpp>

#include <stdexcept>

namespace cudnnlint::cli {

namespace {

// The verdict of each finding, and the summary.
void write_verdicts(std::ostream& out, const SarifFindings& report, const GpuCheckSummary& summary,
                    const std::string& sarif_file) {
  for (const Finding& f : report.findings) {
    out << f.location.path << ':' << f.location.range.begin.line << ':' << f.location.range.begin.column << ": "
        << f.rule_id << ": " << (f.gpu_check ? verdict_line(*f.gpu_check) : "not checked") << '\n';
    if (f.gpu_check && f.gpu_check->outcome != GpuVerdict::Outcome::Skipped)
      out << "  " << f.gpu_check->detail << '\n';
  }
  out << report.findings.size() << (report.findings.size() == 1 ? " result" : " results") << " in " << sarif_file
      << ".\n"
      << summary_line(summary) << '\n';
}

}  // namespace

int run_gpu_check(const CommandLine& line) {
  if (line.format != "text" && line.format != "sarif" && line.format != "json")
    throw std::invalid_argument("gpu-check writes text or sarif, not " + line.format);
  ReportOutput output(line.output_file);
  SarifFindings report = read_sarif_findings(line.sarif_input);
  const GpuCheckSummary summary = gpu::run_gpu_check(report.findings, gpu_check_options(line));
  if (line.format == "sarif" || line.format == "json") {
    annotate_sarif(report, summary);
    output.stream() << report.log.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
  } else {
    write_verdicts(output.stream(), report, summary, line.sarif_input);
  }
  output.finish();
  return kExitClean;
}

}  // namespace cudnnlint::cli
