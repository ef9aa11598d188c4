// A stand-in for <cudnn.h>, read only when the include path has no real one (a machine without the
// CUDA toolkit or the cuDNN wheel: GitHub's runners). It declares what cudnnlint's rules read: the
// handle and descriptor types, the enumerations with cuDNN 9's values (cuDNN 9.19.0's headers), and
// the descriptor, convolution and batch-norm functions with their parameters in cuDNN's order.
// It names no version (no CUDNN_MAJOR): the target cuDNN still comes from --cudnn-version or the
// project's pins. Searched after every other include directory, so the real header always wins.
#pragma once
#ifndef CUDNN_H_
#define CUDNN_H_
#define CUDNNLINT_CUDNN_STAND_IN 1

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct CUstream_st *cudaStream_t;
typedef struct cudnnContext *cudnnHandle_t;
typedef struct cudnnTensorStruct *cudnnTensorDescriptor_t;
typedef struct cudnnFilterStruct *cudnnFilterDescriptor_t;
typedef struct cudnnConvolutionStruct *cudnnConvolutionDescriptor_t;
typedef struct cudnnActivationStruct *cudnnActivationDescriptor_t;

#define CUDNN_DIM_MAX 8
#define CUDNN_BN_MIN_EPSILON 0.0

typedef enum {
    CUDNN_STATUS_SUCCESS = 0, CUDNN_STATUS_NOT_INITIALIZED = 1001, CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH = 1002,
    CUDNN_STATUS_SERIALIZATION_VERSION_MISMATCH = 1003, CUDNN_STATUS_DEPRECATED = 1004,
    CUDNN_STATUS_LICENSE_ERROR = 1005, CUDNN_STATUS_RUNTIME_IN_PROGRESS = 1006,
    CUDNN_STATUS_RUNTIME_FP_OVERFLOW = 1007, CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED = 1008,
    CUDNN_STATUS_BAD_PARAM = 2000, CUDNN_STATUS_BAD_PARAM_NULL_POINTER = 2002,
    CUDNN_STATUS_BAD_PARAM_MISALIGNED_POINTER = 2003, CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED = 2004,
    CUDNN_STATUS_BAD_PARAM_OUT_OF_BOUND = 2005, CUDNN_STATUS_BAD_PARAM_SIZE_INSUFFICIENT = 2006,
    CUDNN_STATUS_BAD_PARAM_STREAM_MISMATCH = 2007, CUDNN_STATUS_BAD_PARAM_SHAPE_MISMATCH = 2008,
    CUDNN_STATUS_BAD_PARAM_DUPLICATED_ENTRIES = 2009, CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE = 2010,
    CUDNN_STATUS_BAD_PARAM_CUDA_GRAPH_MISMATCH = 2011, CUDNN_STATUS_BAD_PARAM_DESCRIPTOR_TYPE = 2012,
    CUDNN_STATUS_NOT_SUPPORTED = 3000, CUDNN_STATUS_NOT_SUPPORTED_GRAPH_PATTERN = 3001,
    CUDNN_STATUS_NOT_SUPPORTED_SHAPE = 3002, CUDNN_STATUS_NOT_SUPPORTED_DATA_TYPE = 3003,
    CUDNN_STATUS_NOT_SUPPORTED_LAYOUT = 3004, CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDA_DRIVER = 3005,
    CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDART = 3006, CUDNN_STATUS_NOT_SUPPORTED_ARCH_MISMATCH = 3007,
    CUDNN_STATUS_NOT_SUPPORTED_RUNTIME_PREREQUISITE_MISSING = 3008,
    CUDNN_STATUS_NOT_SUPPORTED_SUBLIBRARY_UNAVAILABLE = 3009,
    CUDNN_STATUS_NOT_SUPPORTED_SHARED_MEMORY_INSUFFICIENT = 3010, CUDNN_STATUS_NOT_SUPPORTED_PADDING = 3011,
    CUDNN_STATUS_NOT_SUPPORTED_BAD_LAUNCH_PARAM = 3012, CUDNN_STATUS_NOT_SUPPORTED_CUDA_GRAPH_NATIVE_API = 3013,
    CUDNN_STATUS_NOT_SUPPORTED_INVALID_DYNAMIC_SHAPE = 3014, CUDNN_STATUS_INTERNAL_ERROR = 4000,
    CUDNN_STATUS_INTERNAL_ERROR_COMPILATION_FAILED = 4001, CUDNN_STATUS_INTERNAL_ERROR_UNEXPECTED_VALUE = 4002,
    CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED = 4003,
    CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED = 4004,
    CUDNN_STATUS_INTERNAL_ERROR_BAD_LAUNCH_PARAM = 4005, CUDNN_STATUS_INTERNAL_ERROR_TEXTURE_CREATION_FAILED = 4006,
    CUDNN_STATUS_EXECUTION_FAILED = 5000, CUDNN_STATUS_EXECUTION_FAILED_CUDA_DRIVER = 5001,
    CUDNN_STATUS_EXECUTION_FAILED_CUBLAS = 5002, CUDNN_STATUS_EXECUTION_FAILED_CUDART = 5003,
    CUDNN_STATUS_EXECUTION_FAILED_CURAND = 5004,
    CUDNN_STATUS_ALLOC_FAILED = CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED,
    CUDNN_STATUS_INVALID_VALUE = 2001, CUDNN_STATUS_ARCH_MISMATCH = CUDNN_STATUS_NOT_SUPPORTED_ARCH_MISMATCH,
    CUDNN_STATUS_MAPPING_ERROR = CUDNN_STATUS_INTERNAL_ERROR_TEXTURE_CREATION_FAILED,
    CUDNN_STATUS_RUNTIME_PREREQUISITE_MISSING = CUDNN_STATUS_NOT_SUPPORTED_RUNTIME_PREREQUISITE_MISSING,
    CUDNN_STATUS_VERSION_MISMATCH = CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH,
} cudnnStatus_t;
typedef enum {
    CUDNN_DATA_FLOAT = 0, CUDNN_DATA_DOUBLE = 1, CUDNN_DATA_HALF = 2, CUDNN_DATA_INT8 = 3, CUDNN_DATA_INT32 = 4,
    CUDNN_DATA_INT8x4 = 5, CUDNN_DATA_UINT8 = 6, CUDNN_DATA_UINT8x4 = 7, CUDNN_DATA_INT8x32 = 8,
    CUDNN_DATA_BFLOAT16 = 9, CUDNN_DATA_INT64 = 10, CUDNN_DATA_BOOLEAN = 11, CUDNN_DATA_FP8_E4M3 = 12,
    CUDNN_DATA_FP8_E5M2 = 13, CUDNN_DATA_FAST_FLOAT_FOR_FP8 = 14, CUDNN_DATA_FP8_E8M0 = 15,
    CUDNN_DATA_FP4_E2M1 = 16, CUDNN_DATA_INT4 = 17, CUDNN_DATA_UINT4 = 18, CUDNN_DATA_UINT32 = 19,
    CUDNN_DATA_COMPLEX_FP32 = 20, CUDNN_DATA_COMPLEX_FP64 = 21,
} cudnnDataType_t;
typedef enum { CUDNN_TENSOR_NCHW = 0, CUDNN_TENSOR_NHWC = 1, CUDNN_TENSOR_NCHW_VECT_C = 2 } cudnnTensorFormat_t;
typedef enum { CUDNN_CONVOLUTION = 0, CUDNN_CROSS_CORRELATION = 1 } cudnnConvolutionMode_t;
typedef enum {
    CUDNN_BATCHNORM_PER_ACTIVATION = 0, CUDNN_BATCHNORM_SPATIAL = 1, CUDNN_BATCHNORM_SPATIAL_PERSISTENT = 2,
} cudnnBatchNormMode_t;
typedef enum {
    CUDNN_BATCHNORM_OPS_BN = 0, CUDNN_BATCHNORM_OPS_BN_ACTIVATION = 1, CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION = 2,
} cudnnBatchNormOps_t;
typedef enum {
    CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM = 0, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM = 1,
    CUDNN_CONVOLUTION_FWD_ALGO_GEMM = 2, CUDNN_CONVOLUTION_FWD_ALGO_DIRECT = 3, CUDNN_CONVOLUTION_FWD_ALGO_FFT = 4,
    CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING = 5, CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD = 6,
    CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED = 7, CUDNN_CONVOLUTION_FWD_ALGO_COUNT = 8,
} cudnnConvolutionFwdAlgo_t;
typedef enum { CUDNN_NORM_PER_ACTIVATION = 0, CUDNN_NORM_PER_CHANNEL = 1 } cudnnNormMode_t;
typedef enum { CUDNN_NORM_ALGO_STANDARD = 0, CUDNN_NORM_ALGO_PERSIST = 1 } cudnnNormAlgo_t;
typedef enum {
    CUDNN_NORM_OPS_NORM = 0, CUDNN_NORM_OPS_NORM_ACTIVATION = 1, CUDNN_NORM_OPS_NORM_ADD_ACTIVATION = 2,
} cudnnNormOps_t;
typedef enum {
    CUDNN_DEFAULT_MATH = 0, CUDNN_TENSOR_OP_MATH = 1, CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION = 2, CUDNN_FMA_MATH = 3,
} cudnnMathType_t;
typedef enum { CUDNN_NON_DETERMINISTIC = 0, CUDNN_DETERMINISTIC = 1 } cudnnDeterminism_t;
typedef enum { CUDNN_NOT_PROPAGATE_NAN = 0, CUDNN_PROPAGATE_NAN = 1 } cudnnNanPropagation_t;
typedef enum {
    CUDNN_ACTIVATION_SIGMOID = 0, CUDNN_ACTIVATION_RELU = 1, CUDNN_ACTIVATION_TANH = 2,
    CUDNN_ACTIVATION_CLIPPED_RELU = 3, CUDNN_ACTIVATION_ELU = 4, CUDNN_ACTIVATION_IDENTITY = 5,
    CUDNN_ACTIVATION_SWISH = 6,
} cudnnActivationMode_t;

