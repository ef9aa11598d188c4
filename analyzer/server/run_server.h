// `cudnnlint server`: the language server on standard input and output.
#pragma once

#include "cli/command_line.h"

namespace cudnnlint::server {

// Serves until the client exits; exit 2 for a --lang that is neither en nor zh.
int run_server(const cli::CommandLine& line);

}  // namespace cudnnlint::server
