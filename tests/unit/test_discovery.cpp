// File discovery on real directory trees built under the system temp directory. Every tree
// has a `.git` at its root so that the upward search for a repository stops there, whatever
// surrounds the temp directory.
#include "discovery/discovery.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace cudnnlint {
namespace {

namespace fs = std::filesystem;
using Files = std::vector<std::string>;

// A scratch directory tree, removed (whatever its permissions) when the test ends.
class TempTree {
 public:
  TempTree() {
    static std::atomic<int> counter{0};
    root_ = fs::temp_directory_path() /
            ("cudnnlint-discovery-" + std::to_string(::getpid()) + "-" +
             std::to_string(std::random_device{}()) + "-" + std::to_string(counter++));
    fs::create_directories(root_);
    root_ = fs::canonical(root_);  // so that absolute spellings in tests are the physical ones
  }
  ~TempTree() {
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(root_, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (it->is_directory(ec) && !it->is_symlink(ec)) {
        fs::permissions(it->path(), fs::perms::owner_all, fs::perm_options::add, ec);
      }
    }
    fs::remove_all(root_, ec);
  }
  TempTree(const TempTree&) = delete;
  TempTree& operator=(const TempTree&) = delete;

  const fs::path& root() const { return root_; }

  void file(std::string_view relative, std::string_view contents = "") const {
    const fs::path path = root_ / relative;
    fs::create_directories(path.parent_path());
    std::ofstream out(path, std::ios::binary);
    out << contents;
  }

  void dir(std::string_view relative) const { fs::create_directories(root_ / relative); }

 private:
  fs::path root_;
};

// Runs the test with the tree as the current directory, as a user would run the tool.
class CurrentDirectory {
 public:
  explicit CurrentDirectory(const fs::path& directory) : previous_(fs::current_path()) {
    fs::current_path(directory);
  }
  ~CurrentDirectory() {
    std::error_code ec;
    fs::current_path(previous_, ec);
  }
  CurrentDirectory(const CurrentDirectory&) = delete;
  CurrentDirectory& operator=(const CurrentDirectory&) = delete;

 private:
  fs::path previous_;
};

class Discovery : public ::testing::Test {
 protected:
  Discovery() { tree_.dir(".git/info"); }

  DiscoveryResult run(std::vector<std::string> paths, const DiscoveryOptions& options = {}) {
    return discover(paths, options);
  }

  Files files(std::vector<std::string> paths, const DiscoveryOptions& options = {}) {
    DiscoveryResult result = run(std::move(paths), options);
    EXPECT_TRUE(result.diagnostics.empty()) << result.diagnostics.front().path << ": "
                                            << result.diagnostics.front().message;
    EXPECT_FALSE(result.usage_error);
    return result.files;
  }

