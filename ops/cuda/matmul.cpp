// CUDA matmul through cuBLAS (row-major on top of column-major cuBLAS).
//
// A row-major [r, c] matrix is the column-major [c, r] matrix, its transpose.
// So row-major C = op(A)·op(B) is column-major Cᵀ = op(B)ᵀ·op(A)ᵀ: we call
// gemm with the operands swapped, (n, m, k) and each operand's leading
// dimension = the column count of its row-major storage.
// bfloat16 operands run on BF16 tensor cores with float accumulation
// (CUBLAS_COMPUTE_32F), writing C as bfloat16 or float32 (a weight gradient
// xᵀ·dY keeps float32: ops/matmul.hpp).
#include <array>
#include <climits>
#include <mutex>

#include "core/cuda/cublas_check.hpp"
#include "core/cuda_runtime.hpp"
#include "ops/cuda/gemm_algorithm.hpp"
#include "ops/matmul.hpp"
#include "ops/matmul_backend.hpp"

namespace sgnn::ops {

namespace {

constexpr int kMaxDevices = 64;
// A fixed workspace makes cuBLAS allocate nothing per call, which CUDA Graph
// capture of a training step requires.
constexpr std::size_t kWorkspaceBytes = std::size_t{32} << 20;

// Per device, created on first use and kept for the life of the process:
// a cuBLAS handle bound to the library's stream, the cuBLASLt handle of the
// measured algorithms (gemm_algorithm.hpp), and the workspace both use.
struct DeviceHandles {
  cublasHandle_t cublas = nullptr;
  gemm_cuda::GemmContext lt;
};

const DeviceHandles& handles(Device device) {
  static std::array<DeviceHandles, kMaxDevices> all{};
  static std::array<std::once_flag, kMaxDevices> created;
  SGNN_CHECK(device.index >= 0 && device.index < kMaxDevices, "matmul: CUDA device index ", device.index,
             " out of range");
  const auto slot = static_cast<std::size_t>(device.index);
  std::call_once(created[slot], [&] {
    cuda::DeviceGuard guard(device);
    DeviceHandles& h = all[slot];
    SGNN_CUBLAS_CHECK(cublasCreate(&h.cublas));
    SGNN_CUBLAS_CHECK(cublasSetStream(h.cublas, cuda::stream(device)));
    SGNN_CUDA_CHECK(cudaMalloc(&h.lt.workspace, kWorkspaceBytes));
    SGNN_CUBLAS_CHECK(cublasSetWorkspace(h.cublas, h.lt.workspace, kWorkspaceBytes));
    SGNN_CUBLAS_CHECK(cublasLtCreate(&h.lt.handle));
    h.lt.device = device;
    h.lt.workspace_bytes = kWorkspaceBytes;
  });
  return all[slot];
}

int to_int(int64_t value, const char* what) {
  SGNN_CHECK(value <= INT_MAX, "matmul: ", what, " = ", value, " exceeds cuBLAS's 32-bit limit");
  return static_cast<int>(value);
}

}  // namespace

void matmul_forward(Cuda, const Tensor& a, bool transpose_a, const Tensor& b, bool transpose_b, Tensor& c) {
  const int64_t m = c.size(0);
  const int64_t n = c.size(1);
  const int64_t k = transpose_a ? a.size(0) : a.size(1);
  if (m == 0 || n == 0) return;
  const Device device = c.device();
  cuda::DeviceGuard guard(device);
  if (k == 0) {  // an empty sum: cuBLAS is not asked to handle zero-sized operands
    SGNN_CUDA_CHECK(cudaMemsetAsync(c.raw_data(), 0, c.nbytes(), cuda::stream(device)));
    return;
  }
  const DeviceHandles& device_handles = handles(device);
  const float alpha = 1.0f;
  const float beta = 0.0f;
  const bool narrow = a.dtype() == DType::BFloat16;
  const cudaDataType_t operand_type = narrow ? CUDA_R_16BF : CUDA_R_32F;
  const cudaDataType_t result_type = c.dtype() == DType::BFloat16 ? CUDA_R_16BF : CUDA_R_32F;
  // TF32 applies to float32 operands only; bfloat16 ones use BF16 tensor cores under COMPUTE_32F.
  const cublasComputeType_t compute =
      allow_tf32() && !narrow ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
  gemm_cuda::GemmCall call;
  call.transpose_a = transpose_b ? CUBLAS_OP_T : CUBLAS_OP_N;
  call.transpose_b = transpose_a ? CUBLAS_OP_T : CUBLAS_OP_N;
  call.m = to_int(n, "n");
  call.n = to_int(m, "m");
  call.k = to_int(k, "k");
  call.a = b.raw_data();
  call.lda = to_int(b.size(1), "ldb");
  call.b = a.raw_data();
  call.ldb = to_int(a.size(1), "lda");
  call.c = c.raw_data();
  call.ldc = call.m;
  call.operand_type = operand_type;
  call.result_type = result_type;
  call.compute = compute;
  // The shape's measured cuBLASLt algorithm (gemm_algorithm.hpp), else cuBLAS's default.
  if (gemm_cuda::run_chosen_gemm(device_handles.lt, call)) return;
  SGNN_CUBLAS_CHECK(cublasGemmEx(device_handles.cublas, call.transpose_a, call.transpose_b, call.m, call.n, call.k,
                                 &alpha, call.a, operand_type, call.lda, call.b, operand_type, call.ldb, &beta, call.c,
                                 result_type, call.ldc, compute, CUBLAS_GEMM_DEFAULT));
}

}  // namespace sgnn::ops
