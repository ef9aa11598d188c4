// One function per subcommand of cudnnlint that this layer can run (server/run_server.h and
// triage/run_triage.h hold the two front doors above it). Each returns the exit code
// (cli/command_line.h) and throws for a usage or tool error, which main() reports and exits 2 on.
#pragma once

#include "cli/command_line.h"

namespace cudnnlint::cli {

// `cudnnlint PATH...` (no subcommand): analyse, then report, fix, baseline or gpu-check.
int run_analysis(const CommandLine& line);
// `cudnnlint explain ID`: a KB entry (or a rule's) as Markdown.
int run_explain(const CommandLine& line);
// `cudnnlint rules`: the rules with their levels and KB entries.
int run_rules();
// `cudnnlint doctor`: the cuDNN, CUDA and GPU found, and which gpu_check tiers can run.
int run_doctor(const CommandLine& line);
// `cudnnlint flags FILE...`: the clang command each C++/CUDA file is parsed with, as JSON lines.
int run_flags(const CommandLine& line);
// `cudnnlint gpu-check REPORT.sarif`: replays the findings of an earlier SARIF report.
int run_gpu_check(const CommandLine& line);

}  // namespace cudnnlint::cli
