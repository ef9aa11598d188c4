// Loading cuDNN and the CUDA runtime at run time: where to look, and an owned dlopen handle.
// cudnnlint never links either library, so static analysis works on any machine.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace cudnnlint::gpu {

// An open shared library; closes it on destruction.
class SharedLibrary {
 public:
  // Opens `path` (a file or a bare soname for the system loader). nullopt and `error` on failure.
  static std::optional<SharedLibrary> open(const std::string& path, std::string& error);

  // The address of `name` as `Function`, or nullptr when the library lacks it.
  template <class Function>
  Function function(const char* name) const {
    return reinterpret_cast<Function>(address(name));
  }
  const std::string& path() const { return path_; }
  // The file the loader actually mapped (resolves sonames and symlinks), for reports.
  std::string resolved_path() const;

 private:
  struct Closer {
    void operator()(void* handle) const;
  };
  SharedLibrary(void* handle, std::string path) : handle_(handle), path_(std::move(path)) {}
  void* address(const char* name) const;

  std::unique_ptr<void, Closer> handle_;
  std::string path_;
};

// A place a library may be, and why we look there.
struct Candidate {
  std::string path;    // a file, or a soname for the system loader
  std::string origin;  // "--cudnn-library", "CUDNN_PATH", "CUDA toolkit", "system library directory",
                       // "pip nvidia-cudnn-cu*", "system loader"
};

// Where libcudnn.so.9 (or .8) may be, in search order: `explicit_path` alone when given; else
// $CUDNN_PATH (a file or a directory), $LD_LIBRARY_PATH, the CUDA toolkit's library directories ($CUDA_HOME,
// $CUDA_PATH, the toolkit found at build time, /usr/local/cuda), /usr/lib/x86_64-linux-gnu (distribution
// packages), the pip wheel layout site-packages/nvidia/cudnn/lib of the active virtualenv or conda
// env, of each bin/python3 on PATH, the user's and the system's Pythons, and last the system loader
// (LD_LIBRARY_PATH, ldconfig).
std::vector<Candidate> cudnn_candidates(const std::string& explicit_path);
// Where libcudart may be: the major version cuDNN was built against first (`cuda_major`, 0 when
// unknown), beside cuDNN and in the pip layouts around it, then the places above.
std::vector<Candidate> cudart_candidates(const std::string& cudnn_directory, int cuda_major);

}  // namespace cudnnlint::gpu
