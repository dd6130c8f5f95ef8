// SGNN_HOST_DEVICE: a function compiled for the host and, under nvcc, for
// CUDA kernels too (inline either way), so the CPU and CUDA backends share
// one formula.
#pragma once

#if defined(__CUDACC__)
#define SGNN_HOST_DEVICE __host__ __device__ __forceinline__
#else
#define SGNN_HOST_DEVICE inline
#endif
