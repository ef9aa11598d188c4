// The language server's workspace (server::Project): a document is analysed with files the
// workspace walk found, taken as they are, and with module indexes kept from one keystroke to the
// next until files come or go; a YAML or JSON document with the code that reads it
// (server/config_readers.h).
#include "engine/analysis.h"
#include "engine/module_index.h"
#include "python/regions.h"
#include "server/config_readers.h"
#include "server/project.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace cudnnlint::server {
namespace {

namespace fs = std::filesystem;

class ServerProjectTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("cudnnlint-server-project-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    write("pkg/__init__.py", "");
    write("pkg/constants.py", "NEG_EPS = -1e-5\n");
    write("pkg/model.py",
          "import torch.nn as nn\n"
          "from .constants import NEG_EPS\n"
          "bn = nn.BatchNorm2d(8, eps=NEG_EPS)\n");
    write("loose/mod.py", "X = 1\n");
    write("configs/train.yaml", "model:\n  bn_eps: -1.0e-3\n");
    write("train.py",
          "import torch.nn as nn\n"
          "from pkg.layers import make\n"
          "cfg = load(open('configs/train.yaml'))\n"
          "a = nn.BatchNorm2d(8, eps=cfg.model.bn_eps)\n");
    write("pkg/layers.py", "def make():\n    pass\n");
    write("unrelated.py", "bn_epsilon = 1\n");  // a longer word is not the key
    project_.set_root(root_.string());
  }
  void TearDown() override { fs::remove_all(root_); }
  void write(const std::string& relative, const std::string& text) {
    fs::create_directories((root_ / relative).parent_path());
    std::ofstream(root_ / relative) << text;
  }
  std::string path(const std::string& relative) const { return (root_ / relative).string(); }
  AnalysisOptions options_for(const std::string& relative) {
    std::string note;
    AnalysisOptions options = project_.options_for(path(relative), nullptr, {}, nullptr, note);
    options.cache.enabled = false;
    return options;
  }
  static std::vector<std::string> findings_of(const AnalysisResult& result) {
    std::vector<std::string> out;
    for (const Finding& f : result.findings)
      out.push_back(f.rule_id + " " + f.location.path + ":" + std::to_string(f.location.range.begin.line));
    return out;
  }

  fs::path root_;
  std::ostringstream log_;
  Project project_{log_};
};

TEST_F(ServerProjectTest, AWorkspaceDocumentIsAnalysedAsTheCommandLineWouldWithoutAnotherDiscovery) {
  const AnalysisOptions options = options_for("pkg/model.py");
  EXPECT_TRUE(options.paths_discovered);
  ASSERT_NE(options.module_indexes, nullptr);
  const AnalysisResult kept = analyze(options);
  // The same files, discovered again and indexed anew: the command line's way.
  AnalysisOptions reference = options;
  reference.paths_discovered = false;
  reference.module_indexes = nullptr;
  const AnalysisResult fresh = analyze(reference);
  EXPECT_EQ(findings_of(kept), findings_of(fresh));
  EXPECT_EQ(findings_of(kept), std::vector<std::string>{"bn-eps-negative " + path("pkg/model.py") + ":3"});
  EXPECT_EQ(kept.files_discovered, fresh.files_discovered);
}

TEST_F(ServerProjectTest, ADocumentTheWalkDidNotFindIsDiscoveredAsOnTheCommandLine) {
  EXPECT_TRUE(options_for("pkg/model.py").paths_discovered);  // the workspace is walked here
  write("pkg/new_model.py", "from .constants import NEG_EPS\n");  // after the walk: its list lacks it
  const AnalysisOptions options = options_for("pkg/new_model.py");
  EXPECT_FALSE(options.paths_discovered);
  EXPECT_EQ(options.paths.front(), path("pkg/new_model.py"));
}

TEST_F(ServerProjectTest, ADocumentOnlyInTheEditorIsAnalysedFromItsBuffer) {
  // A new file, not saved yet: discovery refused it ("no such file or directory"), so an editor
  // showed that instead of its findings. In the workspace (with what it imports) and outside it.
  const std::string text = "import torch.nn as nn\nfrom pkg.constants import NEG_EPS\nbn = nn.BatchNorm2d(8, eps=0.0)\n";
  const fs::path outside = fs::temp_directory_path() / ("cudnnlint-unsaved-" + std::to_string(::getpid()) + ".py");
  for (const std::string& file : {path("pkg/new.py"), outside.string()}) {
    ASSERT_FALSE(fs::exists(file));
    auto overlay = std::make_shared<std::map<std::string, std::string, std::less<>>>();
    (*overlay)[file] = text;
    std::string note;
    AnalysisOptions options = project_.options_for(file, overlay, {}, nullptr, note);
    options.cache.enabled = false;
    const AnalysisResult result = analyze(options);
    for (const FileDiagnostic& d : result.diagnostics) EXPECT_NE(d.path, file) << d.message;
    std::vector<std::string> found;
    for (const std::string& finding : findings_of(result))
      if (finding.find(file) != std::string::npos) found.push_back(finding);
    EXPECT_EQ(found, std::vector<std::string>{"bn-eps-zero " + file + ":3"});
  }
}

