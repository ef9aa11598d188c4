#include "cli/output.h"

#include <cstdlib>
#include <stdexcept>
#include <unistd.h>

namespace cudnnlint::cli {

void ReportOutput::finish() {
  if (file_) {
    if (const std::string problem = file_->commit(); !problem.empty()) throw std::runtime_error(problem);
    return;
  }
  std::cout.flush();
  if (!std::cout) throw std::runtime_error("writing the report failed");
}

std::filesystem::path find_source_root() {
  std::error_code ec;
  const auto cwd = std::filesystem::current_path(ec);
  for (auto dir = cwd; !dir.empty(); dir = dir.parent_path()) {
    if (std::filesystem::exists(dir / ".git", ec)) return dir;
    if (dir == dir.root_path()) break;
  }
  return cwd;
}

std::filesystem::path source_root_or_found(const std::string& source_root_text) {
  return source_root_text.empty() ? find_source_root() : std::filesystem::path(source_root_text);
}

bool stdout_wants_color(const std::string& mode) {
  if (mode == "always") return true;
  if (mode == "never") return false;
  const char* no_color = std::getenv("NO_COLOR");
  const char* term = std::getenv("TERM");
  return isatty(STDOUT_FILENO) && (no_color == nullptr || *no_color == '\0') &&
         !(term != nullptr && std::string_view(term) == "dumb");
}

std::optional<kb::Lang> lang_or_complain(const std::string& text) {
  const auto lang = kb::parse_lang(text);
  if (!lang) std::cerr << "cudnnlint: error: --lang must be 'en' or 'zh', not '" << text << "'\n";
  return lang;
}

std::string plural(std::size_t n, std::string_view word) {
  const bool es = word.ends_with("x");
  return std::to_string(n) + " " + std::string(word) + (n == 1 ? "" : es ? "es" : "s");
}

}  // namespace cudnnlint::cli
