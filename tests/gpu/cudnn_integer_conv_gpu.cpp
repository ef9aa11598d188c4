// On a GPU: does libcudnn run an integer (INT32 / INT64 / UINT8) or mixed-type convolution once a handle
// exists? tests/probes/cudnn_integer_descriptors.cpp showed that, without a GPU, every descriptor step accepts
// them; this probe takes the steps that need a device: the legacy algorithm query
// (cudnnGetConvolutionForwardAlgorithm_v7), the workspace query and cudnnConvolutionForward for each of the
// eight forward algorithms, and in the backend API the engine heuristics, execution plans finalized with a
// handle, and the execution of the first plan that finalizes. Every status is one JSON line.
// Build (here, then carry the binary; the GPU machine has CUDA 13 and cuDNN 9 at run time):
//   g++ -std=c++17 -O1 tests/gpu/cudnn_integer_conv_gpu.cpp -I/usr/local/cuda/include -L/usr/local/cuda/lib64
//       -lcudnn -lcudart -o cudnn_integer_conv_gpu   (tests/gpu/pack_for_device.sh does it)
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include "../probes/cudnn_probe_io.h"

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace {

using cudnn_probe::emit;
using cudnn_probe::escape;
using cudnn_probe::Type;
const Type F{"FLOAT", CUDNN_DATA_FLOAT}, H{"HALF", CUDNN_DATA_HALF}, D{"DOUBLE", CUDNN_DATA_DOUBLE},
    I8{"INT8", CUDNN_DATA_INT8}, I32{"INT32", CUDNN_DATA_INT32}, I64{"INT64", CUDNN_DATA_INT64},
    U8{"UINT8", CUDNN_DATA_UINT8};

// Device buffers large enough for any case here (x 1x4x8x8, w 8x4x3x3, y 1x8x8x8, 8 bytes an element),
// zero-filled, and a workspace.
struct Buffers {
  void* x = nullptr;
  void* w = nullptr;
  void* y = nullptr;
  void* workspace = nullptr;
  size_t workspace_bytes = 64u << 20;
  bool ok = false;
  Buffers() {
    ok = cudaMalloc(&x, 4096) == cudaSuccess && cudaMalloc(&w, 4096) == cudaSuccess &&
         cudaMalloc(&y, 8192) == cudaSuccess && cudaMalloc(&workspace, workspace_bytes) == cudaSuccess;
    if (ok) ok = cudaMemset(x, 0, 4096) == cudaSuccess && cudaMemset(w, 0, 4096) == cudaSuccess;
  }
  ~Buffers() {
    for (void* p : {x, w, y, workspace}) cudaFree(p);
  }
};

std::string sync_status() {
  cudaError_t e = cudaDeviceSynchronize();
  return "\"cudaDeviceSynchronize\": \"" + std::string(cudaGetErrorName(e)) + "\"";
}

void legacy(cudnnHandle_t handle, Buffers& buf, const Type& xt, const Type& wt, const Type& yt, const Type& ct,
            cudnnTensorFormat_t fmt) {
  const cudnn_probe::LegacyConvolution c(xt, wt, yt, ct, fmt);
  const std::string& label = c.label;
  cudnnTensorDescriptor_t x = c.x, y = c.y;
  cudnnFilterDescriptor_t w = c.w;
  cudnnConvolutionDescriptor_t conv = c.conv;
  emit("descriptors [" + label + "]", c.first_failure(), c.setters_json());

  cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
  int returned = 0;
  cudnnStatus_t hs = cudnnGetConvolutionForwardAlgorithm_v7(handle, x, w, conv, y, CUDNN_CONVOLUTION_FWD_ALGO_COUNT,
                                                            &returned, perf);
  std::string algos;
  for (int i = 0; hs == CUDNN_STATUS_SUCCESS && i < returned; ++i) {
    if (!algos.empty()) algos += ", ";
    algos += "[" + std::to_string(perf[i].algo) + ", \"" + cudnnGetErrorString(perf[i].status) + "\"]";
  }
  emit("cudnnGetConvolutionForwardAlgorithm_v7 [" + label + "]", hs,
       "\"returned\": " + std::to_string(returned) + ", \"algo_status\": [" + algos + "]");

  int ran = 0;
  for (int a = 0; a < CUDNN_CONVOLUTION_FWD_ALGO_COUNT; ++a) {
    auto algo = static_cast<cudnnConvolutionFwdAlgo_t>(a);
    size_t bytes = 0;
    cudnnStatus_t ws = cudnnGetConvolutionForwardWorkspaceSize(handle, x, w, conv, y, algo, &bytes);
    cudnnStatus_t fs = ws;
    std::string extra = "\"workspace_status\": \"" + std::string(cudnnGetErrorString(ws)) + "\"";
    if (ws == CUDNN_STATUS_SUCCESS && bytes <= buf.workspace_bytes) {
      // alpha and beta are float for every data type but DOUBLE.
      double da = 1.0, db = 0.0;
      float fa = 1.0f, fb = 0.0f;
      const bool dbl = xt.value == CUDNN_DATA_DOUBLE;
      fs = cudnnConvolutionForward(handle, dbl ? static_cast<void*>(&da) : &fa, x, buf.x, w, buf.w, conv, algo,
                                   buf.workspace, bytes, dbl ? static_cast<void*>(&db) : &fb, y, buf.y);
      extra += ", " + sync_status();
      if (fs == CUDNN_STATUS_SUCCESS) ++ran;
    }
    emit("cudnnConvolutionForward(algo " + std::to_string(a) + ") [" + label + "]", fs, extra);
  }
  emit("legacy summary [" + label + "]", ran > 0 ? CUDNN_STATUS_SUCCESS : CUDNN_STATUS_NOT_SUPPORTED,
       "\"algorithms_that_ran\": " + std::to_string(ran));
}

cudnnBackendDescriptor_t backend_tensor(const Type& t, int64_t uid, const std::vector<int64_t>& dims) {
  cudnnBackendDescriptor_t d = nullptr;
  cudnnBackendCreateDescriptor(CUDNN_BACKEND_TENSOR_DESCRIPTOR, &d);
  std::vector<int64_t> strides = {dims[1] * dims[2] * dims[3], 1, dims[3] * dims[1], dims[1]};  // NHWC
  int64_t alignment = 16;
  cudnnDataType_t dt = t.value;
  cudnnBackendSetAttribute(d, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &dt);
  cudnnBackendSetAttribute(d, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, dims.data());
  cudnnBackendSetAttribute(d, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 4, strides.data());
  cudnnBackendSetAttribute(d, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid);
  cudnnBackendSetAttribute(d, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &alignment);
  cudnnBackendFinalize(d);
  return d;
}

cudnnBackendDescriptor_t backend_conv(const Type& comp) {
  cudnnBackendDescriptor_t c = nullptr;
  cudnnBackendCreateDescriptor(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR, &c);
  int64_t spatial = 2;
  std::vector<int64_t> pad = {1, 1}, stride = {1, 1}, dil = {1, 1};
  cudnnDataType_t ct = comp.value;
  cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;
  cudnnBackendSetAttribute(c, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &ct);
  cudnnBackendSetAttribute(c, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, &mode);
  cudnnBackendSetAttribute(c, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1, &spatial);
  cudnnBackendSetAttribute(c, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, 2, pad.data());
  cudnnBackendSetAttribute(c, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, 2, pad.data());
  cudnnBackendSetAttribute(c, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, 2, stride.data());
  cudnnBackendSetAttribute(c, CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, 2, dil.data());
  cudnnBackendFinalize(c);
  return c;
}

// Executes a finalized plan once on the buffers (uids 1, 2, 3 are x, w, y).
cudnnStatus_t execute(cudnnHandle_t handle, cudnnBackendDescriptor_t plan, Buffers& buf, std::string& extra) {
  int64_t ws = -1;
  cudnnBackendGetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1, nullptr, &ws);
  extra += ", \"workspace\": " + std::to_string(ws);
  if (ws < 0 || static_cast<size_t>(ws) > buf.workspace_bytes) return CUDNN_STATUS_NOT_SUPPORTED;
  void* ptrs[3] = {buf.x, buf.w, buf.y};
  int64_t uids[3] = {1, 2, 3};
  cudnnBackendDescriptor_t pack = nullptr;
  cudnnBackendCreateDescriptor(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &pack);
  cudnnBackendSetAttribute(pack, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, 3, ptrs);
  cudnnBackendSetAttribute(pack, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 3, uids);
  cudnnBackendSetAttribute(pack, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &buf.workspace);
  cudnnStatus_t st = cudnnBackendFinalize(pack);
  if (st == CUDNN_STATUS_SUCCESS) st = cudnnBackendExecute(handle, plan, pack);
  extra += ", " + sync_status();
  cudnnBackendDestroyDescriptor(pack);
  return st;
}

