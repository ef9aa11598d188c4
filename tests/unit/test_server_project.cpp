// The language server's workspace (server::Project): a document is analysed with files the
// workspace walk found, taken as they are, and with module indexes kept from one keystroke to the
// next until files come or go.
#include "engine/analysis.h"
#include "engine/module_index.h"
#include "server/project.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
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

}  // namespace
}  // namespace cudnnlint::server