  TempTree tree_;
  CurrentDirectory cwd_{tree_.root()};
};

// ---------------------------------------------------------------------------------------------
// Walking and spelling

TEST_F(Discovery, WalksListedExtensionsRecursivelySorted) {
  tree_.file("z.py");
  tree_.file("a.py");
  tree_.file("stubs.pyi");
  tree_.file("notes.txt");
  tree_.file("kernel.cu");
  tree_.file("pkg/b.py");
  tree_.file("pkg/deep/er/c.py");
  tree_.file("pkg/readme.md");
  tree_.file(".hidden/d.py");  // hidden directories are walked, as Ruff does
  // C++/CUDA sources are walked too (the C++ front-end reads them).
  EXPECT_EQ(files({"."}),
            (Files{".hidden/d.py", "a.py", "kernel.cu", "pkg/b.py", "pkg/deep/er/c.py", "stubs.pyi", "z.py"}));
}

TEST_F(Discovery, ExtensionsOptionDecidesWhatAWalkTakes) {
  tree_.file("a.py");
  tree_.file("k.cu");
  tree_.file("m.cpp");
  tree_.file(".cu");  // a name that is only an extension is not a ".cu" file
  DiscoveryOptions options;
  options.extensions = {"cu", ".cpp"};
  EXPECT_EQ(files({"."}, options), (Files{"k.cu", "m.cpp"}));
}

TEST_F(Discovery, KeepsTheUsersSpellingAsPrefix) {
  tree_.file("examples/foo.py");
  tree_.file("examples/sub/bar.py");
  const Files expected{"examples/foo.py", "examples/sub/bar.py"};
  EXPECT_EQ(files({"examples"}), expected);
  EXPECT_EQ(files({"examples/"}), expected);
  EXPECT_EQ(files({"./examples"}), expected);
  EXPECT_EQ(files({".//examples//"}), expected);
  EXPECT_EQ(files({"examples/./sub/.."}), expected);
  EXPECT_EQ(files({"./"}), expected);

  const std::string absolute = tree_.root().generic_string();
  EXPECT_EQ(files({absolute + "/examples/sub/"}), Files{absolute + "/examples/sub/bar.py"});
  EXPECT_EQ(files({"./examples/foo.py"}), Files{"examples/foo.py"});

  CurrentDirectory inside(tree_.root() / "examples" / "sub");
  EXPECT_EQ(files({"../"}), (Files{"../foo.py", "../sub/bar.py"}));
}

TEST_F(Discovery, OutputIsSortedAndUnique) {
  tree_.file("b.py");
  tree_.file("a.py");
  tree_.file("sub/c.py");
  const std::string absolute_b = (tree_.root() / "b.py").generic_string();
  // The same files named several ways: each appears once, spelled as first named.
  EXPECT_EQ(files({"sub", ".", "sub/c.py", "./sub/c.py", "b.py", absolute_b}),
            (Files{"a.py", "b.py", "sub/c.py"}));
  EXPECT_EQ(files({absolute_b, "."}), (Files{absolute_b, "a.py", "sub/c.py"}));
}

TEST_F(Discovery, NamedFileIsTakenWhateverItsExtensionAndEvenIfIgnored) {
  tree_.file(".gitignore", "ignored.py\nbuild/\n");
  tree_.file("ignored.py");
  tree_.file("notes.txt");
  tree_.file("build/gen.py");
  tree_.file("kept.py");
  EXPECT_EQ(files({"."}), Files{"kept.py"});
  EXPECT_EQ(files({"ignored.py", "notes.txt", "build/gen.py"}),
            (Files{"build/gen.py", "ignored.py", "notes.txt"}));
}

TEST_F(Discovery, MissingPathIsAUsageErrorWithADiagnostic) {
  tree_.file("a.py");
  const DiscoveryResult result = run({"nope", "a.py", "nope/too.py", ""});
  EXPECT_TRUE(result.usage_error);
  EXPECT_EQ(result.files, Files{"a.py"});
  ASSERT_EQ(result.diagnostics.size(), 3u);
  const Files expected_paths{"nope", "nope/too.py", ""};
  for (std::size_t i = 0; i < result.diagnostics.size(); ++i) {
    EXPECT_EQ(result.diagnostics[i].severity, FileDiagnostic::Severity::Error);
    EXPECT_EQ(result.diagnostics[i].path, expected_paths[i]);
    EXPECT_EQ(result.diagnostics[i].message, "no such file or directory");
    EXPECT_FALSE(result.diagnostics[i].position.has_value());
  }
}

TEST_F(Discovery, NoPathsFindsNothing) {
  const DiscoveryResult result = run({});
  EXPECT_TRUE(result.files.empty());
  EXPECT_TRUE(result.diagnostics.empty());
  EXPECT_FALSE(result.usage_error);
}

// ---------------------------------------------------------------------------------------------
// Default exclusions

TEST_F(Discovery, SkipsRuffsDefaultExcludedDirectoriesAtAnyDepth) {
  const std::vector<std::string> excluded = {
      ".bzr", ".direnv", ".eggs", ".git-rewrite", ".hg", ".ipynb_checkpoints", ".mypy_cache",
      ".nox", ".pants.d", ".pyenv", ".pytest_cache", ".pytype", ".ruff_cache", ".svn", ".tox",
      ".venv", ".vscode", "__pypackages__", "_build", "buck-out", "build", "dist",
      "node_modules", "site-packages", "venv", "__pycache__"};
  for (const std::string& name : excluded) {
    EXPECT_TRUE(is_default_excluded_directory(name)) << name;
    tree_.file(name + "/x.py");
    tree_.file("pkg/" + name + "/y.py");
  }
  tree_.file(".git/hooks/z.py");
  tree_.file("pkg/ok.py");
  tree_.file("builds/ok.py");  // only exact names are excluded
  tree_.file("my_venv/ok.py");
  tree_.file("dist.py");       // and only directories
  EXPECT_EQ(files({"."}), (Files{"builds/ok.py", "dist.py", "my_venv/ok.py", "pkg/ok.py"}));
  EXPECT_FALSE(is_default_excluded_directory("src"));
}

TEST_F(Discovery, SkipsAVirtualenvUnderAnyNameButWalksANamedOne) {
  tree_.file("env-3.11/pyvenv.cfg", "home = /usr/bin\n");
  tree_.file("env-3.11/lib/python3.11/torch_stub.py");
  tree_.file("pkg/.pyenv-x/pyvenv.cfg");
  tree_.file("pkg/.pyenv-x/bin/activate_this.py");
  tree_.file("pkg/model.py");
  tree_.file("not_env/pyvenv.cfg.bak");
  tree_.file("not_env/a.py");
  EXPECT_EQ(files({"."}), (Files{"not_env/a.py", "pkg/model.py"}));
  EXPECT_EQ(files({"env-3.11"}), Files{"env-3.11/lib/python3.11/torch_stub.py"});
}

// ---------------------------------------------------------------------------------------------
// .gitignore during a walk

TEST_F(Discovery, GitignoreNegationReincludesAFile) {
  tree_.file(".gitignore", "*.py\n!keep.py\n");
  tree_.file("drop.py");
  tree_.file("keep.py");
  tree_.file("sub/keep.py");
  tree_.file("sub/drop.py");
  EXPECT_EQ(files({"."}), (Files{"keep.py", "sub/keep.py"}));
}

TEST_F(Discovery, GitignoreTrailingSlashMatchesOnlyDirectories) {
  tree_.file(".gitignore", "data/\nlayers.py/\n");
  tree_.file("data/loader.py");
  tree_.file("pkg/data/loader.py");
  tree_.file("layers.py");  // a file: "layers.py/" does not apply
  tree_.file("pkg/layers.py/inner.py");
  EXPECT_EQ(files({"."}), Files{"layers.py"});
}

TEST_F(Discovery, GitignoreAnchoredVersusUnanchored) {
  tree_.file(".gitignore", "/top.py\nanywhere.py\nsrc/gen.py\n");
  tree_.file("top.py");
  tree_.file("sub/top.py");
  tree_.file("anywhere.py");
  tree_.file("sub/deep/anywhere.py");
  tree_.file("src/gen.py");
  tree_.file("other/src/gen.py");
  EXPECT_EQ(files({"."}), (Files{"other/src/gen.py", "sub/top.py"}));
}

TEST_F(Discovery, GitignoreDoubleStar) {
  tree_.file(".gitignore", "**/cache/\nlogs/**\na/**/z.py\n");
  tree_.file("cache/x.py");
  tree_.file("p/q/cache/x.py");
  tree_.file("logs/x.py");
  tree_.file("logs/deep/x.py");
  tree_.file("p/logs/x.py");  // "logs/**" is anchored
  tree_.file("a/z.py");
  tree_.file("a/b/z.py");
  tree_.file("a/b/c/z.py");
  tree_.file("a/b/y.py");
  tree_.file("b/a/z.py");
  EXPECT_EQ(files({"."}), (Files{"a/b/y.py", "b/a/z.py", "p/logs/x.py"}));
}

TEST_F(Discovery, GitignoreWildcardsAndClasses) {
  tree_.file(".gitignore", "test_?.py\nmodel_[0-9]*.py\n*_pb2.py\n");
  tree_.file("test_1.py");
  tree_.file("test_12.py");
  tree_.file("model_3d.py");
  tree_.file("model_x.py");
  tree_.file("proto/msg_pb2.py");
  EXPECT_EQ(files({"."}), (Files{"model_x.py", "test_12.py"}));
}

TEST_F(Discovery, NestedGitignoreAppliesToItsSubtreeRelativeToItsDirectory) {
  tree_.file(".gitignore", "*.gen.py\n");
  tree_.file("pkg/.gitignore", "/local.py\n!keep.gen.py\n");
  tree_.file("local.py");
  tree_.file("pkg/local.py");
  tree_.file("pkg/sub/local.py");  // "/local.py" is anchored to pkg/
  tree_.file("keep.gen.py");
  tree_.file("pkg/keep.gen.py");   // the deeper file overrides the root one
  tree_.file("pkg/x.gen.py");
  tree_.file("other/local.py");
  EXPECT_EQ(files({"."}),
            (Files{"local.py", "other/local.py", "pkg/keep.gen.py", "pkg/sub/local.py"}));
}

TEST_F(Discovery, FileInAnExcludedDirectoryCannotBeReincluded) {
  tree_.file(".gitignore", "vendor/\n!vendor/keep.py\n/third_party/*\n!/third_party/keep.py\n");
  tree_.file("vendor/keep.py");
  tree_.file("vendor/drop.py");
  tree_.file("third_party/keep.py");  // its directory is not excluded, only its contents
  tree_.file("third_party/drop.py");
  tree_.file("third_party/sub/keep.py");
  EXPECT_EQ(files({"."}), Files{"third_party/keep.py"});
}

TEST_F(Discovery, NestedGitignoreCannotReincludeUnderAnExcludedDirectory) {
  tree_.file(".gitignore", "generated/\n");
  tree_.file("generated/.gitignore", "!*\n");
  tree_.file("generated/a.py");
  EXPECT_EQ(files({"."}), Files{});
}

TEST_F(Discovery, InfoExcludeAppliesBelowGitignore) {
  tree_.file(".git/info/exclude", "# local\nsecret.py\nscratch*.py\n");
  tree_.file(".gitignore", "!scratch_keep.py\n");
  tree_.file("secret.py");
  tree_.file("sub/secret.py");
  tree_.file("scratch1.py");
  tree_.file("scratch_keep.py");
  tree_.file("main.py");
  EXPECT_EQ(files({"."}), (Files{"main.py", "scratch_keep.py"}));
  EXPECT_EQ(files({"sub"}), Files{});
}

TEST_F(Discovery, GitignoreFilesAboveTheNamedDirectoryApply) {
  tree_.file(".gitignore", "pkg/skip.py\n*.tmp.py\n");
  tree_.file("pkg/.gitignore", "/inner/skip2.py\n");
  tree_.file("pkg/skip.py");
  tree_.file("pkg/a.tmp.py");
  tree_.file("pkg/ok.py");
  tree_.file("pkg/inner/skip2.py");
  tree_.file("pkg/inner/ok2.py");
  EXPECT_EQ(files({"pkg"}), (Files{"pkg/inner/ok2.py", "pkg/ok.py"}));
  EXPECT_EQ(files({"pkg/inner/"}), Files{"pkg/inner/ok2.py"});
  CurrentDirectory inside(tree_.root() / "pkg" / "inner");
  EXPECT_EQ(files({"."}), Files{"ok2.py"});
}

TEST_F(Discovery, ANamedDirectoryIsWalkedEvenIfIgnored) {
  tree_.file(".gitignore", "scratch/\n");
  tree_.file("scratch/a.py");
  EXPECT_EQ(files({"."}), Files{});
  EXPECT_EQ(files({"scratch"}), Files{"scratch/a.py"});
}

TEST_F(Discovery, NestedRepositoryHasItsOwnRules) {
  tree_.file(".gitignore", "skip_me.py\n");
  tree_.file(".git/info/exclude", "outer_only.py\n");
  tree_.file("skip_me.py");
  tree_.file("outer_only.py");
  tree_.dir("vendored/.git/info");
  tree_.file("vendored/.git/info/exclude", "inner_only.py\n");
  tree_.file("vendored/.gitignore", "*.out.py\n");
  tree_.file("vendored/skip_me.py");    // the outer .gitignore stops at the nested repository
  tree_.file("vendored/outer_only.py");
  tree_.file("vendored/inner_only.py");
  tree_.file("vendored/x.out.py");
  tree_.file("ok.py");
  EXPECT_EQ(files({"."}), (Files{"ok.py", "vendored/outer_only.py", "vendored/skip_me.py"}));
}

TEST_F(Discovery, GitFileOfALinkedWorktreeLeadsToItsInfoExclude) {
  tree_.file("store/main.git/info/exclude", "hidden.py\n");
  tree_.dir("store/main.git/worktrees/wt");
  tree_.file("store/main.git/worktrees/wt/commondir", "../..\n");
  tree_.file("wt/.git", "gitdir: ../store/main.git/worktrees/wt\n");
  tree_.file("wt/hidden.py");
  tree_.file("wt/shown.py");
  EXPECT_EQ(files({"wt"}), Files{"wt/shown.py"});
}

TEST_F(Discovery, RespectGitignoreOffKeepsOtherExclusions) {
  tree_.file(".gitignore", "ignored.py\n");
  tree_.file(".git/info/exclude", "excluded.py\n");
  tree_.file("ignored.py");
  tree_.file("excluded.py");
  tree_.file("build/gen.py");
  tree_.file("env/pyvenv.cfg");
  tree_.file("env/lib.py");
  DiscoveryOptions options;
  options.respect_gitignore = false;
  EXPECT_EQ(files({"."}, options), (Files{"excluded.py", "ignored.py"}));
}

TEST_F(Discovery, ExcludePatternsAreRelativeToTheCurrentDirectory) {
  tree_.file("gen/a.py");
  tree_.file("pkg/gen/b.py");
  tree_.file("pkg/msg_pb2.py");
  tree_.file("pkg/skip.py");
  tree_.file("skip.py");
  tree_.file("pkg/keep.py");
  DiscoveryOptions options;
  options.exclude = {"gen/", "*_pb2.py", "/pkg/skip.py"};
  EXPECT_EQ(files({"."}, options), (Files{"pkg/keep.py", "skip.py"}));
  EXPECT_EQ(files({"pkg"}, options), Files{"pkg/keep.py"});
  // A named file is still taken.
  EXPECT_EQ(files({"pkg/skip.py"}, options), Files{"pkg/skip.py"});
  {
    CurrentDirectory inside(tree_.root() / "pkg");
    EXPECT_EQ(files({"."}, options), (Files{"keep.py", "skip.py"}));
  }
}

TEST_F(Discovery, ExcludePatternsWinOverGitignore) {
  tree_.file(".gitignore", "*.py\n");
  tree_.file("a.py");
  DiscoveryOptions options;
  options.exclude = {"!a.py"};
  EXPECT_EQ(files({"."}, options), Files{"a.py"});
}

// ---------------------------------------------------------------------------------------------
// Links and unreadable places

TEST_F(Discovery, FollowsFileSymlinksButNotDirectorySymlinks) {
  tree_.file("real/x.py");
  const fs::path& root = tree_.root();
  std::error_code ec;
  fs::create_directory_symlink(root, root / "real" / "loop", ec);  // a cycle
  if (ec) GTEST_SKIP() << "cannot create symlinks here: " << ec.message();
  fs::create_directory_symlink(root / "real", root / "alias");
  fs::create_symlink(root / "real" / "x.py", root / "link.py");
  fs::create_symlink(root / "missing.py", root / "dangling.py");
  EXPECT_EQ(files({"."}), (Files{"link.py", "real/x.py"}));
  // A symlink to a directory that the user names is walked.
  EXPECT_EQ(files({"alias"}), Files{"alias/x.py"});
}

TEST_F(Discovery, UnreadableDirectoryIsAWarningAndTheWalkGoesOn) {
  tree_.file("locked/secret.py");
  tree_.file("open/a.py");
  fs::permissions(tree_.root() / "locked", fs::perms::none);
  std::error_code probe;
  fs::directory_iterator still_readable(tree_.root() / "locked", probe);
  if (!probe) GTEST_SKIP() << "permissions are not enforced for this user (root?)";

  const DiscoveryResult result = run({"."});
  EXPECT_EQ(result.files, Files{"open/a.py"});
  EXPECT_FALSE(result.usage_error);
  ASSERT_EQ(result.diagnostics.size(), 1u);
  EXPECT_EQ(result.diagnostics[0].severity, FileDiagnostic::Severity::Warning);
  EXPECT_EQ(result.diagnostics[0].path, "locked");
}

TEST(DiscoveryWithoutRepository, GitignoreFilesInTheNamedTreeStillApply) {
  TempTree tree;  // no .git: there is no repository unless one encloses the temp directory
  for (fs::path dir = tree.root(); dir != dir.parent_path(); dir = dir.parent_path()) {
    if (fs::exists(dir / ".git")) GTEST_SKIP() << "the temp directory is inside a repository";
  }
  tree.file(".gitignore", "skip.py\n");
  tree.file("skip.py");
  tree.file("sub/skip.py");
  tree.file("a.py");
  const std::string root = tree.root().generic_string();
  const std::vector<std::string> paths{root};
  const DiscoveryResult result = discover(paths, {});
  EXPECT_EQ(result.files, Files{root + "/a.py"});
  EXPECT_TRUE(result.diagnostics.empty());
}

// ---------------------------------------------------------------------------------------------
// Spelling normalisation

TEST(DiscoveryPathSpelling, Normalizes) {
  EXPECT_EQ(normalize_path_spelling("."), ".");
  EXPECT_EQ(normalize_path_spelling("./"), ".");
  EXPECT_EQ(normalize_path_spelling(""), ".");
  EXPECT_EQ(normalize_path_spelling("./a//b/./c/"), "a/b/c");
  EXPECT_EQ(normalize_path_spelling("a/../b"), "b");
  EXPECT_EQ(normalize_path_spelling("../../x"), "../../x");
  EXPECT_EQ(normalize_path_spelling("a/../../x"), "../x");
  EXPECT_EQ(normalize_path_spelling("/"), "/");
  EXPECT_EQ(normalize_path_spelling("//usr//lib/"), "/usr/lib");
  EXPECT_EQ(normalize_path_spelling("/../x"), "/x");
}

} // namespace
} // namespace cudnnlint
