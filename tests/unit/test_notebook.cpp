// Notebooks read as Python: the code cells as one module, IPython's lines out of the front-end's
// way, every line mapped back to its cell and to the .ipynb file's line.
#include "core/notebook.h"
#include "core/source_file.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace cudnnlint {
namespace {

// A notebook as nbformat writes it (indent 1, one source line per JSON line).
const std::string kNotebook = R"nb({
 "cells": [
  {
   "cell_type": "markdown",
   "metadata": {},
   "source": [
    "# Training\n",
    "x = 1\n"
   ]
  },
  {
   "cell_type": "code",
   "execution_count": 1,
   "metadata": {},
   "outputs": [],
   "source": [
    "%matplotlib inline\n",
    "import torch.nn as nn\n",
    "!pip install torch\n",
    "bn = nn.BatchNorm2d(8, eps=0)"
   ]
  },
  {
   "cell_type": "code",
   "execution_count": null,
   "metadata": {},
   "outputs": [],
   "source": [
    "for i in range(2):\n",
    "    !nvidia-smi\n",
    "files = !ls\n",
    "doc = \"\"\"\n",
    "%not a magic inside a string\n",
    "\"\"\"\n",
    "nn.BatchNorm2d?\n",
    "print('%d of %d'\n",
    "      % (1, 2))\n",
    "total = 1 + \\\n",
    "    2"
   ]
  },
  {
   "cell_type": "code",
   "metadata": {},
   "outputs": [],
   "source": "%%bash\necho hi\nls\n"
  },
  {
   "cell_type": "code",
   "metadata": {},
   "outputs": [],
   "source": "%%time\ny = 2\n"
  }
 ],
 "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}},
 "nbformat": 4,
 "nbformat_minor": 5
}
)nb";

NotebookModule module_of(const std::string& json) {
  auto module = notebook_module(json);
  if (auto* error = std::get_if<std::string>(&module)) ADD_FAILURE() << *error;
  return std::holds_alternative<NotebookModule>(module) ? std::get<NotebookModule>(std::move(module))
                                                        : NotebookModule{{}, NotebookIndex({})};
}

TEST(Notebook, CodeCellsMakeOneModuleWithIPythonLinesAsPassOrBlank) {
  const NotebookModule module = module_of(kNotebook);
  EXPECT_EQ(module.python,
            "pass\n"
            "import torch.nn as nn\n"
            "pass\n"
            "bn = nn.BatchNorm2d(8, eps=0)\n"
            "for i in range(2):\n"
            "    pass\n"
            "pass\n"
            "doc = \"\"\"\n"
            "%not a magic inside a string\n"
            "\"\"\"\n"
            "pass\n"
            "print('%d of %d'\n"
            "      % (1, 2))\n"  // Python's modulo continuing the call, not a magic
            "total = 1 + \\\n"
            "    2\n"
            "\n\n\n"   // %%bash: the whole cell is another language
            "\n"       // %%time: its line only
            "y = 2\n");
  EXPECT_EQ(module.index.line_count(), 20u);
}

TEST(Notebook, LinesMapToTheirCellCountingEveryCellAndToTheFileLine) {
  const NotebookModule module = module_of(kNotebook);
  auto at = [&](std::uint32_t line) {
    SourceRange range;
    range.begin.line = range.end.line = line;
    return module.index.place(range);
  };
  // `bn = ...` is module line 4: cell 2 (the Markdown cell is cell 1), its line 4, file line 20.
  EXPECT_EQ(at(4).cell, 2u);
  EXPECT_EQ(at(4).line, 4u);
  EXPECT_EQ(at(4).file_line, 20u);
  EXPECT_EQ(at(5).cell, 3u);
  EXPECT_EQ(at(5).line, 1u);
  EXPECT_EQ(at(5).file_line, 29u);
  // A source given as one string: every line is on the string's file line.
  EXPECT_EQ(at(20).cell, 5u);
  EXPECT_EQ(at(20).line, 2u);
  EXPECT_EQ(at(20).file_line, 52u);
  // A range running into the next cell ends in its own cell.
  SourceRange across;
  across.begin.line = 4;
  across.end.line = 6;
  EXPECT_EQ(module.index.place(across).end_line, 4u);
  EXPECT_EQ(module.index.place(across).file_end_line, 20u);
}

