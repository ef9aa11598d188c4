#include "engine/fixes.h"

#include "core/atomic_file.h"
#include "core/content_hash.h"
#include "core/source_file.h"
#include "core/tree_bounds.h"
#include "python/frontend.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

namespace cudnnlint {

namespace {

// Replaces `path` by `text` atomically, keeping its permission bits. "" on success, else why not.
std::string replace_atomically(const std::string& path, std::string_view text) {
  return write_file_atomically(path, text);
}

struct PlannedEdit {
  const TextEdit* edit;
  const Finding* finding;
};

}  // namespace

bool fixed_text_parses(std::string_view path, std::string_view text) {
  return path.ends_with(".py") && python::parses_without_error(text);
}

void settle_fix(Finding& finding, const SourceFile& file) {
  if (!finding.fix) return;
  const std::string_view text = file.text();
  for (TextEdit& edit : finding.fix->edits) {
    const std::size_t begin = edit.range.begin.byte_offset, end = edit.range.end.byte_offset;
    bool matches = begin <= end && end <= text.size();
    if (matches && edit.new_argument) {
      matches = begin < text.size() && text[begin] == ')';
      std::size_t before = begin;
      while (matches && before > 0 && std::isspace(static_cast<unsigned char>(text[before - 1]))) --before;
      // A comment between the last argument and ')' would swallow the argument: no fix.
      const std::size_t line_start = before == 0 ? 0 : text.rfind('\n', before - 1) + 1;
      if (matches && text.substr(line_start, before - line_start).find('#') != std::string_view::npos) matches = false;
      if (matches && before > 0) {
        // Right after the last argument (its trailing comma kept): `f(a, b, drop_last=True\n)`.
        const char previous = text[before - 1];
        edit.replacement = previous == '(' ? edit.replacement
                           : previous == ',' ? " " + edit.replacement + ","
                                             : ", " + edit.replacement;
        edit.range.begin = edit.range.end = file.position_at(before);
      }
      edit.new_argument = false;
      edit.expected.clear();
    } else if (matches) {
      matches = text.substr(begin, end - begin) == edit.expected;
    }
    if (!matches) {
      finding.fix.reset();
      return;
    }
  }
  finding.fix->file_hash = content_hash(text);
}

namespace {

// Why `path` may not be rewritten by a fix of this run, or "" when it may: it must be a regular
// file (not a link) whose real location lies within one of the analysed paths.
std::string refuse_to_fix(const std::string& path, std::span<const std::string> analysed) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return std::string("cannot stat: ") + std::strerror(errno);
  if (S_ISLNK(st.st_mode)) return "a symbolic link; fixes are written only to regular files";
  if (!S_ISREG(st.st_mode)) return "not a regular file";
  for (const std::string& root : analysed)
    if (resolves_within(path, tree_bound(root))) return {};
  return "outside the analysed paths; a fix is written only inside them";
}

}  // namespace

FixPlan plan_fixes(std::span<const Finding> findings, bool unsafe, std::span<const std::string> analysed) {
  FixPlan plan;
  std::map<std::string, std::vector<PlannedEdit>> by_file;
  for (const Finding& finding : findings) {
    if (!finding.fix || finding.fix->edits.empty()) continue;
    if (!finding.fix->safe && !unsafe) {
      ++plan.unsafe_left;
      continue;
    }
    for (const TextEdit& edit : finding.fix->edits) by_file[finding.location.path].push_back({&edit, &finding});
  }
  for (auto& [path, edits] : by_file) {
    FileFix file;
    file.path = path;
    file.error = refuse_to_fix(path, analysed);
    const auto text = file.error.empty() ? read_file_bytes(path) : std::nullopt;
    if (file.error.empty() && !text) file.error = "cannot read the file";
    if (text) {
      const std::string hash = content_hash(*text);
      const bool as_analysed = std::all_of(edits.begin(), edits.end(),
                                           [&](const PlannedEdit& e) { return e.finding->fix->file_hash == hash; });
      if (!as_analysed) file.error = "its bytes are not those the findings were made on; not fixed";
    }
    if (!file.error.empty()) {
      plan.files.push_back(std::move(file));
      continue;
    }
    file.before = *text;
    std::stable_sort(edits.begin(), edits.end(), [](const PlannedEdit& a, const PlannedEdit& b) {
      return a.edit->range.begin.byte_offset < b.edit->range.begin.byte_offset;
    });
    std::string after;
    std::size_t copied = 0;
    const TextEdit* last = nullptr;
    const Finding* last_finding = nullptr;
    // "line:column rule-id: description", once per finding (a fix may have several edits).
    const auto note_applied = [&](const Finding* finding) {
      if (finding != last_finding)
        file.applied.push_back(std::to_string(finding->location.range.begin.line) + ":" +
                               std::to_string(finding->location.range.begin.column) + " " + finding->rule_id + ": " +
                               finding->fix->description);
      last_finding = finding;
    };
    for (const PlannedEdit& planned : edits) {
      const TextEdit& edit = *planned.edit;
      const std::size_t begin = edit.range.begin.byte_offset, end = edit.range.end.byte_offset;
      // Two findings on one literal carry the same edit: it is made once.
      if (last && last->range.begin.byte_offset == begin && last->range.end.byte_offset == end &&
          last->replacement == edit.replacement) {
        note_applied(planned.finding);
        continue;
      }
      if (begin < copied || end > file.before.size() ||
          (!edit.expected.empty() && file.before.compare(begin, end - begin, edit.expected) != 0)) {
        ++plan.overlapping;
        continue;
      }
      after.append(file.before, copied, begin - copied);
      after += edit.replacement;
      copied = end;
      last = &edit;
      note_applied(planned.finding);
    }
    after.append(file.before, copied);
    file.after = std::move(after);
    if (!fixed_text_parses(path, file.after)) {
      file.error = "the fixed file would not parse; left unchanged";
      file.after = file.before;
    }
    plan.files.push_back(std::move(file));
  }
  return plan;
}

void write_fixes(FixPlan& plan) {
  for (FileFix& file : plan.files) {
    if (!file.error.empty() || file.after == file.before) continue;
    const auto now = read_file_bytes(file.path);
    if (!now || *now != file.before) {
      file.error = "the file changed while cudnnlint ran; left unchanged";
      continue;
    }
    if (std::string error = replace_atomically(file.path, file.after); !error.empty()) {
      file.error = std::move(error);
      continue;
    }
    // Read back what the rename put there: another writer may have raced us.
    const auto written = read_file_bytes(file.path);
    if (!written || *written != file.after || !fixed_text_parses(file.path, *written)) {
      const std::string restore = replace_atomically(file.path, file.before);
      file.error = restore.empty() ? "the written file did not read back as fixed; restored"
                                   : "the written file did not read back as fixed, and restoring it failed: " + restore;
    }
  }
}

}  // namespace cudnnlint
