// What the cuDNN probes share: a status printed as one JSON line (the status's name, and what
// cudnnGetLastErrorString adds), and a data type with its name. Header-only: each probe is one
// g++ command (its build line is in the file).
#pragma once

#include <cudnn.h>

#include <cstdio>
#include <string>

namespace cudnn_probe {

inline std::string escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '\n') break;
    if (c == '"' || c == '\\') out.push_back('\\');
    if (static_cast<unsigned char>(c) >= 0x20) out.push_back(c);
  }
  return out.substr(0, 300);
}

inline std::string last_error() {
  char buf[1024] = {0};
  cudnnGetLastErrorString(buf, sizeof(buf));
  return escape(buf);
}

// One JSON line: {"case": ..., "status": NAME, "last_error": ..., extra}
inline void emit(const std::string& name, cudnnStatus_t st, const std::string& extra = "") {
  std::string err = st == CUDNN_STATUS_SUCCESS ? "" : last_error();
  std::printf("{\"case\": \"%s\", \"status\": \"%s\"", escape(name).c_str(), cudnnGetErrorString(st));
  if (!err.empty()) std::printf(", \"last_error\": \"%s\"", err.c_str());
  if (!extra.empty()) std::printf(", %s", extra.c_str());
  std::printf("}\n");
  std::fflush(stdout);
}

struct Type {
  const char* name;
  cudnnDataType_t value;
};

}  // namespace cudnn_probe