TEST(Notebook, WhatIsNotANotebookIsRefusedWithTheReason) {
  auto error = [](const std::string& json) {
    auto module = notebook_module(json);
    return std::holds_alternative<std::string>(module) ? std::get<std::string>(module) : std::string("(read)");
  };
  EXPECT_NE(error("{\"cells\": [").find("not valid JSON at byte"), std::string::npos);
  EXPECT_NE(error("{\"cells\": []}").find("no \"nbformat\" key"), std::string::npos);
  EXPECT_NE(error("{\"nbformat\": 3, \"worksheets\": []}").find("nbformat 3 notebooks are not read"), std::string::npos);
  // Nesting is bounded (the reader keeps a stack; nothing recurses on the input's depth).
  const std::string deep = "{\"nbformat\": 4, \"cells\": " + std::string(100000, '[') + std::string(100000, ']') + "}";
  EXPECT_NE(error(deep).find("nested deeper than 64 levels"), std::string::npos);
}

TEST(Notebook, AnotherLanguagesKernelGivesAnEmptyModule) {
  const std::string r = R"({"cells": [{"cell_type": "code", "source": ["x <- 1\n"]}],
    "metadata": {"kernelspec": {"language": "R"}}, "nbformat": 4, "nbformat_minor": 5})";
  EXPECT_EQ(module_of(r).python, "");
  const std::string py = R"({"cells": [{"cell_type": "code", "source": ["x = 1\r\n", "y = 2"]}],
    "metadata": {"language_info": {"name": "python"}}, "nbformat": 4, "nbformat_minor": 5})";
  EXPECT_EQ(module_of(py).python, "x = 1\ny = 2\n");
}

TEST(Notebook, LoadSourceFileReadsANotebookAsItsModuleAndSaysWhyNot) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("cudnnlint-nb-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "train.ipynb") << kNotebook;
  std::ofstream(dir / "broken.ipynb") << "{\"cells\": 1";
  std::ofstream(dir / "nul.ipynb")
      << R"({"cells": [{"cell_type": "code", "source": ["x = '\u0000'\n"]}], "nbformat": 4, "nbformat_minor": 5})";
  const auto loaded = load_source_file((dir / "train.ipynb").string(), LoadLimits{});
  ASSERT_TRUE(std::holds_alternative<SourceFile>(loaded));
  const SourceFile& file = std::get<SourceFile>(loaded);
  ASSERT_NE(file.notebook(), nullptr);
  EXPECT_EQ(file.line_text(4), "bn = nn.BatchNorm2d(8, eps=0)");
  const auto broken = load_source_file((dir / "broken.ipynb").string(), LoadLimits{});
  ASSERT_TRUE(std::holds_alternative<LoadError>(broken));
  EXPECT_NE(std::get<LoadError>(broken).message.find("not a readable notebook: not valid JSON"), std::string::npos);
  const auto nul = load_source_file((dir / "nul.ipynb").string(), LoadLimits{});
  ASSERT_TRUE(std::holds_alternative<LoadError>(nul));
  EXPECT_NE(std::get<LoadError>(nul).message.find("NUL"), std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(Notebook, TheSizeLimitIsTheCodesAndTheFileMayHoldOutputsBeside) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("cudnnlint-nb-size-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
  std::filesystem::create_directories(dir);
  auto notebook = [&](const std::string& name, std::size_t code_bytes, std::size_t output_bytes) {
    std::ofstream(dir / name) << R"({"cells": [{"cell_type": "code", "source": ["x = ')" << std::string(code_bytes, 'a')
                              << R"('\n"], "outputs": [{"data": {"image/png": ")" << std::string(output_bytes, 'A')
                              << R"("}}]}], "nbformat": 4, "nbformat_minor": 5})";
    LoadLimits limits;
    limits.max_bytes = 1000;
    return load_source_file((dir / name).string(), limits);
  };
  const auto plots = notebook("plots.ipynb", 100, 9000);
  EXPECT_TRUE(std::holds_alternative<SourceFile>(plots))
      << (std::holds_alternative<LoadError>(plots) ? std::get<LoadError>(plots).message : "");
  const auto code = notebook("code.ipynb", 2000, 0);
  ASSERT_TRUE(std::holds_alternative<LoadError>(code));
  EXPECT_NE(std::get<LoadError>(code).message.find("its code cells hold 2007 bytes, above the 1000-byte limit"),
            std::string::npos);
  const auto huge = notebook("huge.ipynb", 100, 17000);
  ASSERT_TRUE(std::holds_alternative<LoadError>(huge));
  EXPECT_NE(std::get<LoadError>(huge).message.find("above the 16000-byte limit (16 times --max-file-size for a notebook)"),
            std::string::npos);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace cudnnlint
