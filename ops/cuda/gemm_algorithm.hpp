// The cuBLASLt algorithm of one GEMM shape, measured (CUDA backend only;
// ops/cuda/matmul.cpp's one caller).
//
// cuBLAS's default heuristic picks one kernel per shape without running it.
// For the skinny products of GNN layers (thousands of rows, a K of hundreds
// to thousands of input features, 16-256 outputs) it picked 256x64 tiles
// that gave a 3327 x 3703 x 64 product 13 thread blocks on 132 SMs (57 µs,
// ncu on the H200). So the first call of a shape asks cuBLASLt's heuristic
// for its candidates (split-K among them), adds our 3xTF32 kernel where a
// product without transposes has at most 64 output columns
// (gemm_narrow.hpp), times each on the call's own operands
// (ops/kernel_timer.hpp's candidate_ms), and keeps the fastest for the rest
// of the process; every later call of the shape runs it. Training stores
// the choices beside the graph's sparse ones (ops/gemm_choices.hpp). As the
// sparse kernel choices do, it times only on a CUDA device outside CUDA
// Graph capture and with kernel tuning on; elsewhere a shape without a
// choice runs cuBLAS's default. Under ops::set_deterministic(true) every
// shape runs cuBLAS's default, chosen or not (the candidates sum K in
// different orders, and which wins depends on a timing).
#pragma once

#include <cublasLt.h>
#include <cublas_v2.h>

#include <cstdint>
#include <map>
#include <string>

#include "core/device.hpp"

namespace sgnn::ops::gemm_cuda {

// A column-major cuBLAS GEMM, C[m, n] = op(A)·op(B), every operand dense
// with the given leading dimensions, alpha 1 and beta 0 (C is overwritten;
// it must not alias A or B).
struct GemmCall {
  cublasOperation_t transpose_a = CUBLAS_OP_N;
  cublasOperation_t transpose_b = CUBLAS_OP_N;
  int m = 0, n = 0, k = 0;
  const void* a = nullptr;
  int lda = 0;
  const void* b = nullptr;
  int ldb = 0;
  void* c = nullptr;
  int ldc = 0;
  cudaDataType_t operand_type = CUDA_R_32F;
  cudaDataType_t result_type = CUDA_R_32F;
  cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
};

// The device's cuBLASLt handle and the workspace its algorithms may use
// (matmul.cpp owns both, one per device, for the life of the process).
struct GemmContext {
  Device device;
  cublasLtHandle_t handle = nullptr;
  void* workspace = nullptr;
  std::size_t workspace_bytes = 0;
};

// Runs `call` with its shape's chosen algorithm on the library's stream of
// the context's device, choosing it first where timing is allowed (above).
// False where no choice exists and none may be made, or in deterministic
// mode: the caller runs the default. cuBLAS errors -> CudaError.
bool run_chosen_gemm(const GemmContext& context, const GemmCall& call);

// The process's choices as text (ops/gemm_choices.hpp): key "gemm:" and the
// shape's fields, value the cuBLASLt version and the algorithm's 64 bytes, or
// "sgnn:3xtf32" for our narrow kernel (read back where it takes the shape).
std::map<std::string, std::string> export_choices();
// Choices read back: a later first call of such a shape on any device runs
// the stored algorithm, without timing, where cublasLtMatmulAlgoCheck accepts
// it for that call within the workspace (else it is timed as usual). Entries
// of another cuBLASLt version, or not parsed, are ignored.
void import_choices(const std::map<std::string, std::string>& choices);
void forget_choices();  // ops::forget_gemm_choices

}  // namespace sgnn::ops::gemm_cuda
