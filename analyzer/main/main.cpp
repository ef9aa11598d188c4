// cudnnlint: command-line entry point. Declares the command line (cli/command_line.h), parses
// it, and hands it to the one function that runs the subcommand named (the analysis when none
// is). Exit codes: 0 nothing at or above --fail-level, 1 findings at or above it, 2 usage or
// tool error.
#include "cli/command_line.h"
#include "cli/subcommands.h"
#include "core/suggest.h"
#include "server/run_server.h"
#include "triage/run_triage.h"

#include <CLI/CLI.hpp>

#include <exception>
#include <iostream>
#include <string>
#include <vector>
#include <malloc.h>

namespace {

using namespace cudnnlint;

int run_subcommand(const cli::Subcommands& sub, const cli::CommandLine& line) {
  if (sub.explain->parsed()) return cli::run_explain(line);
  if (sub.rules->parsed()) return cli::run_rules();
  if (sub.doctor->parsed()) return cli::run_doctor(line);
  if (sub.server->parsed()) return server::run_server(line);
  if (sub.gpu_check->parsed()) return cli::run_gpu_check(line);
  if (sub.flags->parsed()) return cli::run_flags(line);
  if (sub.triage->parsed()) return triage::run_triage(line);
  return cli::run_analysis(line);
}

// The long and short names of the options `app` (and its subcommands) take: `--format`, `-f`.
std::vector<std::string> option_names(const CLI::App& app) {
  std::vector<std::string> names;
  std::vector<const CLI::App*> apps{&app};
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) apps.push_back(sub);
  for (const CLI::App* each : apps)
    for (const CLI::Option* option : each->get_options()) {
      for (const std::string& name : option->get_lnames()) names.push_back("--" + name);
      for (const std::string& name : option->get_snames()) names.push_back("-" + name);
    }
  return names;
}

}  // namespace

int main(int argc, char** argv) {
  // Every file of a tree is read into a buffer of its size and freed: keep such buffers (up to
  // 32 MiB) in the heap for reuse instead of mapping and unmapping each one, which costs a page
  // fault per 4 KiB read (measured: about 6% of a run over transformers + timm).
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 128 << 20);
  CLI::App app{"cudnnlint: finds model configurations that cuDNN rejects or that end in NaN/Inf"};
  cli::CommandLine line;
  const cli::Subcommands sub = cli::define_command_line(app, line);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ExtrasError& e) {
    // `--formt json`: name the option meant, as Ruff does, instead of CLI11's "not expected".
    for (const std::string& extra : app.remaining())
      if (extra.starts_with("-")) {
        std::cerr << "cudnnlint: error: unknown option '" << extra.substr(0, extra.find('='))
                  << "'" << did_you_mean(extra.substr(0, extra.find('=')), option_names(app)) << " (see --help)\n";
        return cli::kExitError;
      }
    return app.exit(e) == 0 ? cli::kExitClean : cli::kExitError;
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? cli::kExitClean : cli::kExitError;
  }
  try {
    return run_subcommand(sub, line);
  } catch (const std::exception& e) {
    std::cerr << "cudnnlint: error: " << e.what() << '\n';
    return cli::kExitError;
  }
}
