#include "gpu_check/library.h"

#include <dlfcn.h>
#include <link.h>

#include <algorithm>
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
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
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

// The directories of a colon-separated variable (PATH, LD_LIBRARY_PATH).
std::vector<fs::path> path_dirs(const char* variable) {
  std::vector<fs::path> dirs;
  const std::string value = env(variable);
  std::size_t start = 0;
  while (start <= value.size()) {
    const std::size_t end = value.find(':', start);
    const std::string dir = value.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (!dir.empty()) dirs.emplace_back(dir);
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return dirs;
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
  // The Python the user runs, activated or not: a venv's bin/ on PATH (images often put one there
  // without VIRTUAL_ENV). Its prefix is the parent of bin/, symlinks not followed.
  // Relative PATH entries are skipped: they would load a library from wherever cudnnlint runs
  // (often the repository being analysed).
  for (fs::path dir : path_dirs("PATH")) {
    if (dir.is_relative()) continue;
    dir = dir.lexically_normal();
    if (!dir.has_filename()) dir = dir.parent_path();  // "venv/bin/" -> "venv/bin"
    if (dir.filename() == "bin" && (is_file(dir / "python3") || is_file(dir / "python"))) add(dir.parent_path());
  }
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
  return dirs;
}

// Where distribution packages (Debian/Ubuntu libcudnn9-cuda-*) install the library.
const fs::path kSystemLibraryDir = "/usr/lib/x86_64-linux-gnu";

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
  static const char* names[] = {"libcudnn.so.9", "libcudnn.so.8", "libcudnn.so"};
  if (const std::string root = env("CUDNN_PATH"); !root.empty()) {
    if (is_file(root)) {
      add_unique(out, root, "CUDNN_PATH");
    } else {
      for (const char* sub : {"lib64", "lib", ""})
        for (const char* name : names)
          if (is_file(fs::path(root) / sub / name)) add_unique(out, fs::path(root) / sub / name, "CUDNN_PATH");
    }
  }
  for (const auto& dir : path_dirs("LD_LIBRARY_PATH"))
    for (const char* name : names)
      if (is_file(dir / name)) add_unique(out, dir / name, "LD_LIBRARY_PATH");
  for (const auto& dir : toolkit_library_dirs())
    for (const char* name : names)
      if (is_file(dir / name)) add_unique(out, dir / name, "CUDA toolkit");
  for (const char* name : names)
    if (is_file(kSystemLibraryDir / name)) add_unique(out, kSystemLibraryDir / name, "system library directory");
  for (const auto& packages : all_python_package_dirs())
    for (const char* name : names)
      if (is_file(packages / "nvidia" / "cudnn" / "lib" / name))
        add_unique(out, packages / "nvidia" / "cudnn" / "lib" / name, "pip nvidia-cudnn-cu*");
  out.push_back({"libcudnn.so.9", "system loader"});
  out.push_back({"libcudnn.so.8", "system loader"});
  return out;
}

std::vector<Candidate> cudart_candidates(const std::string& cudnn_directory, int cuda_major) {
  std::vector<Candidate> out;
  // The runtime cuDNN was built against first (cudnnGetCudartVersion), then the others.
  std::vector<std::string> names;
  if (cuda_major > 0) names.push_back("libcudart.so." + std::to_string(cuda_major));
  for (const char* name : {"libcudart.so.13", "libcudart.so.12", "libcudart.so"})
    if (std::find(names.begin(), names.end(), name) == names.end()) names.emplace_back(name);
  std::vector<std::pair<fs::path, std::string>> dirs;
  if (!cudnn_directory.empty()) {
    dirs.emplace_back(fs::path(cudnn_directory), "beside cuDNN");
    // pip: nvidia/cudnn/lib beside nvidia/cu13/lib (CUDA 13 wheels) or nvidia/cuda_runtime/lib.
    for (const char* sibling : {"cu13/lib", "cu12/lib", "cuda_runtime/lib"})
      dirs.emplace_back(fs::path(cudnn_directory).parent_path().parent_path() / sibling, "pip, beside cuDNN");
  }
  for (const auto& dir : path_dirs("LD_LIBRARY_PATH")) dirs.emplace_back(dir, "LD_LIBRARY_PATH");
  for (const auto& dir : toolkit_library_dirs()) dirs.emplace_back(dir, "CUDA toolkit");
  dirs.emplace_back(kSystemLibraryDir, "system library directory");
  for (const auto& packages : all_python_package_dirs())
    for (const char* sub : {"nvidia/cu13/lib", "nvidia/cu12/lib", "nvidia/cuda_runtime/lib"})
      dirs.emplace_back(packages / sub, "pip nvidia-cuda-runtime");
  for (const auto& name : names)
    for (const auto& [dir, origin] : dirs)
      if (is_file(dir / name)) add_unique(out, dir / name, origin);
  for (const auto& name : names) out.push_back({name, "system loader"});
  return out;
}

}  // namespace cudnnlint::gpu
