// Does libcudnn refuse integer (INT32 / INT64 / ...) convolution data at any step reachable without a GPU?
// Calls, for each data type, the legacy descriptor setters (tensor 4d NCHW/NHWC, filter 4d, convolution 2d
// with compute type FLOAT and INT32, output dimensions; mixed x / w / y types and the workspace query with a
// null handle) and the backend API (tensor descriptors, convolution descriptor, convolution-forward
// operation, operation graph, engine heuristics, and an execution plan if they offer one), and prints every status as
// one JSON line (status name from cudnnGetErrorString, plus cudnnGetLastErrorString when it says more).
// cudnnCreate (a handle) needs a GPU; its status is recorded too. Nothing here launches a kernel.
// Build and run (CUDA toolkit with cuDNN 9 headers and libraries):
//   g++ -std=c++17 -O1 tests/probes/cudnn_integer_descriptors.cpp -I/usr/local/cuda/include -L/usr/local/cuda/lib64 -lcudnn -Wl,-rpath,/usr/local/cuda/lib64 -o /tmp/cudnn_integer_descriptors
//   /tmp/cudnn_integer_descriptors > tests/probes/results/cudnn_integer_descriptors.cudnn-<version>.cpu.jsonl
#include <cudnn.h>

#include "cudnn_probe_io.h"

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace {

using cudnn_probe::emit;
using cudnn_probe::escape;
using cudnn_probe::Type;

const Type kTypes[] = {
    {"FLOAT", CUDNN_DATA_FLOAT},     {"HALF", CUDNN_DATA_HALF},       {"BFLOAT16", CUDNN_DATA_BFLOAT16},
    {"DOUBLE", CUDNN_DATA_DOUBLE},   {"INT8", CUDNN_DATA_INT8},       {"INT32", CUDNN_DATA_INT32},
    {"INT64", CUDNN_DATA_INT64},     {"UINT8", CUDNN_DATA_UINT8},     {"INT8x4", CUDNN_DATA_INT8x4},
    {"BOOLEAN", CUDNN_DATA_BOOLEAN},
};

void legacy(const Type& t) {
  const std::string tn = t.name;
  for (auto fmt : {CUDNN_TENSOR_NCHW, CUDNN_TENSOR_NHWC}) {
    const std::string fn = fmt == CUDNN_TENSOR_NCHW ? "NCHW" : "NHWC";
    cudnnTensorDescriptor_t x = nullptr;
    cudnnFilterDescriptor_t w = nullptr;
    cudnnConvolutionDescriptor_t conv = nullptr;
    cudnnCreateTensorDescriptor(&x);
    emit("cudnnSetTensor4dDescriptor(" + fn + ", " + tn + ", 1,4,8,8)",
         cudnnSetTensor4dDescriptor(x, fmt, t.value, 1, 4, 8, 8));
    cudnnCreateFilterDescriptor(&w);
    emit("cudnnSetFilter4dDescriptor(" + tn + ", " + fn + ", 8,4,3,3)",
         cudnnSetFilter4dDescriptor(w, t.value, fmt, 8, 4, 3, 3));
    cudnnCreateConvolutionDescriptor(&conv);
    for (const Type& ct : {Type{"FLOAT", CUDNN_DATA_FLOAT}, Type{"INT32", CUDNN_DATA_INT32}}) {
      emit("cudnnSetConvolution2dDescriptor(pad 1, stride 1, dil 1, CROSS_CORRELATION, compute " + std::string(ct.name) +
               ") [data " + tn + ", " + fn + "]",
           cudnnSetConvolution2dDescriptor(conv, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, ct.value));
      int n = -1, c = -1, h = -1, wd = -1;
      cudnnStatus_t st = cudnnGetConvolution2dForwardOutputDim(conv, x, w, &n, &c, &h, &wd);
      char dims[128];
      std::snprintf(dims, sizeof(dims), "\"output_dims\": [%d, %d, %d, %d]", n, c, h, wd);
      emit("cudnnGetConvolution2dForwardOutputDim [data " + tn + ", " + fn + ", compute " + ct.name + "]", st,
           st == CUDNN_STATUS_SUCCESS ? dims : "");
    }
    if (fmt == CUDNN_TENSOR_NCHW) {
      const int fdims[4] = {8, 4, 3, 3};
      cudnnFilterDescriptor_t wn = nullptr;
      cudnnCreateFilterDescriptor(&wn);
      emit("cudnnSetFilterNdDescriptor(" + tn + ", NCHW, 8,4,3,3)", cudnnSetFilterNdDescriptor(wn, t.value, fmt, 4, fdims));
      cudnnDestroyFilterDescriptor(wn);
      const int xdims[4] = {1, 4, 8, 8}, xstrides[4] = {256, 64, 8, 1};
      cudnnTensorDescriptor_t xn = nullptr;
      cudnnCreateTensorDescriptor(&xn);
      emit("cudnnSetTensorNdDescriptor(" + tn + ", 1,4,8,8 packed)", cudnnSetTensorNdDescriptor(xn, t.value, 4, xdims, xstrides));
      cudnnDestroyTensorDescriptor(xn);
    }
    cudnnDestroyConvolutionDescriptor(conv);
    cudnnDestroyFilterDescriptor(w);
    cudnnDestroyTensorDescriptor(x);
  }
}

cudnnBackendDescriptor_t backend_tensor(const Type& t, int64_t uid, const std::vector<int64_t>& dims,
                                        const std::string& label, bool report) {
  cudnnBackendDescriptor_t d = nullptr;
  cudnnStatus_t st = cudnnBackendCreateDescriptor(CUDNN_BACKEND_TENSOR_DESCRIPTOR, &d);
  if (report) emit("cudnnBackendCreateDescriptor(TENSOR) [" + label + "]", st);
  // NHWC-packed strides for an NCHW-ordered dims array.
  std::vector<int64_t> strides = {dims[1] * dims[2] * dims[3], 1, dims[3] * dims[1], dims[1]};
  int64_t alignment = 16;
  cudnnDataType_t dt = t.value;
  cudnnStatus_t s1 = cudnnBackendSetAttribute(d, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &dt);
  cudnnStatus_t s2 = cudnnBackendSetAttribute(d, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, dims.data());
  cudnnStatus_t s3 = cudnnBackendSetAttribute(d, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 4, strides.data());
  cudnnStatus_t s4 = cudnnBackendSetAttribute(d, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid);
  cudnnStatus_t s5 = cudnnBackendSetAttribute(d, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &alignment);
  if (report) {
    emit("cudnnBackendSetAttribute(TENSOR_DATA_TYPE=" + std::string(t.name) + ") [" + label + "]", s1);
    emit("cudnnBackendSetAttribute(TENSOR_DIMENSIONS/STRIDES/UNIQUE_ID/BYTE_ALIGNMENT) [" + label + "]",
         s2 != CUDNN_STATUS_SUCCESS ? s2 : s3 != CUDNN_STATUS_SUCCESS ? s3 : s4 != CUDNN_STATUS_SUCCESS ? s4 : s5);
  }
  cudnnStatus_t fin = cudnnBackendFinalize(d);
  emit("cudnnBackendFinalize(TENSOR " + std::string(t.name) + ") [" + label + "]", fin);
  return d;
}

cudnnBackendDescriptor_t backend_conv(const Type& comp, bool report) {
  cudnnBackendDescriptor_t c = nullptr;
  cudnnBackendCreateDescriptor(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR, &c);
  int64_t spatial = 2;
  std::vector<int64_t> pad = {1, 1}, stride = {1, 1}, dil = {1, 1};
  cudnnDataType_t ct = comp.value;
  cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;
  cudnnStatus_t s1 = cudnnBackendSetAttribute(c, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &ct);
  cudnnBackendSetAttribute(c, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, &mode);
  cudnnBackendSetAttribute(c, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1, &spatial);
  cudnnBackendSetAttribute(c, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, 2, pad.data());
  cudnnBackendSetAttribute(c, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, 2, pad.data());
  cudnnBackendSetAttribute(c, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, 2, stride.data());
  cudnnBackendSetAttribute(c, CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, 2, dil.data());
  if (report) emit("cudnnBackendSetAttribute(CONVOLUTION_COMP_TYPE=" + std::string(comp.name) + ")", s1);
  emit("cudnnBackendFinalize(CONVOLUTION comp " + std::string(comp.name) + ")", cudnnBackendFinalize(c));
  return c;
}

void backend(const Type& data, const Type& comp, const Type& out) {
  const std::string label = std::string("x/w ") + data.name + ", y " + out.name + ", comp " + comp.name;
  cudnnBackendDescriptor_t x = backend_tensor(data, 1, {1, 4, 8, 8}, "x " + label, true);
  cudnnBackendDescriptor_t w = backend_tensor(data, 2, {8, 4, 3, 3}, "w " + label, false);
  cudnnBackendDescriptor_t y = backend_tensor(out, 3, {1, 8, 8, 8}, "y " + label, false);
  cudnnBackendDescriptor_t c = backend_conv(comp, false);

  cudnnBackendDescriptor_t op = nullptr;
  cudnnBackendCreateDescriptor(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR, &op);
  float alpha = 1.0f, beta = 0.0f;
  cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x);
  cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &w);
  cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &y);
  cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &c);
  cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, CUDNN_TYPE_FLOAT, 1, &alpha);
  cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, CUDNN_TYPE_FLOAT, 1, &beta);
  emit("cudnnBackendFinalize(OPERATION_CONVOLUTION_FORWARD) [" + label + "]", cudnnBackendFinalize(op));

  cudnnBackendDescriptor_t graph = nullptr;
  cudnnBackendCreateDescriptor(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, &graph);
  cudnnBackendSetAttribute(graph, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &op);
  cudnnStatus_t gst = cudnnBackendFinalize(graph);
  std::string extra;
  if (gst == CUDNN_STATUS_SUCCESS) {
    int64_t count = -1, n = 0;
    cudnnStatus_t cst = cudnnBackendGetAttribute(graph, CUDNN_ATTR_OPERATIONGRAPH_ENGINE_GLOBAL_COUNT,
                                                 CUDNN_TYPE_INT64, 1, &n, &count);
    if (cst == CUDNN_STATUS_SUCCESS) extra = "\"engine_global_count\": " + std::to_string(count);
  }
  emit("cudnnBackendFinalize(OPERATIONGRAPH, no handle) [" + label + "]", gst, extra);

  for (cudnnBackendHeurMode_t hm : {CUDNN_HEUR_MODE_INSTANT, CUDNN_HEUR_MODE_FALLBACK}) {
    if (gst != CUDNN_STATUS_SUCCESS) break;
    const std::string mode = hm == CUDNN_HEUR_MODE_INSTANT ? "INSTANT" : "FALLBACK";
    cudnnBackendDescriptor_t heur = nullptr;
    cudnnBackendCreateDescriptor(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, &heur);
    cudnnBackendSetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &graph);
    cudnnBackendSetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &hm);
    cudnnStatus_t hst = cudnnBackendFinalize(heur);
    emit("cudnnBackendFinalize(ENGINEHEUR mode " + mode + ", no handle, no device properties) [" + label + "]", hst);
    if (hst == CUDNN_STATUS_SUCCESS) {
      // Number of engine configurations the heuristic offers: create descriptors for up to 64 and ask.
      std::vector<cudnnBackendDescriptor_t> cfgs(64, nullptr);
      for (auto& d : cfgs) cudnnBackendCreateDescriptor(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, &d);
      int64_t got = -1;
      cudnnStatus_t rst = cudnnBackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                                                   static_cast<int64_t>(cfgs.size()), &got, cfgs.data());
      emit("cudnnBackendGetAttribute(ENGINEHEUR_RESULTS, mode " + mode + ") [" + label + "]", rst,
           rst == CUDNN_STATUS_SUCCESS ? "\"engine_configs\": " + std::to_string(got) : "");
      if (rst == CUDNN_STATUS_SUCCESS && got > 0) {
        // Execution plan from the first configuration, without a handle or device properties.
        cudnnBackendDescriptor_t plan = nullptr;
        cudnnBackendCreateDescriptor(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &plan);
        cudnnBackendSetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &cfgs[0]);
        emit("cudnnBackendFinalize(EXECUTION_PLAN from first config, mode " + mode + ", no handle) [" + label + "]",
             cudnnBackendFinalize(plan));
        cudnnBackendDestroyDescriptor(plan);
      }
      for (auto d : cfgs) cudnnBackendDestroyDescriptor(d);
    }
    cudnnBackendDestroyDescriptor(heur);
  }
  for (auto d : {graph, op, c, y, w, x}) cudnnBackendDestroyDescriptor(d);
}

