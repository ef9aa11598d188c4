#include "cpp/include_search.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace cudnnlint::cpp {

namespace {

constexpr std::size_t kMaxPythonFolders = 32;

}  // namespace

std::vector<std::string> wheel_cudnn_include_dirs(std::span<const std::string> prefixes) {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  // Adds `include` when it holds `header`; whether it does.
  auto add = [&](const fs::path& include, const char* header) {
    std::error_code ec;
    if (!fs::is_regular_file(include / header, ec)) return false;
    const fs::path real = fs::canonical(include, ec);
    const std::string dir = ec ? include.string() : real.string();
    if (std::find(out.begin(), out.end(), dir) == out.end()) out.push_back(dir);
    return true;
  };
  for (const std::string& prefix : prefixes) {
    std::error_code ec;
    const fs::path lib = fs::path(prefix) / "lib";
    std::vector<fs::path> pythons;
    for (fs::directory_iterator it(lib, ec), end; !ec && it != end && pythons.size() < kMaxPythonFolders;
         it.increment(ec)) {
      const std::string name = it->path().filename().string();
      if (name.starts_with("python3")) pythons.push_back(it->path());
    }
    std::sort(pythons.begin(), pythons.end());  // a stable order: the command text keys the cache
    for (const fs::path& python : pythons)
      for (const char* packages : {"site-packages", "dist-packages"}) {
        const fs::path nvidia = python / packages / "nvidia";
        // cudnn.h includes <cuda_runtime_api.h>: the CUDA runtime wheel beside it has it (CUDA 13's
        // wheels under nvidia/cu13, CUDA 12's under nvidia/cuda_runtime).
        if (!add(nvidia / "cudnn" / "include", "cudnn.h")) continue;
        for (const char* runtime : {"cu13", "cuda_runtime"}) add(nvidia / runtime / "include", "cuda_runtime_api.h");
      }
  }
  return out;
}

std::vector<std::string> python_environment_prefixes() {
  std::vector<std::string> prefixes;
  auto from_env = [&](const char* name, std::string_view suffix = {}) {
    const char* value = std::getenv(name);
    if (value == nullptr || value[0] != '/') return;
    prefixes.push_back(std::string(value) + std::string(suffix));
  };
  from_env("VIRTUAL_ENV");
  from_env("CONDA_PREFIX");
  from_env("HOME", "/.local");
  prefixes.emplace_back("/usr/local");
  prefixes.emplace_back("/usr");
  return prefixes;
}

const std::vector<std::string>& environment_cudnn_include_dirs() {
  static const std::vector<std::string> dirs = wheel_cudnn_include_dirs(python_environment_prefixes());
  return dirs;
}

}  // namespace cudnnlint::cpp
