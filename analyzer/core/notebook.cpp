#include "core/notebook.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <optional>
#include <utility>

namespace cudnnlint {

namespace {

constexpr std::size_t kMaxDepth = 64;

// Walks a JSON text's string tokens (keys and values) in order, counting lines: the SAX parser
// below reports strings in the same order, so the n-th call gives the line of the n-th string it
// reports (nlohmann's SAX interface gives no positions). Constant memory, one pass.
class StringTokenLines {
 public:
  explicit StringTokenLines(std::string_view text) : text_(text) {}
  std::uint32_t next() {
    for (; at_ < text_.size() && text_[at_] != '"'; ++at_)
      if (text_[at_] == '\n') ++line_;
    const std::uint32_t start_line = line_;
    for (++at_; at_ < text_.size() && text_[at_] != '"'; ++at_)
      if (text_[at_] == '\\') ++at_;  // the escaped character, a quote included (a raw newline is invalid JSON)
    ++at_;
    return start_line;
  }

 private:
  std::string_view text_;
  std::size_t at_ = 0;
  std::uint32_t line_ = 1;
};

// One piece of a cell's "source": a string, and the line of the file its token starts on.
struct SourcePiece {
  std::string text;
  std::uint32_t file_line = 0;
};

struct RawCell {
  std::uint32_t number = 0;  // 1-based over every cell
  std::string type;
  std::vector<SourcePiece> source;
};

// Reads what the module needs from the notebook's JSON, keeping nothing else: nbformat, the
// kernel's language, and each cell's type and source. nlohmann's SAX parser is iterative; this
// handler keeps a stack of the open containers, bounded by kMaxDepth.
class NotebookReader {
 public:
  using json = nlohmann::json;
  explicit NotebookReader(std::string_view text) : lines_(text) {}

  bool null() { return scalar(); }
  bool boolean(bool) { return scalar(); }
  bool number_integer(json::number_integer_t value) {
    if (at_root_key("nbformat")) nbformat = value;
    return scalar();
  }
  bool number_unsigned(json::number_unsigned_t value) {
    if (at_root_key("nbformat")) nbformat = static_cast<std::int64_t>(std::min<json::number_unsigned_t>(value, 1u << 30));
    return scalar();
  }
  bool number_float(json::number_float_t, const json::string_t&) { return scalar(); }
  bool binary(json::binary_t&) { return scalar(); }
  bool string(json::string_t& value) {
    const std::uint32_t line = next_token_line();
    if (in_cell_key("cell_type")) cell_->type = value;
    else if (in_cell_key("source") || in_source_array()) cell_->source.push_back({std::move(value), line});
    else if (at_path({"metadata", "kernelspec", "language"}) || at_path({"metadata", "language_info", "name"}))
      language = value;
    return scalar();
  }
  bool key(json::string_t& name) {
    next_token_line();
    stack_.back().key = std::move(name);
    return true;
  }
  bool start_object(std::size_t) {
    if (stack_.size() == 2 && stack_[0].key == "cells" && !stack_[1].object) cell_ = RawCell{++cell_count_, {}, {}};
    return open(true);
  }
  bool end_object() {
    stack_.pop_back();
    if (stack_.size() == 2 && cell_) {
      cells.push_back(std::move(*cell_));
      cell_.reset();
    }
    return true;
  }
  bool start_array(std::size_t) { return open(false); }
  bool end_array() {
    stack_.pop_back();
    return true;
  }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& error) {
    this->error = "not valid JSON at byte " + std::to_string(position) + ": " + error.what();
    return false;
  }

  std::optional<std::int64_t> nbformat;
  std::string language;
  std::vector<RawCell> cells;
  std::string error;

