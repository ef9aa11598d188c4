// `cudnnlint server`: a language server (LSP 3.17) over stdio, on the same engine as the command
// line. Open documents are analysed from the editor's text (an overlay on the files: nothing is
// written), and their findings become diagnostics, pushed after each change and answered to pull
// requests. A Python document is analysed with the workspace's files it imports (values cross
// modules as on the command line) and the workspace's config files, a YAML or JSON document with
// the code that reads it (server/project.h); a change to one of them, to the project's
// configuration or pins, analyses the open documents that read it again.
#pragma once

#include "kb/kb.h"

#include <istream>
#include <optional>
#include <ostream>

namespace cudnnlint::server {

struct ServerOptions {
  std::optional<kb::Lang> lang;  // --lang: the KB's language in hovers (else the client's locale)
};

// Serves until `exit` or the end of `in`; returns the process's exit code (0 after a shutdown
// request, 1 otherwise, as the specification asks). Logs go to `log` (stderr), never to `out`.
// `in` and `log` are untied from any stream (std::cin and std::cerr flush std::cout): only the
// server writes to `out`, one whole message at a time.
int serve(std::istream& in, std::ostream& out, std::ostream& log, const ServerOptions& options = {});

}  // namespace cudnnlint::server
