// The part of the cuDNN 9 and CUDA runtime C ABIs gpu_check calls, declared here so that
// cudnnlint builds and runs without either installed: both libraries are loaded at run time
// (dlopen), never linked. Enumerator values and signatures are those of cuDNN 9.19's
// cudnn_graph.h / cudnn_ops.h / cudnn_cnn.h and CUDA 13's cuda_runtime_api.h;
// tests/unit/test_cudnn_abi.cpp checks them against the real headers when those are present.
#pragma once

#include <cstddef>

namespace cudnnlint::gpu::abi {

using cudnnStatus_t = int;
using cudnnHandle_t = struct cudnnContext*;
using cudnnTensorDescriptor_t = struct cudnnTensorStruct*;
using cudnnFilterDescriptor_t = struct cudnnFilterStruct*;
using cudnnConvolutionDescriptor_t = struct cudnnConvolutionStruct*;
using cudnnDataType_t = int;
using cudnnTensorFormat_t = int;
using cudnnConvolutionMode_t = int;
using cudnnBatchNormMode_t = int;
using cudnnConvolutionFwdAlgo_t = int;

inline constexpr cudnnStatus_t CUDNN_STATUS_SUCCESS = 0;
inline constexpr cudnnStatus_t CUDNN_STATUS_BAD_PARAM = 2000;

inline constexpr cudnnDataType_t CUDNN_DATA_FLOAT = 0;
inline constexpr cudnnDataType_t CUDNN_DATA_DOUBLE = 1;
inline constexpr cudnnDataType_t CUDNN_DATA_HALF = 2;
inline constexpr cudnnDataType_t CUDNN_DATA_INT8 = 3;
inline constexpr cudnnDataType_t CUDNN_DATA_INT32 = 4;
inline constexpr cudnnDataType_t CUDNN_DATA_UINT8 = 6;
inline constexpr cudnnDataType_t CUDNN_DATA_BFLOAT16 = 9;
inline constexpr cudnnDataType_t CUDNN_DATA_INT64 = 10;
inline constexpr cudnnDataType_t CUDNN_DATA_BOOLEAN = 11;

inline constexpr cudnnTensorFormat_t CUDNN_TENSOR_NCHW = 0;
inline constexpr cudnnTensorFormat_t CUDNN_TENSOR_NHWC = 1;
inline constexpr cudnnTensorFormat_t CUDNN_TENSOR_NCHW_VECT_C = 2;

inline constexpr cudnnConvolutionMode_t CUDNN_CROSS_CORRELATION = 1;
inline constexpr cudnnBatchNormMode_t CUDNN_BATCHNORM_PER_ACTIVATION = 0;
inline constexpr cudnnBatchNormMode_t CUDNN_BATCHNORM_SPATIAL = 1;

struct cudnnConvolutionFwdAlgoPerf_t {
  cudnnConvolutionFwdAlgo_t algo;
  cudnnStatus_t status;
  float time;
  std::size_t memory;
  int determinism;
  int mathType;
  int reserved[3];
};

// cuDNN (libcudnn.so.9 and the sub-libraries it loads itself).
using GetVersion = std::size_t (*)();
using GetErrorString = const char* (*)(cudnnStatus_t);
using CreateTensorDescriptor = cudnnStatus_t (*)(cudnnTensorDescriptor_t*);
using DestroyTensorDescriptor = cudnnStatus_t (*)(cudnnTensorDescriptor_t);
using SetTensor4dDescriptor = cudnnStatus_t (*)(cudnnTensorDescriptor_t, cudnnTensorFormat_t, cudnnDataType_t, int,
                                                int, int, int);
using SetTensor4dDescriptorEx = cudnnStatus_t (*)(cudnnTensorDescriptor_t, cudnnDataType_t, int, int, int, int, int,
                                                  int, int, int);
using SetTensorNdDescriptor = cudnnStatus_t (*)(cudnnTensorDescriptor_t, cudnnDataType_t, int, const int*,
                                                const int*);
using CreateFilterDescriptor = cudnnStatus_t (*)(cudnnFilterDescriptor_t*);
using DestroyFilterDescriptor = cudnnStatus_t (*)(cudnnFilterDescriptor_t);
using SetFilter4dDescriptor = cudnnStatus_t (*)(cudnnFilterDescriptor_t, cudnnDataType_t, cudnnTensorFormat_t, int,
                                                int, int, int);
using CreateConvolutionDescriptor = cudnnStatus_t (*)(cudnnConvolutionDescriptor_t*);
using DestroyConvolutionDescriptor = cudnnStatus_t (*)(cudnnConvolutionDescriptor_t);
using SetConvolution2dDescriptor = cudnnStatus_t (*)(cudnnConvolutionDescriptor_t, int, int, int, int, int, int,
                                                     cudnnConvolutionMode_t, cudnnDataType_t);
using GetConvolution2dForwardOutputDim = cudnnStatus_t (*)(const cudnnConvolutionDescriptor_t,
                                                           const cudnnTensorDescriptor_t,
                                                           const cudnnFilterDescriptor_t, int*, int*, int*, int*);
using DeriveBNTensorDescriptor = cudnnStatus_t (*)(cudnnTensorDescriptor_t, const cudnnTensorDescriptor_t,
                                                   cudnnBatchNormMode_t);
using Create = cudnnStatus_t (*)(cudnnHandle_t*);
using Destroy = cudnnStatus_t (*)(cudnnHandle_t);
using BatchNormalizationForwardTraining = cudnnStatus_t (*)(
    cudnnHandle_t, cudnnBatchNormMode_t, const void*, const void*, const cudnnTensorDescriptor_t, const void*,
    const cudnnTensorDescriptor_t, void*, const cudnnTensorDescriptor_t, const void*, const void*, double, void*,
    void*, double, void*, void*);
using BatchNormalizationForwardInference = cudnnStatus_t (*)(
    cudnnHandle_t, cudnnBatchNormMode_t, const void*, const void*, const cudnnTensorDescriptor_t, const void*,
    const cudnnTensorDescriptor_t, void*, const cudnnTensorDescriptor_t, const void*, const void*, const void*,
    const void*, double);
using GetConvolutionForwardAlgorithm_v7 = cudnnStatus_t (*)(cudnnHandle_t, const cudnnTensorDescriptor_t,
                                                            const cudnnFilterDescriptor_t,
                                                            const cudnnConvolutionDescriptor_t,
                                                            const cudnnTensorDescriptor_t, const int, int*,
                                                            cudnnConvolutionFwdAlgoPerf_t*);
using GetConvolutionForwardWorkspaceSize = cudnnStatus_t (*)(cudnnHandle_t, const cudnnTensorDescriptor_t,
                                                             const cudnnFilterDescriptor_t,
                                                             const cudnnConvolutionDescriptor_t,
                                                             const cudnnTensorDescriptor_t, cudnnConvolutionFwdAlgo_t,
                                                             std::size_t*);
using ConvolutionForward = cudnnStatus_t (*)(cudnnHandle_t, const void*, const cudnnTensorDescriptor_t, const void*,
                                             const cudnnFilterDescriptor_t, const void*,
                                             const cudnnConvolutionDescriptor_t, cudnnConvolutionFwdAlgo_t, void*,
                                             std::size_t, const void*, const cudnnTensorDescriptor_t, void*);

// CUDA runtime (libcudart.so.13 / .12).
using cudaError_t = int;
inline constexpr cudaError_t cudaSuccess = 0;
inline constexpr int cudaMemcpyHostToDevice = 1;
inline constexpr int cudaMemcpyDeviceToHost = 2;
using CudaGetDeviceCount = cudaError_t (*)(int*);
using CudaRuntimeGetVersion = cudaError_t (*)(int*);
using CudaDriverGetVersion = cudaError_t (*)(int*);
using CudaMalloc = cudaError_t (*)(void**, std::size_t);
using CudaFree = cudaError_t (*)(void*);
using CudaMemcpy = cudaError_t (*)(void*, const void*, std::size_t, int);
using CudaDeviceSynchronize = cudaError_t (*)();
using CudaGetLastError = cudaError_t (*)();
using CudaPeekAtLastError = cudaError_t (*)();
using CudaGetErrorName = const char* (*)(cudaError_t);
using CudaGetErrorString = const char* (*)(cudaError_t);
using CudaDeviceGetAttribute = cudaError_t (*)(int*, int, int);
inline constexpr int cudaDevAttrComputeCapabilityMajor = 75;
inline constexpr int cudaDevAttrComputeCapabilityMinor = 76;

// CUDA driver (libcuda.so.1), only for the device's name.
using CUresult = int;
using CUdevice = int;
using CuInit = CUresult (*)(unsigned int);
using CuDeviceGet = CUresult (*)(CUdevice*, int);
using CuDeviceGetName = CUresult (*)(char*, int, CUdevice);

}  // namespace cudnnlint::gpu::abi
