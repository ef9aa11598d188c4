// Jupyter notebooks (.ipynb, nbformat 4) read as Python: the code cells, in order, make one module,
// as Ruff reads them. IPython's magics and shell lines become `pass` (a block keeps a statement) or
// blank lines, so every line of the module is one line of one cell and the front-end never sees
// IPython syntax. The index maps the module's lines back to the notebook: the cell (counted as
// Jupyter shows them, 1-based over every cell, Markdown included, as Ruff counts them), the line in
// that cell, and the line of the .ipynb file holding it (SARIF and GitHub point at the file).
#pragma once

#include "core/location.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace cudnnlint {

// Where a range of the module sits in the notebook.
struct NotebookPlace {
  std::uint32_t cell = 0;        // 1-based, every cell counted
  std::uint32_t line = 0;        // 1-based line in the cell
  std::uint32_t end_line = 0;    // the range's last line in the same cell (its cell's last line if it ends in another)
  std::uint32_t file_line = 0;   // 1-based line of the .ipynb file that holds `line`
  std::uint32_t file_end_line = 0;
};

class NotebookIndex {
 public:
  struct Line {
    std::uint32_t cell = 0;
    std::uint32_t line = 0;
    std::uint32_t file_line = 0;
  };
  explicit NotebookIndex(std::vector<Line> lines) : lines_(std::move(lines)) {}
  // The place of a range of the module; a line past the last (the module's end) maps to the last.
  NotebookPlace place(const SourceRange& range) const;
  std::size_t line_count() const { return lines_.size(); }

 private:
  std::vector<Line> lines_;  // by the module's line - 1
};

struct NotebookModule {
  std::string python;  // the code cells, each ending with a newline
  NotebookIndex index;
};

// "a/b.ipynb": read as a notebook.
bool is_notebook_path(std::string_view path);

// The notebook's code cells as one module, or why it cannot be read ("not valid JSON at byte 120:
// ...", "nbformat 3 ..."). A notebook whose kernel's language is not Python gives an empty module.
// The JSON is read without recursion and nested at most 64 deep.
std::variant<NotebookModule, std::string> notebook_module(std::string_view json_text);

}  // namespace cudnnlint
