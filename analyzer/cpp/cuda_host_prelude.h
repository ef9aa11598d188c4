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