typedef struct cudnnConvolutionFwdAlgoPerfStruct {
    cudnnConvolutionFwdAlgo_t algo;
    cudnnStatus_t status;
    float time;
    size_t memory;
    cudnnDeterminism_t determinism;
    cudnnMathType_t mathType;
    int reserved[3];
} cudnnConvolutionFwdAlgoPerf_t;

const char *cudnnGetErrorString(cudnnStatus_t status);

cudnnStatus_t cudnnCreate(cudnnHandle_t *handle);
cudnnStatus_t cudnnDestroy(cudnnHandle_t handle);
cudnnStatus_t cudnnSetStream(cudnnHandle_t handle, cudaStream_t streamId);
cudnnStatus_t cudnnCreateTensorDescriptor(cudnnTensorDescriptor_t *tensorDesc);
cudnnStatus_t cudnnDestroyTensorDescriptor(cudnnTensorDescriptor_t tensorDesc);
cudnnStatus_t cudnnSetTensor4dDescriptor(
    cudnnTensorDescriptor_t tensorDesc,  cudnnTensorFormat_t format,  cudnnDataType_t dataType,  int n,  int c,
    int h,  int w);
cudnnStatus_t cudnnSetTensor4dDescriptorEx(
    cudnnTensorDescriptor_t tensorDesc,  cudnnDataType_t dataType,  int n,  int c,  int h,  int w,  int nStride,
    int cStride,  int hStride,  int wStride);
