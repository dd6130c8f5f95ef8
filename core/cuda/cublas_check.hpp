// Return-code check for cuBLAS calls (include only in CUDA backend sources
// that link CUDA::cublas), the counterpart of SGNN_CUDA_CHECK.
#pragma once

#include <cublas_v2.h>

#include "core/error.hpp"

namespace sgnn::cuda {

[[noreturn]] inline void throw_cublas_error(cublasStatus_t status, const char* call, const char* file, int line) {
  std::string message = detail::concat("cuBLAS error ", cublasGetStatusName(status), " (",
                                       cublasGetStatusString(status), ") in ", call, " at ", file, ":", line);
  if (status == CUBLAS_STATUS_ALLOC_FAILED) throw OutOfMemoryError(message);
  throw CudaError(message);
}

}  // namespace sgnn::cuda

#define SGNN_CUBLAS_CHECK(call)                                                 \
  do {                                                                          \
    const cublasStatus_t sgnn_status_ = (call);                                 \
    if (sgnn_status_ != CUBLAS_STATUS_SUCCESS) [[unlikely]] {                   \
      ::sgnn::cuda::throw_cublas_error(sgnn_status_, #call, __FILE__, __LINE__); \
    }                                                                           \
  } while (false)
