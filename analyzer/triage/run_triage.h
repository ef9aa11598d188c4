// `cudnnlint triage LOG [PATH...]`: from a crash log to the code.
#pragma once

#include "cli/command_line.h"

namespace cudnnlint::triage {

// Exit 0 whenever the triage ran, whatever it found; throws for a format it does not write or a
// bad option, and exits 2 when the log cannot be read.
int run_triage(const cli::CommandLine& line);

}  // namespace cudnnlint::triage
