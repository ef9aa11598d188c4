#include "engine/baseline.h"

#include "core/notebook.h"

#include "core/atomic_file.h"

#include "core/source_file.h"

#include <nlohmann/json.hpp>

#include <cctype>
#include <fstream>
#include <stdexcept>
#include <system_error>
#include <unistd.h>

namespace cudnnlint {

namespace {

namespace fs = std::filesystem;

// The path as the baseline records it: relative to the root with '/', else absolute.
std::string recorded_path(const std::string& path, const fs::path& root) {
  std::error_code ec;
  const fs::path absolute = fs::absolute(path, ec).lexically_normal();
  const fs::path relative = absolute.lexically_relative(fs::absolute(root, ec).lexically_normal());
  const std::string text = relative.generic_string();
  if (relative.empty() || text == ".." || text.starts_with("../")) return absolute.generic_string();
  return text;
}

// Each file's lines with their whitespace removed, read once per file.
class LineTexts {
 public:
  const std::string& line(const std::string& path, std::size_t number) {
    auto it = files_.find(path);
    if (it == files_.end()) {
      // A notebook's lines are those of its code cells read as one module, as the findings count them.
      std::string all = read_file_bytes(path).value_or("");
      if (is_notebook_path(path)) {
        auto module = notebook_module(all);
        all = std::holds_alternative<NotebookModule>(module) ? std::move(std::get<NotebookModule>(module).python) : "";
      }
      // LF, CRLF and a lone CR end a line, as in the front-ends.
      std::vector<std::string> lines;
      std::string line;
      for (std::size_t i = 0; i < all.size(); ++i) {
        const char c = all[i];
        if (c == '\n' || c == '\r') {
          lines.push_back(std::move(line));
          line.clear();
          if (c == '\r' && i + 1 < all.size() && all[i + 1] == '\n') ++i;
        } else if (!std::isspace(static_cast<unsigned char>(c))) {
          line.push_back(c);
        }
      }
      lines.push_back(std::move(line));
      it = files_.emplace(path, std::move(lines)).first;
    }
    static const std::string none;
    return number >= 1 && number <= it->second.size() ? it->second[number - 1] : none;
  }

 private:
  std::map<std::string, std::vector<std::string>> files_;
};

Baseline::Key key_of(const Finding& finding, const fs::path& root, LineTexts& lines) {
  return {recorded_path(finding.location.path, root), finding.rule_id,
          valid_utf8(lines.line(finding.location.path, finding.location.range.begin.line))};
}

}  // namespace

Baseline Baseline::of(const std::vector<Finding>& findings, const fs::path& root) {
  Baseline baseline;
  LineTexts lines;
  for (const Finding& finding : findings) ++baseline.counts_[key_of(finding, root, lines)];
  return baseline;
}

Baseline Baseline::read(const fs::path& file) {
  std::error_code ec;
  if (!fs::is_regular_file(file, ec))
    throw std::runtime_error(file.string() + ": " + (fs::exists(file, ec) ? "not a regular file" : "no such file") +
                             " (write one with --write-baseline)");
  std::ifstream in(file, std::ios::binary);
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(file.string() + ": not a cudnnlint baseline (invalid JSON: " + e.what() + ")");
  }
  const auto bad = [&](const std::string& what) {
    return std::runtime_error(file.string() + ": not a cudnnlint baseline (" + what + ")");
  };
  if (!doc.is_object() || doc.value("tool", "") != "cudnnlint") throw bad("no \"tool\": \"cudnnlint\"");
  if (!doc.contains("version") || doc["version"] != 1) throw bad("version 1 expected");
  if (!doc.contains("findings") || !doc["findings"].is_array()) throw bad("no \"findings\" array");
  Baseline baseline;
  for (const auto& entry : doc["findings"]) {
    if (!entry.is_object()) throw bad("a finding is not an object");
    for (const char* field : {"path", "rule", "code"})
      if (!entry.contains(field) || !entry[field].is_string()) throw bad(std::string("a finding without \"") + field + "\"");
    const auto& count = entry.contains("count") ? entry["count"] : nlohmann::json(1);
    if (!count.is_number_unsigned() || count.get<std::size_t>() == 0) throw bad("a count is not a positive integer");
    baseline.counts_[{entry["path"], entry["rule"], entry["code"]}] += count.get<std::size_t>();
  }
  return baseline;
}

void Baseline::write(const fs::path& file) const {
  nlohmann::json findings = nlohmann::json::array();
  for (const auto& [key, count] : counts_)  // std::map: sorted by path, rule, code
    findings.push_back({{"path", std::get<0>(key)}, {"rule", std::get<1>(key)}, {"code", std::get<2>(key)},
                        {"count", count}});
  const nlohmann::json doc = {{"tool", "cudnnlint"}, {"version", 1}, {"findings", findings}};
  // Whole or not at all, and never through a link at the target's name (core/atomic_file.h).
  const std::string problem =
      write_file_atomically(file, doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  if (!problem.empty()) throw std::runtime_error(problem);
}

std::size_t Baseline::filter(std::vector<Finding>& findings, const fs::path& root) const {
  std::map<Key, std::size_t> left = counts_;
  LineTexts lines;
  std::size_t removed = 0;
  std::erase_if(findings, [&](const Finding& finding) {
    const auto it = left.find(key_of(finding, root, lines));
    if (it == left.end() || it->second == 0) return false;
    --it->second;
    ++removed;
    return true;
  });
  return removed;
}

std::size_t Baseline::size() const {
  std::size_t total = 0;
  for (const auto& [key, count] : counts_) total += count;
  return total;
}

}  // namespace cudnnlint
