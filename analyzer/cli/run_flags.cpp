#include "cli/subcommands.h"

#include "core/printable.h"
#include "cpp/frontend.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <iostream>

namespace cudnnlint::cli {

namespace {

// The files that exist as regular files; each other one said on stderr.
std::vector<std::string> regular_files(const std::vector<std::string>& files, bool& all_there) {
  std::vector<std::string> existing;
  for (const auto& file : files) {
    std::error_code ec;
    if (std::filesystem::is_regular_file(file, ec)) {
      existing.push_back(file);
    } else {
      std::cerr << "cudnnlint: error: " << printable(file) << ": "
                << (std::filesystem::exists(file, ec) ? "not a regular file" : "no such file") << '\n';
      all_there = false;
    }
  }
  return existing;
}

std::string json_text(const nlohmann::json& value) {
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

int run_flags(const CommandLine& line) {
  cpp::CppOptions cpp_options;
  cpp_options.compile_commands_dir = line.compile_commands_dir;
  cpp_options.extra_args = line.extra_args;
  cpp_options.trusted_roots = {"."};  // as a run from here over this tree would judge its flags
  // A file that does not exist has no command: say so (exit 2) instead of printing one.
  bool all_there = true;
  const std::vector<std::string> files = regular_files(line.flag_files, all_there);
  const auto commands = cpp::clang_commands(files, cpp_options);
  for (std::size_t i = 0; i < files.size(); ++i)
    std::cout << "{\"file\": " << json_text(files[i]) << ", \"arguments\": " << json_text(commands[i]) << "}\n";
  return all_there ? kExitClean : kExitError;
}

}  // namespace cudnnlint::cli