cudnnStatus_t cudnnSetTensorNdDescriptor(
    cudnnTensorDescriptor_t tensorDesc,  cudnnDataType_t dataType,  int nbDims,  const int dimA[],
    const int strideA[]);
cudnnStatus_t cudnnCreateFilterDescriptor(cudnnFilterDescriptor_t *filterDesc);
cudnnStatus_t cudnnDestroyFilterDescriptor(cudnnFilterDescriptor_t filterDesc);
cudnnStatus_t cudnnSetFilter4dDescriptor(
    cudnnFilterDescriptor_t filterDesc,  cudnnDataType_t dataType,  cudnnTensorFormat_t format,  int k,  int c,
    int h,  int w);
cudnnStatus_t cudnnSetFilterNdDescriptor(
    cudnnFilterDescriptor_t filterDesc,  cudnnDataType_t dataType,  cudnnTensorFormat_t format,  int nbDims,
    const int filterDimA[]);
cudnnStatus_t cudnnCreateConvolutionDescriptor(cudnnConvolutionDescriptor_t *convDesc);
cudnnStatus_t cudnnDestroyConvolutionDescriptor(cudnnConvolutionDescriptor_t convDesc);
cudnnStatus_t cudnnSetConvolution2dDescriptor(
    cudnnConvolutionDescriptor_t convDesc,  int pad_h,  int pad_w,  int u,  int v,  int dilation_h,
    int dilation_w,  cudnnConvolutionMode_t mode,  cudnnDataType_t computeType);