// Mixed legacy configurations: x, w, y data types, compute type, NHWC. Output dimensions, then the workspace
// query with a null handle (the query cudnnlint's fixtures replay), which is where a type check could show.
void legacy_mixed(const Type& xt, const Type& wt, const Type& yt, const Type& ct) {
  const cudnn_probe::LegacyConvolution c(xt, wt, yt, ct, CUDNN_TENSOR_NHWC);
  int n = -1, ch = -1, h = -1, wd = -1;
  cudnnStatus_t st = cudnnGetConvolution2dForwardOutputDim(c.conv, c.x, c.w, &n, &ch, &h, &wd);
  char dims[128] = "";
  if (st == CUDNN_STATUS_SUCCESS) std::snprintf(dims, sizeof(dims), ", \"output_dims\": [%d, %d, %d, %d]", n, ch, h, wd);
  emit("cudnnGetConvolution2dForwardOutputDim [" + c.label + "]", st, c.setters_json() + dims);
  size_t bytes = 0;
  emit("cudnnGetConvolutionForwardWorkspaceSize(handle = nullptr, IMPLICIT_PRECOMP_GEMM) [" + c.label + "]",
       cudnnGetConvolutionForwardWorkspaceSize(nullptr, c.x, c.w, c.conv, c.y,
                                               CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, &bytes));
}

}  // namespace

