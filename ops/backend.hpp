// How an op reaches its backend.
//
// Each op family declares its backend entry points once, as a pair of
// overloads on a tag type, in ops/<family>_backend.hpp:
//
//   void relu_forward(Cpu, const Tensor& x, Tensor& y);
//   void relu_forward(Cuda, const Tensor& x, Tensor& y);
//
// ops/cpu/<family>.cpp defines the Cpu overloads (the reference, OpenMP),
// ops/cuda/<family>.cu the Cuda ones. Backend functions write into outputs
// the caller allocated; the public op in ops/<family>.cpp allocates, checks
// arguments, dispatches and records the autograd node.
#pragma once

#include "core/error.hpp"
#include "core/tensor.hpp"

namespace sgnn::ops {

struct Cpu {};
struct Cuda {};

namespace detail {
inline InvalidArgument no_cuda_backend(const char* function) {
  return InvalidArgument(::sgnn::detail::concat(
      function, ": tensor is on a CUDA device, but this build of sparsegnn has no CUDA backend"));
}
}  // namespace detail

}  // namespace sgnn::ops

// SGNN_DISPATCH(device, function, args...) calls function(Cuda{}, args...)
// for a CUDA device and function(Cpu{}, args...) otherwise.
#ifdef SGNN_WITH_CUDA
#define SGNN_DISPATCH(device, function, ...)                                   \
  ((device).is_cuda() ? function(::sgnn::ops::Cuda{}, __VA_ARGS__)             \
                      : function(::sgnn::ops::Cpu{}, __VA_ARGS__))
#else
#define SGNN_DISPATCH(device, function, ...)                                   \
  ((device).is_cuda() ? throw ::sgnn::ops::detail::no_cuda_backend(#function)  \
                      : function(::sgnn::ops::Cpu{}, __VA_ARGS__))
#endif
