#include "server/run_server.h"

#include "cli/output.h"
#include "server/server.h"

#include <iostream>

namespace cudnnlint::server {

int run_server(const cli::CommandLine& line) {
  ServerOptions options;
  if (!line.server_lang.empty()) {
    options.lang = cli::lang_or_complain(line.server_lang);
    if (!options.lang) return cli::kExitError;
  }
  std::ios::sync_with_stdio(false);
  return serve(std::cin, std::cout, std::cerr, options);
}

}  // namespace cudnnlint::server
