// `cudnnlint server`: a language server (LSP 3.17) over stdio, on the same engine as the command
// line. Open documents are analysed from the editor's text (an overlay on the files: nothing is
// written), and their findings become diagnostics, pushed after each change and answered to pull
// requests. This first version analyses each open document alone: values from other modules are
// not followed yet.
#pragma once

#include <istream>
#include <ostream>

namespace cudnnlint::server {

// Serves until `exit` or the end of `in`; returns the process's exit code (0 after a shutdown
// request, 1 otherwise, as the specification asks). Logs go to `log` (stderr), never to `out`.
int serve(std::istream& in, std::ostream& out, std::ostream& log);

}  // namespace cudnnlint::server
