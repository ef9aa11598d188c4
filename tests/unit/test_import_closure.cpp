// Which workspace files the language server analyses with a document: the modules its import
// lines may load (python::imported_module_candidates), followed through the project's module
// names (import_closure).
#include "engine/import_closure.h"
#include "python/imports.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>

namespace cudnnlint {
namespace {

namespace fs = std::filesystem;

TEST(ImportedModuleCandidates, AbsoluteRelativeParenthesisedAndAliased) {
  const std::string source =
      "import torch.nn as nn, os\n"
      "from .constants import EPS as E, MOMENTUM  # comment\n"
      "from .. import sibling\n"
      "from pkg.layers import (\n"
      "    norm,  # why\n"
      "    act as activation,\n"
      ")\n"
      "def f():\n"
      "    from .late import X\n"
      "x = 'import nothing'\n";
  const auto got = python::imported_module_candidates(source, {"pkg.sub.model", false});
  const std::vector<std::string> expected = {
      "torch", "torch.nn", "os", "pkg.sub.constants", "pkg.sub.constants.EPS", "pkg.sub.constants.MOMENTUM",
      "pkg", "pkg.sibling", "pkg.layers", "pkg.layers.norm", "pkg.layers.act", "pkg.sub.late", "pkg.sub.late.X"};
  EXPECT_EQ(got, expected);
  // A package's `from . import x` starts at the package itself; above the top package: nothing.
  EXPECT_EQ(python::imported_module_candidates("from . import x\n", {"pkg", true}),
            (std::vector<std::string>{"pkg", "pkg.x"}));
  EXPECT_TRUE(python::imported_module_candidates("from ... import x\n", {"pkg.model", false}).empty());
  // An unclosed parenthesis on the text's last line, with no line break after it (found by
  // fuzz_python: this threw std::out_of_range).
  EXPECT_EQ(python::imported_module_candidates("from torch.utils.data import (DataLoader", {"pkg.model", false}),
            (std::vector<std::string>{"torch.utils.data", "torch.utils.data.DataLoader"}));
}

class ImportClosureTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("cudnnlint-closure-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    write("pkg/__init__.py", "from .layers import norm\n");
    write("pkg/layers/__init__.py", "");
    write("pkg/layers/norm.py", "from ..constants import EPS\n");
    write("pkg/constants.py", "EPS = 0.0\n");
    write("pkg/model.py", "import pkg.layers.norm\nfrom pkg import unrelated_name\n");
    write("pkg/unused.py", "X = 1\n");
    write("scripts/train.py", "from pkg.model import Net\n");
  }
  void TearDown() override { fs::remove_all(root_); }
  void write(const std::string& relative, const std::string& text) {
    fs::create_directories((root_ / relative).parent_path());
    std::ofstream(root_ / relative) << text;
  }
  std::string path(const std::string& relative) const { return (root_ / relative).string(); }
  std::vector<std::string> all() const {
    return {path("pkg/__init__.py"), path("pkg/layers/__init__.py"), path("pkg/layers/norm.py"),
            path("pkg/constants.py"), path("pkg/model.py"), path("pkg/unused.py"), path("scripts/train.py")};
  }
  fs::path root_;
};

TEST_F(ImportClosureTest, FollowsImportsTransitivelyAndNothingElse) {
  const ImportClosure closure = import_closure(path("scripts/train.py"), all(), LoadLimits{});
  EXPECT_FALSE(closure.truncated);
  const std::vector<std::string> expected = {path("scripts/train.py"), path("pkg/model.py"), path("pkg/__init__.py"),
                                             path("pkg/layers/__init__.py"), path("pkg/layers/norm.py"),
                                             path("pkg/constants.py")};
  EXPECT_EQ(closure.files, expected);  // pkg/unused.py is not read
}

TEST_F(ImportClosureTest, ReadsTheOverlayFirstAndStopsAtTheLimit) {
  LoadLimits limits;
  auto overlay = std::make_shared<std::map<std::string, std::string, std::less<>>>();
  (*overlay)[path("pkg/layers/norm.py")] = "X = 1\n";  // the unsaved buffer imports nothing
  limits.overlay = overlay;
  const ImportClosure closure = import_closure(path("pkg/layers/norm.py"), all(), limits);
  EXPECT_EQ(closure.files, std::vector<std::string>{path("pkg/layers/norm.py")});
  const ImportClosure small = import_closure(path("scripts/train.py"), all(), LoadLimits{}, 2);
  EXPECT_TRUE(small.truncated);
  EXPECT_EQ(small.files.size(), 2u);
}

TEST_F(ImportClosureTest, TheGraphKnowsEachFilesImporters) {
  const ImportGraph graph(all(), LoadLimits{});
  EXPECT_EQ(graph.importers_of(path("pkg/layers/norm.py")),
            (std::vector<std::string>{path("pkg/__init__.py"), path("pkg/model.py")}));
  EXPECT_EQ(graph.importers_of(path("pkg/constants.py")), std::vector<std::string>{path("pkg/layers/norm.py")});
  EXPECT_EQ(graph.importers_of(path("pkg/model.py")), std::vector<std::string>{path("scripts/train.py")});
  EXPECT_TRUE(graph.importers_of(path("pkg/unused.py")).empty());
  EXPECT_TRUE(graph.importers_of(path("scripts/train.py")).empty());
}

}  // namespace
}  // namespace cudnnlint