 private:
  struct Frame {
    bool object = false;
    std::string key;  // objects: the key whose value is being read
  };
  bool open(bool object) {
    if (stack_.size() >= kMaxDepth) {
      error = "nested deeper than " + std::to_string(kMaxDepth) + " levels";
      return false;
    }
    stack_.push_back({object, {}});
    return true;
  }
  bool scalar() { return true; }
  std::uint32_t next_token_line() { return lines_.next(); }
  bool at_root_key(std::string_view key) const { return stack_.size() == 1 && stack_[0].object && stack_[0].key == key; }
  // Directly in the cell object, under `key`.
  bool in_cell_key(std::string_view key) const {
    return cell_ && stack_.size() == 3 && stack_[2].object && stack_[2].key == key;
  }
  bool in_source_array() const {
    return cell_ && stack_.size() == 4 && stack_[2].key == "source" && !stack_[3].object;
  }
  bool at_path(std::initializer_list<std::string_view> keys) const {
    if (stack_.size() != keys.size()) return false;
    std::size_t i = 0;
    for (const std::string_view key : keys) {
      if (!stack_[i].object || stack_[i].key != key) return false;
      ++i;
    }
    return true;
  }

  StringTokenLines lines_;
  std::vector<Frame> stack_;
  std::optional<RawCell> cell_;
  std::uint32_t cell_count_ = 0;
};

std::string_view trim_left(std::string_view text) {
  const auto first = text.find_first_not_of(" \t");
  return first == std::string_view::npos ? std::string_view{} : text.substr(first);
}

bool is_identifier_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
}

// An IPython line that is not Python: `%magic`, `!shell`, `x = !ls`, `x = %time f()`, `obj?`, `??obj`.
bool is_ipython_line(std::string_view line) {
  const std::string_view code = trim_left(line);
  if (code.empty() || code[0] == '#') return false;
  if (code[0] == '%' || code[0] == '!' || code[0] == '?') return true;
  std::size_t i = 0;
  while (i < code.size() && is_identifier_char(code[i])) ++i;
  if (i > 0) {
    std::size_t j = i;
    while (j < code.size() && (code[j] == ' ' || code[j] == '\t')) ++j;
    if (j + 1 < code.size() && code[j] == '=' && code[j + 1] != '=') {
      const std::string_view value = trim_left(code.substr(j + 1));
      if (!value.empty() && (value[0] == '%' || value[0] == '!')) return true;
    }
    // `model?`, `np.zeros??`: help, when the line is a name and question marks only.
    if (i < code.size() && code[i] == '?' && code.find_first_not_of("? \t\r", i) == std::string_view::npos) return true;
  }
  return false;
}

// Cell magics whose body is Python (the first line alone is IPython's).
bool cell_magic_runs_python(std::string_view first_line) {
  static constexpr std::array names = {"time", "timeit", "capture", "prun", "debug", "pypy", "python", "python3"};
  std::string_view name = trim_left(first_line).substr(2);
  name = name.substr(0, name.find_first_of(" \t\r"));
  return std::find(names.begin(), names.end(), name) != names.end();
}

// Where a line leaves Python's tokenizer: inside a triple-quoted string, inside brackets, or after a
// backslash. Only a line that starts a statement can be IPython's: `% (a, b)` continuing a
// `print('%d' ...` is Python's modulo, and `%d` inside a docstring is text.
class StatementTracker {
 public:
  bool at_statement_start() const { return depth_ == 0 && open_string_.empty() && !continued_; }
  void read(std::string_view line) {
    continued_ = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
      const char c = line[i];
      if (!open_string_.empty()) {
        if (c == '\\') {
          ++i;
        } else if (line.substr(i, 3) == open_string_) {
          open_string_ = {};
          i += 2;
        }
        continue;
      }
      if (c == '#') return;
      if (c == '\\') {
        continued_ = line.find_first_not_of(" \t\r", i + 1) == std::string_view::npos;
        ++i;
      } else if (c == '"' || c == '\'') {
        if (line.substr(i, 3) == std::string(3, c)) {
          open_string_ = c == '"' ? kTripleDouble : kTripleSingle;
          i += 2;
        } else {  // a one-line string: to its closing quote (an unclosed one ends with the line)
          for (++i; i < line.size() && line[i] != c; ++i)
            if (line[i] == '\\') ++i;
        }
      } else if (c == '(' || c == '[' || c == '{') {
        ++depth_;
      } else if ((c == ')' || c == ']' || c == '}') && depth_ > 0) {
        --depth_;
      }
    }
  }

 private:
  static constexpr std::string_view kTripleDouble = "\"\"\"";
  static constexpr std::string_view kTripleSingle = "'''";
  std::size_t depth_ = 0;
  std::string_view open_string_;
  bool continued_ = false;
};

struct CellLine {
  std::string text;
  std::uint32_t file_line = 0;
};