TEST_F(ServerProjectTest, ModuleIndexesAreKeptUntilFilesComeOrGo) {
  const auto first = options_for("loose/mod.py").module_indexes;
  EXPECT_EQ(options_for("loose/mod.py").module_indexes, first);
  const std::vector<std::string> files{path("loose/mod.py")};
  EXPECT_EQ(first->index_for(files), first->index_for(files));  // built once
  EXPECT_EQ(first->index_for(files)->of(0).name, "mod");
  // An __init__.py makes the folder a package: the kept index cannot know, so the editor's report
  // that files came replaces it.
  write("loose/__init__.py", "");
  EXPECT_EQ(first->index_for(files)->of(0).name, "mod");
  project_.files_came_or_went();
  const auto second = options_for("loose/mod.py").module_indexes;
  EXPECT_NE(second, first);
  EXPECT_EQ(second->index_for(files)->of(0).name, "loose.mod");
}

TEST(ConfigReaders, KeysOfYamlAndJsonAndWholeWords) {
  EXPECT_EQ(config_keys("model:\n  bn_eps: -1e-3  # why\n  - name: a\n  'quoted': 1\nurl: http://x\n"
                        "not a key\n3d: 1\nbn_eps: again\n"),
            (std::vector<std::string>{"model", "bn_eps", "name", "quoted", "url"}));
  EXPECT_EQ(config_keys("{\"batch_norm_eps\": -0.001, \"hidden_size\": 8,\n \"text\": \"a: b\"}\n"),
            (std::vector<std::string>{"batch_norm_eps", "hidden_size", "text"}));
  EXPECT_TRUE(python::mentions_identifier("eps=cfg.model.bn_eps)", "bn_eps"));
  EXPECT_FALSE(python::mentions_identifier("bn_epsilon = my_bn_eps2", "bn_eps"));
  EXPECT_TRUE(python::mentions_identifier("bn_epsilon, bn_eps", "bn_eps"));
}

TEST_F(ServerProjectTest, AConfigDocumentIsAnalysedWithTheCodeThatReadsIt) {
  const AnalysisOptions options = options_for("configs/train.yaml");
  EXPECT_TRUE(options.paths_discovered);
  // The document, its reader and what the reader imports; not a file whose longer word contains a key.
  EXPECT_EQ(options.paths.front(), path("configs/train.yaml"));
  const std::set<std::string> paths(options.paths.begin(), options.paths.end());
  EXPECT_TRUE(paths.contains(path("train.py")));
  EXPECT_TRUE(paths.contains(path("pkg/layers.py")));
  EXPECT_FALSE(paths.contains(path("unrelated.py")));
  EXPECT_FALSE(paths.contains(path("pkg/model.py")));
  const AnalysisResult result = analyze(options);
  EXPECT_EQ(findings_of(result), std::vector<std::string>{"bn-eps-negative " + path("configs/train.yaml") + ":2"});
}

TEST_F(ServerProjectTest, AnUnsavedBufferThatNamesAKeyReadsTheConfigAndTheDiskIsReadOncePerKey) {
  ConfigReaders readers;
  const std::vector<std::string> python{path("train.py"), path("unrelated.py"), path("pkg/model.py")};
  const std::vector<std::string> keys{"model", "bn_eps"};
  EXPECT_EQ(readers.readers(keys, python, LoadLimits{}), std::vector<std::string>{path("train.py")});
  // On disk after the first look: the kept answer stands until clear().
  write("pkg/model.py", "x = bn_eps\n");
  EXPECT_EQ(readers.readers(keys, python, LoadLimits{}), std::vector<std::string>{path("train.py")});
  readers.clear();
  EXPECT_EQ(readers.readers(keys, python, LoadLimits{}), (std::vector<std::string>{path("train.py"), path("pkg/model.py")}));
  // The editor's buffers are read on every call, in place of the disk; a file naming both keys
  // comes before one naming one, whatever the list's order.
  LoadLimits limits;
  auto overlay = std::make_shared<std::map<std::string, std::string, std::less<>>>();
  (*overlay)[path("train.py")] = "nothing here\n";
  (*overlay)[path("unrelated.py")] = "eps = bn_eps\n";
  (*overlay)[path("pkg/model.py")] = "eps = cfg.model.bn_eps\n";
  limits.overlay = overlay;
  EXPECT_EQ(readers.readers(keys, python, limits), (std::vector<std::string>{path("pkg/model.py"), path("unrelated.py")}));
}

}  // namespace
}  // namespace cudnnlint::server
