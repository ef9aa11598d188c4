// The framework tier: most Python findings fail in the framework before any cuDNN call (an
// integer input, a batch size the loader refuses, a batch of one into batch norm, an epsilon that
// is 0 in float16). For each such finding gpu_check writes a small program from the finding's
// replay values alone (FrameworkReplay: numbers and enumerators, never the user's code), runs it
// with the Python interpreter the project uses, on the CPU, and reports what the framework did,
// with its version.
#pragma once

#include "core/finding.h"

#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cudnnlint::gpu {

// A Python interpreter and the frameworks it can import (from their metadata: nothing imported).
struct PythonInterpreter {
  std::string path;
  std::string origin;          // "--python", "$VIRTUAL_ENV", "$CONDA_PREFIX", "PATH"
  std::string python_version;  // "3.11.7"
  std::map<FrameworkName, std::string> frameworks;  // torch -> "2.11.0+cu130"
  std::string problem;         // why it could not be asked; "" when it answered
};

struct FrameworkTierOptions {
  std::string python;  // --python: this interpreter only
  // The KB entry's regex for a finding's kb_id ("" when none): a message the framework raises is
  // checked against it, so that a verdict says whether the KB still quotes this version's words.
  std::function<std::string(std::string_view kb_id)> kb_regex;
  // What the KB entry records of this framework's versions ("PyTorch 2.10 - 2.11: ..."): a `not
  // reproduced` names the versions the claim was measured on.
  std::function<std::string(std::string_view kb_id, FrameworkName framework)> kb_versions;
  double seconds_per_program = 120.0;
};

// Every interpreter found, in the order they are preferred: --python alone when given; else the
// active virtual environment, the active conda environment, then each python3 on PATH.
std::vector<PythonInterpreter> find_interpreters(const std::string& forced);

// Why `replay` cannot be run safely or meaningfully (a size past the bounds, a value missing),
// or nullopt when it can.
std::optional<std::string> framework_case_problem(const FrameworkReplay& replay);

// The program for `cases` (each already free of problems) on `framework`: one JSON line per case.
std::string framework_program(FrameworkName framework, std::span<const FrameworkReplay* const> cases);

struct FrameworkTierRun {
  std::string summary;  // "ran (torch 2.11.0 with /usr/bin/python3)", "not run: ..."
};

// Runs the tier for every finding with a framework case and no verdict yet that settles it
// (findings[i].gpu_check unset or Skipped); sets their verdicts.
FrameworkTierRun run_framework_tier(std::span<Finding> findings, const FrameworkTierOptions& options);

// Lines for `cudnnlint doctor`.
std::string describe_interpreters(const std::vector<PythonInterpreter>& interpreters);

}  // namespace cudnnlint::gpu