void backend(cudnnHandle_t handle, Buffers& buf, const Type& data, const Type& comp, const Type& out) {
  const std::string label = std::string("x/w ") + data.name + ", y " + out.name + ", comp " + comp.name + ", NHWC";
  cudnnBackendDescriptor_t x = backend_tensor(data, 1, {1, 4, 8, 8});
  cudnnBackendDescriptor_t w = backend_tensor(data, 2, {8, 4, 3, 3});
  cudnnBackendDescriptor_t y = backend_tensor(out, 3, {1, 8, 8, 8});
  cudnnBackendDescriptor_t c = backend_conv(comp);
  cudnnBackendDescriptor_t op = nullptr;
  cudnnBackendCreateDescriptor(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR, &op);
  float alpha = 1.0f, beta = 0.0f;
  cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x);
  cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &w);
  cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &y);
  cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &c);
  cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, CUDNN_TYPE_FLOAT, 1, &alpha);
  cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, CUDNN_TYPE_FLOAT, 1, &beta);
  cudnnStatus_t ost = cudnnBackendFinalize(op);
  emit("operation [" + label + "]", ost);

  cudnnBackendDescriptor_t graph = nullptr;
  cudnnBackendCreateDescriptor(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, &graph);
  cudnnBackendSetAttribute(graph, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &op);
  cudnnBackendSetAttribute(graph, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle);
  cudnnStatus_t gst = cudnnBackendFinalize(graph);
  emit("operation graph with handle [" + label + "]", gst);

  for (cudnnBackendHeurMode_t hm : {CUDNN_HEUR_MODE_INSTANT, CUDNN_HEUR_MODE_FALLBACK}) {
    if (gst != CUDNN_STATUS_SUCCESS) break;
    const std::string mode = hm == CUDNN_HEUR_MODE_INSTANT ? "INSTANT" : "FALLBACK";
    cudnnBackendDescriptor_t heur = nullptr;
    cudnnBackendCreateDescriptor(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, &heur);
    cudnnBackendSetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &graph);
    cudnnBackendSetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &hm);
    cudnnStatus_t hst = cudnnBackendFinalize(heur);
    std::vector<cudnnBackendDescriptor_t> cfgs(64, nullptr);
    for (auto& d : cfgs) cudnnBackendCreateDescriptor(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, &d);
    int64_t got = 0;
    if (hst == CUDNN_STATUS_SUCCESS)
      hst = cudnnBackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                                     static_cast<int64_t>(cfgs.size()), &got, cfgs.data());
    emit("heuristics " + mode + " [" + label + "]", hst, "\"engine_configs\": " + std::to_string(got));
    int finalized = 0;
    bool executed = false;
    for (int64_t i = 0; hst == CUDNN_STATUS_SUCCESS && i < got && i < 64; ++i) {
      cudnnBackendDescriptor_t plan = nullptr;
      cudnnBackendCreateDescriptor(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &plan);
      cudnnBackendSetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle);
      cudnnBackendSetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &cfgs[i]);
      cudnnStatus_t pst = cudnnBackendFinalize(plan);
      if (pst == CUDNN_STATUS_SUCCESS) {
        ++finalized;
        if (!executed) {
          executed = true;
          std::string extra = "\"config\": " + std::to_string(i);
          cudnnStatus_t est = execute(handle, plan, buf, extra);
          emit("execute first finalized plan, " + mode + " [" + label + "]", est, extra);
        }
      } else if (i == 0) {
        emit("execution plan from config 0, " + mode + " [" + label + "]", pst);
      }
      cudnnBackendDestroyDescriptor(plan);
    }
    emit("plans finalized, " + mode + " [" + label + "]", finalized > 0 ? CUDNN_STATUS_SUCCESS : CUDNN_STATUS_NOT_SUPPORTED,
         "\"finalized\": " + std::to_string(finalized) + ", \"of\": " + std::to_string(got));
    for (auto d : cfgs) cudnnBackendDestroyDescriptor(d);
    cudnnBackendDestroyDescriptor(heur);
  }
  for (auto d : {graph, op, c, y, w, x}) cudnnBackendDestroyDescriptor(d);
}

}  // namespace