cudnnStatus_t cudnnSetConvolutionNdDescriptor(
    cudnnConvolutionDescriptor_t convDesc,  int arrayLength,  const int padA[],  const int filterStrideA[],
    const int dilationA[],  cudnnConvolutionMode_t mode,  cudnnDataType_t computeType);
cudnnStatus_t cudnnSetConvolutionMathType(cudnnConvolutionDescriptor_t convDesc, cudnnMathType_t mathType);
cudnnStatus_t cudnnSetConvolutionGroupCount(cudnnConvolutionDescriptor_t convDesc, int groupCount);
cudnnStatus_t cudnnGetConvolution2dForwardOutputDim(
    const cudnnConvolutionDescriptor_t convDesc,  const cudnnTensorDescriptor_t inputTensorDesc,
    const cudnnFilterDescriptor_t filterDesc,  int *n,  int *c,  int *h,  int *w);
cudnnStatus_t cudnnGetConvolutionNdForwardOutputDim(
    const cudnnConvolutionDescriptor_t convDesc,  const cudnnTensorDescriptor_t inputTensorDesc,
    const cudnnFilterDescriptor_t filterDesc,  int nbDims,  int tensorOuputDimA[]);
cudnnStatus_t cudnnGetConvolutionForwardAlgorithm_v7(
    cudnnHandle_t handle,  const cudnnTensorDescriptor_t srcDesc,  const cudnnFilterDescriptor_t filterDesc,
    const cudnnConvolutionDescriptor_t convDesc,  const cudnnTensorDescriptor_t destDesc,
    const int requestedAlgoCount,  int *returnedAlgoCount,  cudnnConvolutionFwdAlgoPerf_t *perfResults);
cudnnStatus_t cudnnFindConvolutionForwardAlgorithm(
    cudnnHandle_t handle,  const cudnnTensorDescriptor_t xDesc,  const cudnnFilterDescriptor_t wDesc,
    const cudnnConvolutionDescriptor_t convDesc,  const cudnnTensorDescriptor_t yDesc,
    const int requestedAlgoCount,  int *returnedAlgoCount,  cudnnConvolutionFwdAlgoPerf_t *perfResults);
cudnnStatus_t cudnnGetConvolutionForwardWorkspaceSize(
    cudnnHandle_t handle,  const cudnnTensorDescriptor_t xDesc,  const cudnnFilterDescriptor_t wDesc,
    const cudnnConvolutionDescriptor_t convDesc,  const cudnnTensorDescriptor_t yDesc,
    cudnnConvolutionFwdAlgo_t algo,  size_t *sizeInBytes);
cudnnStatus_t cudnnConvolutionForward(
    cudnnHandle_t handle,  const void *alpha,  const cudnnTensorDescriptor_t xDesc,  const void *x,
    const cudnnFilterDescriptor_t wDesc,  const void *w,  const cudnnConvolutionDescriptor_t convDesc,
    cudnnConvolutionFwdAlgo_t algo,  void *workSpace,  size_t workSpaceSizeInBytes,  const void *beta,
    const cudnnTensorDescriptor_t yDesc,  void *y);
