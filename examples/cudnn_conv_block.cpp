// A conv + batch-norm block written against the cuDNN C API. Expected findings:
// cudnn-conv-output-empty (a 3x3 filter over a 2x2 feature map without padding) and
// bn-eps-negative (kBnEps has a sign slip).
#include <cudnn.h>

constexpr int kFeatureMap = 2;   // the last stage of a 64x64 input after five stride-2 stages
constexpr double kBnEps = -1e-5;

void conv_bn_forward(cudnnHandle_t handle, void* x, void* w, void* y, void* scale, void* bias, void* mean,
                     void* var) {
  cudnnTensorDescriptor_t x_desc, y_desc, bn_desc;
  cudnnFilterDescriptor_t w_desc;
  cudnnConvolutionDescriptor_t conv_desc;
  cudnnCreateTensorDescriptor(&x_desc);
  cudnnCreateTensorDescriptor(&y_desc);
  cudnnCreateTensorDescriptor(&bn_desc);
  cudnnCreateFilterDescriptor(&w_desc);
  cudnnCreateConvolutionDescriptor(&conv_desc);

  cudnnSetTensor4dDescriptor(x_desc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 8, 512, kFeatureMap, kFeatureMap);
  cudnnSetFilter4dDescriptor(w_desc, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 512, 512, 3, 3);
  cudnnSetConvolution2dDescriptor(conv_desc, 0, 0, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT);
  int n, c, h, wd;
  cudnnGetConvolution2dForwardOutputDim(conv_desc, x_desc, w_desc, &n, &c, &h, &wd);
  cudnnSetTensor4dDescriptor(y_desc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, c, h, wd);

  const float one = 1.0f, zero = 0.0f;
  cudnnDeriveBNTensorDescriptor(bn_desc, y_desc, CUDNN_BATCHNORM_SPATIAL);
  cudnnBatchNormalizationForwardInference(handle, CUDNN_BATCHNORM_SPATIAL, &one, &zero, y_desc, y, y_desc, y,
                                          bn_desc, scale, bias, mean, var, kBnEps);
  (void)x;
  (void)w;
}
