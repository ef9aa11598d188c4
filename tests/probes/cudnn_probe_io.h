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

// A legacy convolution's descriptors, x 1x4x8x8, w 8x4x3x3, y 1x8x8x8, pad 1, stride 1, set with the
// given types and layout; the setters' statuses kept (first failure, and as a JSON field). Destroyed
// with the object.
struct LegacyConvolution {
  cudnnTensorDescriptor_t x = nullptr, y = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  cudnnStatus_t setters[4] = {};
  std::string label;

  LegacyConvolution(const Type& xt, const Type& wt, const Type& yt, const Type& ct, cudnnTensorFormat_t fmt) {
    label = std::string("x ") + xt.name + ", w " + wt.name + ", y " + yt.name + ", compute " + ct.name +
            (fmt == CUDNN_TENSOR_NHWC ? ", NHWC" : ", NCHW");
    cudnnCreateTensorDescriptor(&x);
    cudnnCreateTensorDescriptor(&y);
    cudnnCreateFilterDescriptor(&w);
    cudnnCreateConvolutionDescriptor(&conv);
    setters[0] = cudnnSetTensor4dDescriptor(x, fmt, xt.value, 1, 4, 8, 8);
    setters[1] = cudnnSetFilter4dDescriptor(w, wt.value, fmt, 8, 4, 3, 3);
    setters[2] = cudnnSetTensor4dDescriptor(y, fmt, yt.value, 1, 8, 8, 8);
    setters[3] = cudnnSetConvolution2dDescriptor(conv, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, ct.value);
  }
  LegacyConvolution(const LegacyConvolution&) = delete;
  LegacyConvolution& operator=(const LegacyConvolution&) = delete;
  ~LegacyConvolution() {
    cudnnDestroyConvolutionDescriptor(conv);
    cudnnDestroyFilterDescriptor(w);
    cudnnDestroyTensorDescriptor(y);
    cudnnDestroyTensorDescriptor(x);
  }

  cudnnStatus_t first_failure() const {
    for (cudnnStatus_t st : setters)
      if (st != CUDNN_STATUS_SUCCESS) return st;
    return CUDNN_STATUS_SUCCESS;
  }
  // "\"setters\": [\"CUDNN_STATUS_SUCCESS\", ...]"
  std::string setters_json() const {
    char text[256];
    std::snprintf(text, sizeof(text), "\"setters\": [\"%s\", \"%s\", \"%s\", \"%s\"]", cudnnGetErrorString(setters[0]),
                  cudnnGetErrorString(setters[1]), cudnnGetErrorString(setters[2]), cudnnGetErrorString(setters[3]));
    return text;
  }
};

}  // namespace cudnn_probe