cudnnStatus_t cudnnConvolutionBiasActivationForward(
    cudnnHandle_t handle,  const void *alpha1,  const cudnnTensorDescriptor_t xDesc,  const void *x,
    const cudnnFilterDescriptor_t wDesc,  const void *w,  const cudnnConvolutionDescriptor_t convDesc,
    cudnnConvolutionFwdAlgo_t algo,  void *workSpace,  size_t workSpaceSizeInBytes,  const void *alpha2,
    const cudnnTensorDescriptor_t zDesc,  const void *z,  const cudnnTensorDescriptor_t biasDesc,
    const void *bias,  const cudnnActivationDescriptor_t activationDesc,  const cudnnTensorDescriptor_t yDesc,
    void *y);
cudnnStatus_t cudnnDeriveBNTensorDescriptor(
    cudnnTensorDescriptor_t derivedBnDesc,  const cudnnTensorDescriptor_t xDesc,  cudnnBatchNormMode_t mode);
cudnnStatus_t cudnnBatchNormalizationForwardInference(
    cudnnHandle_t handle,  cudnnBatchNormMode_t mode,  const void *alpha,  const void *beta,
    const cudnnTensorDescriptor_t xDesc,  const void *x,  const cudnnTensorDescriptor_t yDesc,  void *y,
    const cudnnTensorDescriptor_t bnScaleBiasMeanVarDesc,  const void *bnScale,  const void *bnBias,
    const void *estimatedMean,  const void *estimatedVariance,  double epsilon);
cudnnStatus_t cudnnBatchNormalizationForwardTraining(
    cudnnHandle_t handle,  cudnnBatchNormMode_t mode,  const void *alpha,  const void *beta,
    const cudnnTensorDescriptor_t xDesc,  const void *x,  const cudnnTensorDescriptor_t yDesc,  void *y,
    const cudnnTensorDescriptor_t bnScaleBiasMeanVarDesc,  const void *bnScale,  const void *bnBias,
    double exponentialAverageFactor,  void *resultRunningMean,  void *resultRunningVariance,  double epsilon,
    void *resultSaveMean,  void *resultSaveInvVariance);
cudnnStatus_t cudnnBatchNormalizationForwardTrainingEx(
    cudnnHandle_t handle,  cudnnBatchNormMode_t mode,  cudnnBatchNormOps_t bnOps,  const void *alpha,
    const void *beta,  const cudnnTensorDescriptor_t xDesc,  const void *xData,
    const cudnnTensorDescriptor_t zDesc,  const void *zData,  const cudnnTensorDescriptor_t yDesc,  void *yData,
    const cudnnTensorDescriptor_t bnScaleBiasMeanVarDesc,  const void *bnScale,  const void *bnBias,
    double exponentialAverageFactor,  void *resultRunningMean,  void *resultRunningVariance,  double epsilon,
    void *resultSaveMean,  void *resultSaveInvVariance,  cudnnActivationDescriptor_t activationDesc,
    void *workspace,  size_t workSpaceSizeInBytes,  void *reserveSpace,  size_t reserveSpaceSizeInBytes);
cudnnStatus_t cudnnBatchNormalizationBackward(
    cudnnHandle_t handle,  cudnnBatchNormMode_t mode,  const void *alphaDataDiff,  const void *betaDataDiff,
    const void *alphaParamDiff,  const void *betaParamDiff,  const cudnnTensorDescriptor_t xDesc,  const void *x,
    const cudnnTensorDescriptor_t dyDesc,  const void *dy,  const cudnnTensorDescriptor_t dxDesc,  void *dx,
    const cudnnTensorDescriptor_t dBnScaleBiasDesc,  const void *bnScale,  void *dBnScaleResult,
    void *dBnBiasResult,  double epsilon,  const void *savedMean,  const void *savedInvVariance);
