#include "gpu_check/library.h"

#include <dlfcn.h>
#include <link.h>

#include <cstdlib>
#include <filesystem>
#include <set>
#include <system_error>

namespace cudnnlint::gpu {

namespace fs = std::filesystem;

void SharedLibrary::Closer::operator()(void* handle) const {
  if (handle != nullptr) dlclose(handle);
}

std::optional<SharedLibrary> SharedLibrary::open(const std::string& path, std::string& error) {
  dlerror();
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (handle == nullptr) {
    const char* message = dlerror();
    error = message != nullptr ? message : "dlopen failed";
    return std::nullopt;
  }
  return SharedLibrary(handle, path);
}

void* SharedLibrary::address(const char* name) const { return dlsym(handle_.get(), name); }

std::string SharedLibrary::resolved_path() const {
  link_map* map = nullptr;
  std::string name = path_;
  if (dlinfo(handle_.get(), RTLD_DI_LINKMAP, &map) == 0 && map != nullptr && map->l_name != nullptr &&
      map->l_name[0] != '\0')
    name = map->l_name;
  std::error_code ec;
  const auto real = fs::canonical(name, ec);  // libcudnn.so.9 -> libcudnn.so.9.19.0
  return ec ? name : real.string();
}

namespace {

std::string env(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : "";
}

bool is_file(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);  // follows symlinks
}

// site-packages and dist-packages directories under prefix/lib/python3.*.
std::vector<fs::path> python_package_dirs(const fs::path& prefix) {
  std::vector<fs::path> out;
  std::error_code ec;
  const fs::path lib = prefix / "lib";
  if (!fs::is_directory(lib, ec)) return out;
  std::set<fs::path> found;
  for (const auto& entry : fs::directory_iterator(lib, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("python3", 0) != 0) continue;
    for (const char* leaf : {"site-packages", "dist-packages"})
      if (fs::is_directory(entry.path() / leaf, ec)) found.insert(entry.path() / leaf);
  }
  out.assign(found.begin(), found.end());
  return out;
}

std::vector<fs::path> all_python_package_dirs() {
  std::vector<fs::path> dirs;
  auto add = [&](const fs::path& prefix) {
    for (auto& d : python_package_dirs(prefix)) dirs.push_back(d);
  };
  if (const std::string venv = env("VIRTUAL_ENV"); !venv.empty()) add(venv);
  if (const std::string conda = env("CONDA_PREFIX"); !conda.empty()) add(conda);
  if (const std::string home = env("HOME"); !home.empty()) add(fs::path(home) / ".local");
  add("/usr/local");
  add("/usr");
  dirs.emplace_back("/usr/lib/python3/dist-packages");
  return dirs;
}

std::vector<fs::path> toolkit_library_dirs() {
  std::vector<fs::path> dirs;
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
    if (const std::string root = env(var); !root.empty()) {
      dirs.push_back(fs::path(root) / "lib64");
      dirs.push_back(fs::path(root) / "lib");
    }
#ifdef CUDNNLINT_CUDA_LIBRARY_DIR
  dirs.emplace_back(CUDNNLINT_CUDA_LIBRARY_DIR);
#endif
  dirs.emplace_back("/usr/local/cuda/lib64");
  dirs.emplace_back("/usr/local/cuda/targets/x86_64-linux/lib");
  dirs.emplace_back("/usr/lib/x86_64-linux-gnu");
  return dirs;
}

void add_unique(std::vector<Candidate>& out, const fs::path& path, const std::string& origin) {
  for (const auto& c : out)
    if (c.path == path.string()) return;
  out.push_back({path.string(), origin});
}

}  // namespace

std::vector<Candidate> cudnn_candidates(const std::string& explicit_path) {
  std::vector<Candidate> out;
  if (!explicit_path.empty()) {
    out.push_back({explicit_path, "--cudnn-library"});
    return out;
  }
  static const char* names[] = {"libcudnn.so.9", "libcudnn.so"};
  if (const std::string root = env("CUDNN_PATH"); !root.empty()) {
    if (is_file(root)) {
      add_unique(out, root, "CUDNN_PATH");
    } else {
      for (const char* sub : {"lib64", "lib", ""})
        for (const char* name : names)
          if (is_file(fs::path(root) / sub / name)) add_unique(out, fs::path(root) / sub / name, "CUDNN_PATH");
    }
  }
  for (const auto& dir : toolkit_library_dirs())
    for (const char* name : names)
      if (is_file(dir / name)) add_unique(out, dir / name, "CUDA toolkit");
  for (const auto& packages : all_python_package_dirs())
    for (const char* name : names)
      if (is_file(packages / "nvidia" / "cudnn" / "lib" / name))
        add_unique(out, packages / "nvidia" / "cudnn" / "lib" / name, "pip nvidia-cudnn-cu*");
  out.push_back({"libcudnn.so.9", "system loader"});
  return out;
}

std::vector<Candidate> cudart_candidates(const std::string& cudnn_directory) {
  std::vector<Candidate> out;
  static const char* names[] = {"libcudart.so.13", "libcudart.so.12", "libcudart.so"};
  if (!cudnn_directory.empty())
    for (const char* name : names)
      if (is_file(fs::path(cudnn_directory) / name)) add_unique(out, fs::path(cudnn_directory) / name, "beside cuDNN");
  for (const auto& dir : toolkit_library_dirs())
    for (const char* name : names)
      if (is_file(dir / name)) add_unique(out, dir / name, "CUDA toolkit");
  for (const auto& packages : all_python_package_dirs())
    for (const char* name : names)
      if (is_file(packages / "nvidia" / "cuda_runtime" / "lib" / name))
        add_unique(out, packages / "nvidia" / "cuda_runtime" / "lib" / name, "pip nvidia-cuda-runtime-cu*");
  for (const char* name : names) out.push_back({name, "system loader"});
  return out;
}

std::optional<Opened> open_first(const std::vector<Candidate>& candidates, std::vector<std::string>& tried) {
  for (const auto& candidate : candidates) {
    std::string error;
    if (auto library = SharedLibrary::open(candidate.path, error)) return Opened{std::move(*library), candidate};
    tried.push_back(candidate.path + " (" + candidate.origin + "): " + error);
  }
  return std::nullopt;
}

void preload_cudnn_sublibraries(const std::string& cudnn_file, std::vector<SharedLibrary>& keep) {
  const fs::path dir = fs::path(cudnn_file).parent_path();
  if (dir.empty()) return;
  for (const char* name : {"libcudnn_graph.so.9", "libcudnn_ops.so.9", "libcudnn_cnn.so.9"}) {
    std::string error;
    if (is_file(dir / name))
      if (auto library = SharedLibrary::open((dir / name).string(), error)) keep.push_back(std::move(*library));
  }
}

}  // namespace cudnnlint::gpu