int main() {
  std::printf("{\"cudnnGetVersion\": %zu, \"CUDNN_VERSION\": %d, \"cudnnGetCudartVersion\": %zu}\n", cudnnGetVersion(),
              CUDNN_VERSION, cudnnGetCudartVersion());
  cudnnHandle_t handle = nullptr;
  emit("cudnnCreate", cudnnCreate(&handle));
  if (handle) cudnnDestroy(handle);

  for (const Type& t : kTypes) legacy(t);
  {
    const Type f{"FLOAT", CUDNN_DATA_FLOAT}, i8{"INT8", CUDNN_DATA_INT8}, i32{"INT32", CUDNN_DATA_INT32},
        u8{"UINT8", CUDNN_DATA_UINT8};
    legacy_mixed(f, f, f, f);
    legacy_mixed(i8, i8, i8, i32);
    legacy_mixed(i8, i8, f, i32);
    legacy_mixed(i32, i8, f, i32);
    legacy_mixed(i32, f, f, f);
    legacy_mixed(i32, i32, i32, i32);
    legacy_mixed(u8, i8, f, i32);
    legacy_mixed(u8, f, f, f);
  }

  const Type f{"FLOAT", CUDNN_DATA_FLOAT}, i32{"INT32", CUDNN_DATA_INT32};
  for (const Type& t : kTypes) backend_conv(t, true);
  // Data type of x and w, compute type, data type of y.
  backend(f, f, f);
  backend(Type{"HALF", CUDNN_DATA_HALF}, f, Type{"HALF", CUDNN_DATA_HALF});
  backend(Type{"INT8", CUDNN_DATA_INT8}, i32, f);
  backend(Type{"INT8", CUDNN_DATA_INT8}, i32, Type{"INT8", CUDNN_DATA_INT8});
  backend(i32, i32, i32);
  backend(i32, f, f);
  backend(Type{"INT64", CUDNN_DATA_INT64}, Type{"INT64", CUDNN_DATA_INT64}, Type{"INT64", CUDNN_DATA_INT64});
  backend(Type{"INT64", CUDNN_DATA_INT64}, f, f);
  backend(Type{"UINT8", CUDNN_DATA_UINT8}, i32, f);
  backend(Type{"BOOLEAN", CUDNN_DATA_BOOLEAN}, f, f);
  return 0;
}
