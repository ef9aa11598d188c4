// The project step: what no single file settles, done after the first parallel pass and kept
// small. It
//  1. turns project functions and classes that pass a value on to an API (ForwardingFacts) into
//     API-table entries, with the names their packages re-export them under, and analyses again
//     the files that name them (repeating while new ones appear);
//  2. settles references: module constants across files, argparse defaults, yacs defaults and
//     the YAML/JSON config values code reads (`cfg.MODEL.BN_EPS`), reading only the files that
//     can hold them;
//  3. reads Hydra `_target_` nodes that build an API from YAML (engine/config_files.h, which also
//     reads the config files for 2).
#pragma once

#include "core/api_table.h"
#include "core/facts.h"
#include "core/source_file.h"
#include "engine/module_index.h"
#include "engine/python_pass.h"

#include <map>
#include <string>
#include <vector>

namespace cudnnlint {

struct ProjectInput {
  const std::vector<std::string>& python_files;
  const std::vector<std::string>& config_files;
  const ModuleIndex& modules;
  PythonPassOptions pass;       // the first pass's options (table: the builtin one)
};

struct ProjectOutcome {
  ApiTable table;                                   // the builtin table plus the project's callables
  std::vector<FileFacts> config_facts;              // facts read from config files (Hydra _target_)
  std::vector<FileDiagnostic> diagnostics;          // malformed config files that had to be read
  std::map<std::string, std::vector<SuppressionComment>> suppressions;  // files read only here
  std::size_t rounds = 0;                           // passes after the first
  std::size_t project_apis = 0;                     // project callables added to the table
  std::size_t bytes_parsed = 0;                     // parsed by this step's passes
  std::size_t files_parsed = 0;
  double seconds = 0.0;
};

// Updates `results` (one per python file) in place: facts of re-analysed files are replaced,
// references are settled.
ProjectOutcome run_project_step(const ProjectInput& input, std::vector<PythonFileResult>& results);

}  // namespace cudnnlint