// A cell's source split into lines (without terminators), each with the file line its text is on.
std::vector<CellLine> cell_lines(const std::vector<SourcePiece>& source) {
  std::vector<CellLine> lines;
  bool open = false;  // the last line has no terminator yet
  for (const SourcePiece& piece : source) {
    std::size_t start = 0;
    while (start <= piece.text.size()) {
      const std::size_t end = piece.text.find('\n', start);
      const std::string_view part =
          std::string_view(piece.text).substr(start, end == std::string::npos ? std::string::npos : end - start);
      if (open) lines.back().text.append(part);
      else if (!part.empty() || end != std::string::npos) lines.push_back({std::string(part), piece.file_line});
      open = end == std::string::npos ? !part.empty() || open : false;
      if (end == std::string::npos) break;
      start = end + 1;
    }
  }
  for (CellLine& line : lines)
    if (!line.text.empty() && line.text.back() == '\r') line.text.pop_back();
  return lines;
}

// The cell's lines as Python: IPython's lines made `pass` (keeping the indentation, so a block
// keeps a statement), a cell magic's whole body blank unless it runs Python.
void add_code_cell(const RawCell& cell, std::string& python, std::vector<NotebookIndex::Line>& index) {
  const std::vector<CellLine> lines = cell_lines(cell.source);
  const bool foreign_cell =
      !lines.empty() && trim_left(lines.front().text).starts_with("%%") && !cell_magic_runs_python(lines.front().text);
  StatementTracker python_lines;
  bool continued = false;  // the previous line was IPython's and ended with a backslash
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string& text = lines[i].text;
    index.push_back({cell.number, static_cast<std::uint32_t>(i + 1), lines[i].file_line});
    const bool magic_line = i == 0 && trim_left(text).starts_with("%%");
    if (foreign_cell || magic_line) {
      python += '\n';
      continue;
    }
    if (continued) {
      continued = !text.empty() && text.back() == '\\';
      python += '\n';
      continue;
    }
    if (python_lines.at_statement_start() && is_ipython_line(text)) {
      python.append(text.substr(0, text.size() - trim_left(text).size())).append("pass\n");
      continued = !text.empty() && text.back() == '\\';
      continue;
    }
    python_lines.read(text);
    python.append(text).append("\n");
  }
}

}  // namespace

NotebookPlace NotebookIndex::place(const SourceRange& range) const {
  NotebookPlace place;
  if (lines_.empty()) return place;
  const auto at = [&](std::uint32_t line) { return lines_[std::clamp<std::size_t>(line, 1, lines_.size()) - 1]; };
  const Line begin = at(range.begin.line);
  Line end = at(std::max(range.begin.line, range.end.line));
  if (end.cell != begin.cell) end = begin;
  place.cell = begin.cell;
  place.line = begin.line;
  place.end_line = end.line;
  place.file_line = begin.file_line;
  place.file_end_line = std::max(begin.file_line, end.file_line);
  return place;
}

bool is_notebook_path(std::string_view path) { return path.ends_with(".ipynb"); }

std::variant<NotebookModule, std::string> notebook_module(std::string_view json_text) {
  NotebookReader reader(json_text);
  const bool parsed = nlohmann::json::sax_parse(json_text, &reader, nlohmann::json::input_format_t::json, true);
  if (!parsed) return reader.error.empty() ? std::string("not valid JSON") : reader.error;
  if (!reader.nbformat) return std::string("not a Jupyter notebook (no \"nbformat\" key)");
  if (*reader.nbformat < 4)
    return "nbformat " + std::to_string(*reader.nbformat) +
           " notebooks are not read (nbformat 4 is: `jupyter nbconvert --to notebook` converts)";
  NotebookModule module{{}, NotebookIndex({})};
  std::string language = reader.language;
  std::transform(language.begin(), language.end(), language.begin(), [](unsigned char c) { return std::tolower(c); });
  if (!language.empty() && language != "python" && !language.starts_with("python")) return module;
  std::vector<NotebookIndex::Line> index;
  for (const RawCell& cell : reader.cells)
    if (cell.type == "code") add_code_cell(cell, module.python, index);
  module.index = NotebookIndex(std::move(index));
  return module;
}

}  // namespace cudnnlint