int main() {
  int runtime = 0, driver = 0;
  cudaRuntimeGetVersion(&runtime);
  cudaDriverGetVersion(&driver);
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  std::printf("{\"cudnnGetVersion\": %zu, \"cudart\": %d, \"driver\": %d, \"device\": \"%s\", \"sm\": %d%d}\n",
              cudnnGetVersion(), runtime, driver, escape(prop.name).c_str(), prop.major, prop.minor);
  cudnnHandle_t handle = nullptr;
  cudnnStatus_t hs = cudnnCreate(&handle);
  emit("cudnnCreate", hs);
  if (hs != CUDNN_STATUS_SUCCESS) return 1;
  {
    Buffers buf;
    if (!buf.ok) {
      std::printf("{\"error\": \"cudaMalloc failed\"}\n");
      return 1;
    }
    legacy(handle, buf, F, F, F, F, CUDNN_TENSOR_NCHW);
    legacy(handle, buf, F, F, F, F, CUDNN_TENSOR_NHWC);
    legacy(handle, buf, D, D, D, D, CUDNN_TENSOR_NCHW);
    legacy(handle, buf, I8, I8, I8, I32, CUDNN_TENSOR_NHWC);
    legacy(handle, buf, I8, I8, F, I32, CUDNN_TENSOR_NHWC);
    legacy(handle, buf, I32, I32, I32, I32, CUDNN_TENSOR_NCHW);
    legacy(handle, buf, I32, I32, I32, I32, CUDNN_TENSOR_NHWC);
    legacy(handle, buf, I32, I8, F, I32, CUDNN_TENSOR_NHWC);
    legacy(handle, buf, I32, F, F, F, CUDNN_TENSOR_NHWC);
    legacy(handle, buf, I64, I64, I64, I64, CUDNN_TENSOR_NCHW);
    legacy(handle, buf, U8, I8, F, I32, CUDNN_TENSOR_NHWC);
    legacy(handle, buf, U8, F, F, F, CUDNN_TENSOR_NHWC);
    backend(handle, buf, F, F, F);
    backend(handle, buf, H, F, H);
    backend(handle, buf, I8, I32, F);
    backend(handle, buf, I8, I32, I8);
    backend(handle, buf, I32, I32, I32);
    backend(handle, buf, I32, F, F);
    backend(handle, buf, I64, I64, I64);
    backend(handle, buf, I64, F, F);
    backend(handle, buf, U8, I32, F);
  }
  cudnnDestroy(handle);
  return 0;
}
