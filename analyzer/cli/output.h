// What the subcommands share in writing their output: the report file, the source root that
// SARIF URIs are relative to, colour, and counted nouns.
#pragma once

#include "core/atomic_file.h"
#include "kb/kb.h"

#include <cstddef>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>

namespace cudnnlint::cli {

// The report file when -o names one (written whole or not at all, core/atomic_file.h), else
// standard output.
class ReportOutput {
 public:
  explicit ReportOutput(const std::string& output_file) {
    if (!output_file.empty()) file_.emplace(output_file);
  }
  std::ostream& stream() { return file_ ? file_->stream() : std::cout; }
  // Flushes; a report file is renamed into place only when every byte was written (a full disk
  // leaves an earlier report as it was). A failure throws, which exits 2.
  void finish();

 private:
  std::optional<AtomicOutputFile> file_;
};

// The enclosing git repository of the working directory, else the working directory.
std::filesystem::path find_source_root();
// --source-root's value, or find_source_root() when it is not given.
std::filesystem::path source_root_or_found(const std::string& source_root_text);

// --color's answer for standard output: always, never, or auto (a terminal, NO_COLOR unset, TERM
// not dumb).
bool stdout_wants_color(const std::string& mode);

// --lang's value, or nullopt after saying on stderr why it is not one.
std::optional<kb::Lang> lang_or_complain(const std::string& text);

// "1 fix", "2 fixes", "3 files".
std::string plural(std::size_t n, std::string_view word);

}  // namespace cudnnlint::cli
