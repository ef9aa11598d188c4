// cudnnlint's prelude for .cu files, analysed in clang's CUDA mode on the host side only and
// without clang's CUDA wrapper headers (which do not match CUDA 13): it declares just enough
// of what those wrappers would, so kernel bodies and <<<...>>> launches parse.
#pragma once
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
struct __cudnnlint_uint3 { unsigned x, y, z; };
extern const __cudnnlint_uint3 threadIdx, blockIdx, blockDim, gridDim;
extern const int warpSize;
extern "C" unsigned __cudaPushCallConfiguration(...);
// Device intrinsics kernels commonly call (declared by CUDA's device headers, which are not read).
__device__ void __syncthreads();
__device__ void __syncwarp(unsigned mask = 0xffffffffu);
__device__ void __threadfence();
__device__ float __expf(float);
__device__ float __logf(float);
__device__ float __powf(float, float);
__device__ float __sinf(float);
__device__ float __cosf(float);
__device__ float __fdividef(float, float);
__device__ float __saturatef(float);
template <class T> __device__ T atomicAdd(T*, T);
template <class T> __device__ T atomicMax(T*, T);
template <class T> __device__ T atomicMin(T*, T);
template <class T> __device__ T atomicExch(T*, T);
template <class T> __device__ T atomicCAS(T*, T, T);
template <class T> __device__ T __shfl_sync(unsigned, T, int, int = 32);
template <class T> __device__ T __shfl_down_sync(unsigned, T, unsigned, int = 32);
template <class T> __device__ T __shfl_xor_sync(unsigned, T, int, int = 32);
