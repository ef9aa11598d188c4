#include "engine/suppress.h"

#include "core/content_hash.h"
#include "core/source_file.h"

#include <map>
#include <optional>
#include <set>
#include <string_view>

namespace cudnnlint {

namespace {

constexpr std::string_view kMarker = "cudnnlint: ignore[";

// Python only: the result is checked by re-parsing it before it is written (fixes.h), which the
// other languages' files cannot be; their lines are listed for a comment by hand.
std::string comment_lead(std::string_view path) { return path.ends_with(".py") ? "#" : ""; }

std::string joined(const std::set<std::string>& rules) {
  std::string out;
  for (const auto& rule : rules) out.append(out.empty() ? "" : ",").append(rule);
  return out;
}

// The edit for one line: appended at its end, or into the list an ignore comment there already has.
std::optional<TextEdit> line_edit(std::string_view text, std::size_t line_start, std::uint32_t line_number,
                                  const std::string& lead, const std::set<std::string>& rules, std::string& why) {
  std::size_t end = text.find('\n', line_start);
  if (end == std::string_view::npos) end = text.size();
  if (end > line_start && text[end - 1] == '\r') --end;
  const std::string_view line = text.substr(line_start, end - line_start);
  TextEdit edit;
  Position at{line_number, 0, 0, 0};
  if (const auto marker = line.find(kMarker); marker != std::string_view::npos) {
    const auto close = line.find(']', marker);
    if (close == std::string_view::npos) {
      why = "an unclosed `cudnnlint: ignore[` is already there";
      return std::nullopt;
    }
    at.byte_offset = static_cast<std::uint32_t>(line_start + close);
    // Built piece by piece: `"," + std::string` trips GCC 12's -Wrestrict false positive.
    edit.replacement = std::string(",").append(joined(rules));
  } else {
    if (!line.empty() && line.back() == '\\') {
      why = "the line continues on the next (a backslash): a comment would end it";
      return std::nullopt;
    }
    at.byte_offset = static_cast<std::uint32_t>(end);
    edit.replacement = std::string("  ").append(lead).append(" cudnnlint: ignore[").append(joined(rules)).append("]");
  }
  edit.range = SourceRange{at, at};
  return edit;
}

}  // namespace

SuppressionEdits suppression_edits(std::span<const Finding> findings) {
  SuppressionEdits out;
  // path -> line -> (the line's first finding, the rules found there)
  std::map<std::string, std::map<std::uint32_t, std::pair<const Finding*, std::set<std::string>>>> lines;
  for (const Finding& f : findings) {
    auto& slot = lines[f.location.path][f.location.range.begin.line];
    if (slot.first == nullptr) slot.first = &f;
    slot.second.insert(f.rule_id);
  }
  for (const auto& [path, by_line] : lines) {
    const std::string lead = comment_lead(path);
    const auto text = lead.empty() ? std::nullopt : read_file_bytes(path);
    for (const auto& [number, slot] : by_line) {
      const Finding& first = *slot.first;
      if (first.notebook) {  // the cells are JSON strings of the .ipynb file: not rewritten
        out.skipped.push_back(path + ":cell " + std::to_string(first.notebook->cell) + ":" +
                              std::to_string(first.notebook->line) +
                              ": comments are not added to notebooks: add `# cudnnlint: ignore[" + joined(slot.second) +
                              "]` to the cell's line by hand");
        continue;
      }
      std::string why = lead.empty() ? "comments are added to Python files only: add `" +
                                           std::string(path.ends_with(".json") ? "(JSON has no comments)" : "cudnnlint: ignore[" + joined(slot.second) + "]") +
                                           "` by hand"
                        : !text ? "cannot read the file"
                                : "";
      const std::size_t offset = first.location.range.begin.byte_offset;
      if (why.empty() && offset > text->size()) why = "the file changed since the analysis";
      std::optional<TextEdit> edit;
      if (why.empty()) {
        const std::size_t line_start = text->rfind('\n', offset == 0 ? 0 : offset - 1);
        edit = line_edit(*text, line_start == std::string::npos || offset == 0 ? 0 : line_start + 1, number, lead,
                         slot.second, why);
      }
      if (!edit) {
        out.skipped.push_back(path + ":" + std::to_string(number) + ": " + why);
        continue;
      }
      Finding carrier = first;
      carrier.fix = Fix{"suppress " + joined(slot.second), true, {std::move(*edit)}, content_hash(*text)};
      out.edits.push_back(std::move(carrier));
    }
  }
  return out;
}

}  // namespace cudnnlint
