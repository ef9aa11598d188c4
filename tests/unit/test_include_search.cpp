// Where an nvidia-cudnn wheel's headers are found in a Python environment: a temporary prefix laid
// out as pip lays out site-packages.
#include "cpp/include_search.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace cudnnlint {
namespace {

namespace fs = std::filesystem;

class Prefix {
 public:
  explicit Prefix(const std::string& name) : root_(fs::temp_directory_path() / ("cudnnlint-prefix-" + name)) {
    fs::remove_all(root_);
  }
  ~Prefix() { fs::remove_all(root_); }
  // Creates PREFIX/relative with an empty file in it; returns the folder's real path.
  std::string file(const std::string& relative, const std::string& name) const {
    const fs::path dir = root_ / relative;
    fs::create_directories(dir);
    std::ofstream(dir / name) << "/* stand-in */\n";
    return fs::canonical(dir).string();
  }
  std::string path() const { return root_.string(); }

 private:
  fs::path root_;
};

TEST(WheelIncludeDirs, CudnnWithTheRuntimeBesideItInPythonOrder) {
  const Prefix venv("venv");
  const std::string cudnn12 = venv.file("lib/python3.12/site-packages/nvidia/cudnn/include", "cudnn.h");
  const std::string runtime12 = venv.file("lib/python3.12/site-packages/nvidia/cuda_runtime/include", "cuda_runtime_api.h");
  const std::string cudnn11 = venv.file("lib/python3.11/dist-packages/nvidia/cudnn/include", "cudnn.h");
  const std::string runtime11 = venv.file("lib/python3.11/dist-packages/nvidia/cu13/include", "cuda_runtime_api.h");
  // No cudnn.h: neither folder counts; a runtime without cuDNN beside it is not added.
  venv.file("lib/python3.13/site-packages/nvidia/cudnn/include", "cudnn_version.h");
  venv.file("lib/python3.13/site-packages/nvidia/cu13/include", "cuda_runtime_api.h");
  // Not a python3 folder.
  venv.file("lib/python2.7/site-packages/nvidia/cudnn/include", "cudnn.h");
  const std::vector<std::string> prefixes{venv.path(), venv.path(), "/nonexistent-cudnnlint-prefix"};
  EXPECT_EQ(cpp::wheel_cudnn_include_dirs(prefixes),
            (std::vector<std::string>{cudnn11, runtime11, cudnn12, runtime12}));
}

TEST(WheelIncludeDirs, EnvironmentPrefixesAreAbsoluteOnly) {
  ::setenv("VIRTUAL_ENV", "relative/venv", 1);
  ::setenv("CONDA_PREFIX", "/opt/conda", 1);
  const auto prefixes = cpp::python_environment_prefixes();
  EXPECT_EQ(std::count(prefixes.begin(), prefixes.end(), "relative/venv"), 0);
  EXPECT_EQ(std::count(prefixes.begin(), prefixes.end(), "/opt/conda"), 1);
  EXPECT_EQ(prefixes.back(), "/usr");
  ::unsetenv("VIRTUAL_ENV");
  ::unsetenv("CONDA_PREFIX");
}

}  // namespace
}  // namespace cudnnlint
