// python::IncrementalTree, the language server's per-document tree: after any sequence of edits
// its tree is the tree a fresh parse of the final text gives, and the analysis uses it only when
// its text is the file's.
#include "python/frontend.h"
#include "python/incremental_tree.h"

#include "core/api_table.h"
#include "core/source_file.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <random>
#include <string>

namespace cudnnlint::python {
namespace {

std::string sexp(const TSTree* tree) {
  char* text = ts_node_string(ts_tree_root_node(tree));
  std::string out(text);
  std::free(text);
  return out;
}

std::string fresh_sexp(const std::string& text) {
  const Parser parser;
  return sexp(parser.parse(text).get());
}

// Applies the edit to `text` and tells the tree.
void edit(IncrementalTree& tree, std::string& text, std::size_t begin, std::size_t end, const std::string& inserted) {
  tree.edit(text, begin, end, inserted);
  text.replace(begin, end - begin, inserted);
}

const std::string kModel =
    "import torch.nn as nn\n"
    "\n"
    "class Net(nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.bn = nn.BatchNorm2d(8, eps=1e-5)\n"
    "\n"
    "    def forward(self, x):\n"
    "        return self.bn(x)\n";

TEST(IncrementalTree, FirstParseIsWholeAndEditsReuseTheTree) {
  IncrementalTree tree;
  std::string text = kModel;
  auto first = tree.parse(text);
  EXPECT_FALSE(tree.last_parse_was_incremental());
  EXPECT_EQ(tree.parse(text), first);  // no edit: the same snapshot
  EXPECT_FALSE(first->parsed());       // nothing asked for the tree yet: nothing parsed
  ASSERT_NE(first->tree(), nullptr);
  EXPECT_TRUE(first->parsed());
  const std::size_t at = text.find("1e-5");
  edit(tree, text, at, at + 4, "0.0");
  auto second = tree.parse(text);
  EXPECT_TRUE(tree.last_parse_was_incremental());
  EXPECT_NE(second, first);
  EXPECT_EQ(second->text, text);
  EXPECT_EQ(sexp(second->tree()), fresh_sexp(text));
  EXPECT_EQ(sexp(first->tree()), fresh_sexp(kModel));  // an earlier snapshot is untouched
}

// Snapshots nobody asks the tree of: the edits pile up on the last tree parsed, and the next tree
// asked for is reparsed from it with all of them.
TEST(IncrementalTree, EditsPileUpUntilATreeIsAskedFor) {
  IncrementalTree tree;
  std::string text = kModel;
  ASSERT_NE(tree.parse(text)->tree(), nullptr);
  for (int step = 0; step < 30; ++step) {
    const std::size_t at = text.find("eps=") + 4;
    const std::string inserted = step % 3 == 0 ? "\n" : "1";
    edit(tree, text, at, at, inserted);
    const auto snapshot = tree.parse(text);
    EXPECT_TRUE(tree.last_parse_was_incremental());
    if (step % 7 == 6) {
      ASSERT_EQ(sexp(snapshot->tree()), fresh_sexp(text)) << "after edit " << step;
    }
  }
  ASSERT_EQ(sexp(tree.parse(text)->tree()), fresh_sexp(text));
}

TEST(IncrementalTree, ManyRandomEditsAcrossLinesMatchAFreshParse) {
  IncrementalTree tree;
  std::string text = kModel + kModel;
  tree.parse(text);
  std::mt19937 random(7);
  const std::string pieces[] = {"x", "\n", "    ", "(", ")", "nn.BatchNorm1d(4, eps=0)\n", "é", "\"\"\"", "#", ""};
  for (int step = 0; step < 300; ++step) {
    const std::size_t begin = random() % (text.size() + 1);
    const std::size_t end = std::min(text.size(), begin + random() % 12);
    edit(tree, text, begin, end, pieces[random() % std::size(pieces)]);
    if (step % 3 == 0) {
      ASSERT_EQ(sexp(tree.parse(text)->tree()), fresh_sexp(text)) << "after edit " << step;
    }
  }
  ASSERT_EQ(sexp(tree.parse(text)->tree()), fresh_sexp(text));
}

TEST(IncrementalTree, ResetParsesFromNothing) {
  IncrementalTree tree;
  tree.parse(kModel);
  tree.reset();
  const std::string other = "x = 1\n";
  EXPECT_EQ(sexp(tree.parse(other)->tree()), fresh_sexp(other));
  EXPECT_FALSE(tree.last_parse_was_incremental());
}

// The analysis takes the tree for the file it belongs to, and parses any other text itself.
TEST(IncrementalTree, TheAnalysisUsesTheTreeOnlyForItsOwnText) {
  IncrementalTree tree;
  const std::string with_zero = "import torch.nn as nn\nbn = nn.BatchNorm2d(8, eps=0.0)\n";
  const std::string with_default = "import torch.nn as nn\nbn = nn.BatchNorm2d(8)\n";
  PythonOptions options;
  options.mode = ParseMode::Full;
  options.parsed = tree.parse(with_zero);
  const Parser parser;
  auto eps_of = [&](const std::string& text) {
    const SourceFile file("model.py", text);
    const PythonAnalysis analysis = analyze_python(file, ApiTable::builtin(), parser, options);
    if (analysis.facts.normalizations.size() != 1) return std::string("no fact");
    const NormalizationFact& fact = analysis.facts.normalizations[0];
    return fact.eps.source == ValueSource::Explicit && fact.eps.value ? fact.eps.value->spelling : std::string("default");
  };
  EXPECT_EQ(eps_of(with_zero), "0.0");
  EXPECT_EQ(eps_of(with_default), "default");  // another text: its own parse, not the tree's facts
}

// In Regions mode the plan comes first for the server's document too: a text in which no region
// is relevant gets the command line's answer (frameworks, suppressions, no facts) without its tree
// ever being parsed; a text with a relevant region is analysed.
TEST(IncrementalTree, ADocumentWithNothingRelevantIsAnsweredFromItsPlanWithoutItsTree) {
  PythonOptions options;
  options.mode = ParseMode::Regions;
  options.families = {std::string(kNormalizationFamily)};
  options.trigger_words = ApiTable::builtin().trigger_words(options.families);
  options.triggers = ApiTable::builtin().quoted_tokens(options.families);
  const Parser parser;
  IncrementalTree tree;
  const std::string quiet =
      "import torch\n# nn.BatchNorm2d(8, eps=0.0), in a comment only\n\ndef double(x):\n"
      "    return 2 * x  # cudnnlint: ignore[cudnn-bn-eps-too-small]\n";
  options.parsed = tree.parse(quiet);
  const PythonAnalysis answered = analyze_python(SourceFile("model.py", quiet), ApiTable::builtin(), parser, options);
  EXPECT_FALSE(options.parsed->parsed());
  EXPECT_EQ(answered.parsed_bytes, 0u);
  EXPECT_TRUE(answered.facts.normalizations.empty());
  EXPECT_EQ(answered.facts.frameworks, std::vector<std::string>{"torch"});
  EXPECT_EQ(answered.facts.suppressions.size(), 1u);

  const std::string relevant = quiet + "bn = torch.nn.BatchNorm2d(8, eps=0.0)\n";
  options.parsed = tree.parse(relevant);
  const PythonAnalysis analysed = analyze_python(SourceFile("model.py", relevant), ApiTable::builtin(), parser, options);
  EXPECT_GT(analysed.parsed_bytes, 0u);
  EXPECT_EQ(analysed.facts.normalizations.size(), 1u);
}

}  // namespace
}  // namespace cudnnlint::python