cudnnStatus_t cudnnBatchNormalizationBackwardEx(
    cudnnHandle_t handle,  cudnnBatchNormMode_t mode,  cudnnBatchNormOps_t bnOps,  const void *alphaDataDiff,
    const void *betaDataDiff,  const void *alphaParamDiff,  const void *betaParamDiff,
    const cudnnTensorDescriptor_t xDesc,  const void *xData,  const cudnnTensorDescriptor_t yDesc,
    const void *yData,  const cudnnTensorDescriptor_t dyDesc,  const void *dyData,
    const cudnnTensorDescriptor_t dzDesc,  void *dzData,  const cudnnTensorDescriptor_t dxDesc,  void *dxData,
    const cudnnTensorDescriptor_t dBnScaleBiasDesc,  const void *bnScaleData,  const void *bnBiasData,
    void *dBnScaleData,  void *dBnBiasData,  double epsilon,  const void *savedMean,  const void *savedInvVariance,
    cudnnActivationDescriptor_t activationDesc,  void *workSpace,  size_t workSpaceSizeInBytes,
    void *reserveSpace,  size_t reserveSpaceSizeInBytes);
cudnnStatus_t cudnnNormalizationForwardInference(
    cudnnHandle_t handle,  cudnnNormMode_t mode,  cudnnNormOps_t normOps,  cudnnNormAlgo_t algo,
    const void *alpha,  const void *beta,  const cudnnTensorDescriptor_t xDesc,  const void *x,
    const cudnnTensorDescriptor_t normScaleBiasDesc,  const void *normScale,  const void *normBias,
    const cudnnTensorDescriptor_t normMeanVarDesc,  const void *estimatedMean,  const void *estimatedVariance,
    const cudnnTensorDescriptor_t zDesc,  const void *z,  cudnnActivationDescriptor_t activationDesc,
    const cudnnTensorDescriptor_t yDesc,  void *y,  double epsilon,  int groupCnt);
cudnnStatus_t cudnnNormalizationForwardTraining(
    cudnnHandle_t handle,  cudnnNormMode_t mode,  cudnnNormOps_t normOps,  cudnnNormAlgo_t algo,
    const void *alpha,  const void *beta,  const cudnnTensorDescriptor_t xDesc,  const void *xData,
    const cudnnTensorDescriptor_t normScaleBiasDesc,  const void *normScale,  const void *normBias,
    double exponentialAverageFactor,  const cudnnTensorDescriptor_t normMeanVarDesc,  void *resultRunningMean,
    void *resultRunningVariance,  double epsilon,  void *resultSaveMean,  void *resultSaveInvVariance,
    cudnnActivationDescriptor_t activationDesc,  const cudnnTensorDescriptor_t zDesc,  const void *zData,
    const cudnnTensorDescriptor_t yDesc,  void *yData,  void *workspace,  size_t workSpaceSizeInBytes,
    void *reserveSpace,  size_t reserveSpaceSizeInBytes,  int groupCnt);
cudnnStatus_t cudnnNormalizationBackward(
    cudnnHandle_t handle,  cudnnNormMode_t mode,  cudnnNormOps_t normOps,  cudnnNormAlgo_t algo,
    const void *alphaDataDiff,  const void *betaDataDiff,  const void *alphaParamDiff,  const void *betaParamDiff,
    const cudnnTensorDescriptor_t xDesc,  const void *xData,  const cudnnTensorDescriptor_t yDesc,
    const void *yData,  const cudnnTensorDescriptor_t dyDesc,  const void *dyData,
    const cudnnTensorDescriptor_t dzDesc,  void *dzData,  const cudnnTensorDescriptor_t dxDesc,  void *dxData,
    const cudnnTensorDescriptor_t dNormScaleBiasDesc,  const void *normScaleData,  const void *normBiasData,
    void *dNormScaleData,  void *dNormBiasData,  double epsilon,  const cudnnTensorDescriptor_t normMeanVarDesc,
    const void *savedMean,  const void *savedInvVariance,  cudnnActivationDescriptor_t activationDesc,
    void *workSpace,  size_t workSpaceSizeInBytes,  void *reserveSpace,  size_t reserveSpaceSizeInBytes,
    int groupCnt);

#ifdef __cplusplus
}
#endif

#endif  // CUDNN_H_