namespace cudnnlint {
namespace {

// What the first pass reads of the names a module may bind to a number, before the project step
// parses a module for the constants another module imports: module-level assignments of numbers,
// and of names, attributes and subscripts with their last name or key (a number where that is
// one), in a module statement's block too; not in a def or a class, not of a call, a string or None.
TEST(NumericBindings, ModuleLevelNumbersAndAliasesWithTheirLeaves) {
  const std::string source =
      "EPS = 1e-8\nN: int = 64\nLR = -3e-4\nSIZE = (2 ** 3)\nTINY = float(\"1e-9\")\nHALF = math.ldexp(1, -1)\n"
      "NAME = \"resnet\"\nALIAS = EPS\nx == 3\n  INDENTED = 1\n9LIVES = 1\ndef f(a=1):\n    B = 2\n"
      "try:\n    IN_TRY = consts.MM_EPS\nexcept ImportError:\n    raise\n"
      "class C:\n    INNER = 3\n@decorated\ndef g():\n    LOCAL = EPS\n"
      "CFG_EPS = cfg[\"model\"][\"eps\"]  # from the YAML\nLOGGER = get_logger(__name__)\nNOTHING = None\n"
      "CFGS = dict(\n    index=0,\n    mean=(0.5, \")\"),\n)\nAFTER = 2\n";
  const python::NumericBindings found = python::numeric_bindings(source);
  EXPECT_EQ(found.numbers, (std::vector<std::string>{"EPS", "N", "LR", "SIZE", "TINY", "HALF", "INDENTED", "AFTER"}));
  EXPECT_EQ(found.aliases, (std::vector<std::pair<std::string, std::string>>{
                               {"ALIAS", "EPS"}, {"IN_TRY", "MM_EPS"}, {"CFG_EPS", "eps"}}));
  EXPECT_TRUE(found.flags.empty());  // no alias reads an args-like object
  EXPECT_TRUE(python::numeric_bindings("").numbers.empty());
}

TEST(NumericBindings, TheFlagsOfAModuleWhoseAliasReadsItsArgs) {
  const std::string source =
      "import argparse\np = argparse.ArgumentParser()\n"
      "p.add_argument(\n    \"--bn-eps\",\n    type=float,\n    default=1e-8,\n)\n"
      "p.add_argument(\"-s\", \"--size\", default=(2), dest=\"image_size\")\n"
      "p.add_argument(\"--name\", default=\"resnet\")\np.add_argument(\"--lr\", default=-3e-4)\n"
      "args = p.parse_args()\nEPS = args.bn_eps\n";
  const python::NumericBindings found = python::numeric_bindings(source);
  EXPECT_EQ(found.aliases, (std::vector<std::pair<std::string, std::string>>{{"EPS", "bn_eps"}}));
  EXPECT_EQ(found.flags, (std::vector<std::string>{"bn_eps", "lr"}));
}

}  // namespace
}  // namespace cudnnlint
