// The 3xTF32 product with a narrow output (gemm_narrow.hpp).
//
// The kernel permutes the summed index inside each 8-wide step of the
// m16n8k8 fragments (mma.cuh): lane 4g + t holds summed indices 2t and
// 2t + 1 where the PTX layout names t and t + 4, so that a lane's two values
// of a row are adjacent in memory (one 8-byte load). The product does not
// depend on the order of the summed index, only on A and B using the same one.
//
// The tensor cores add a step's products into the accumulator without
// rounding to nearest (the low bits are cut), an error that grows with the
// number of steps summed into one accumulator: over k = 1433 it reached
// 1.0e-5 relative (H200, tests/gpu/dense_matmul_narrow_test.cpp). So each
// chunk of steps is summed from zero and added to the total with an FP32
// add, which rounds to nearest.
#include "ops/cuda/gemm_narrow.hpp"

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <set>
#include <utility>

#include "core/cuda/launch.cuh"
#include "core/cuda_runtime.hpp"
#include "ops/cuda/mma.cuh"  // mma_tf32

namespace sgnn::ops::gemm_cuda {

namespace {

constexpr int kMaxColumns = 64;
constexpr int kWarpSize = 32;
// One block per multiprocessor (w fills its shared memory), 16 warps, each
// a 16-row tile at a time, loading the next 32 columns of its rows while it
// multiplies the current ones.
constexpr int kRowsWarps = 16;
constexpr int kStepsPerChunk = 4;
constexpr int kChunkColumns = 8 * kStepsPerChunk;

// x = big + small: big is x rounded to TF32 (to nearest, ties away from
// zero), small the rest (exact in FP32; the tensor cores ignore its bits
// below TF32's, a 2^-10 relative error of a term already 2^-11 of x). The
// rounding is an integer add and mask: the CUDA guide rates conversions at 16
// a clock on a multiprocessor, and the kernel splits one or two values per
// product (no measured change in its time: docs/kernels.md).
// Infinities stay infinite; a NaN may become one, and its small part is NaN.
struct Split {
  uint32_t big;
  uint32_t small;
};

__device__ __forceinline__ Split split(float x) {
  const uint32_t big = (__float_as_uint(x) + 0x1000u) & 0xffffe000u;
  return {big, __float_as_uint(x - __uint_as_float(big))};
}

// d[j] += a·b[j] for every n-tile j at FP32 accuracy: the two small terms
// first, then big·big. Each pass runs over the tiles, so consecutive mma
// instructions are independent (mma_tf32 is asm volatile: the compiler keeps
// their order, and three in a row into one accumulator waited for each other).
template <int kTiles>
__device__ __forceinline__ void mma_3xtf32(float (&d)[kTiles][4], const uint32_t (&a_big)[4],
                                           const uint32_t (&a_small)[4], const Split (&b0)[kTiles],
                                           const Split (&b1)[kTiles]) {
#pragma unroll
  for (int j = 0; j < kTiles; ++j) mma_tf32(d[j], a_small, b0[j].big, b1[j].big);
#pragma unroll
  for (int j = 0; j < kTiles; ++j) mma_tf32(d[j], a_big, b0[j].small, b1[j].small);
#pragma unroll
  for (int j = 0; j < kTiles; ++j) mma_tf32(d[j], a_big, b0[j].big, b1[j].big);
}

__device__ __forceinline__ void split_fragment(const float (&values)[4], uint32_t (&big)[4], uint32_t (&small)[4]) {
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const Split s = split(values[i]);
    big[i] = s.big;
    small[i] = s.small;
  }
}

// Columns (column, column + 1) of a row; zero past the row's k. `whole`: both
// are inside it, and with kPairs one 8-byte load reads them.
template <bool kPairs>
__device__ __forceinline__ float2 load_pair(const float* row, int column, int k, bool whole) {
  if (whole) {
    if constexpr (kPairs) return *reinterpret_cast<const float2*>(row + column);
    return {row[column], row[column + 1]};
  }
  return {column < k ? row[column] : 0.0f, column + 1 < k ? row[column + 1] : 0.0f};
}

// c [rows, n] = x [rows, k] · w [k, n]. Shared memory holds w as the B
// fragments of every (8-row step s, n-tile j, lane): float2 {w[8s + 2t][8j + g],
// w[8s + 2t + 1][8j + g]}, zero outside w, one conflict-free 8-byte load per
// lane and tile.
template <int kTiles, bool kPairs>
__global__ void __launch_bounds__(kRowsWarps* kWarpSize, 1)
    rows_times_weight_kernel(const float* __restrict__ x, int64_t x_stride, const float* __restrict__ w,
                             int64_t w_stride, float* __restrict__ c, int64_t c_stride, int64_t rows, int k, int n) {
  extern __shared__ float2 w_fragments[];
  const int chunks = (k + kChunkColumns - 1) / kChunkColumns;
  const int fragments = chunks * kStepsPerChunk * kTiles * kWarpSize;
  // Unrolled so that a thread's loads of w are in flight together (a loop of
  // dependent L2 round trips otherwise).
#pragma unroll 8
  for (int i = static_cast<int>(threadIdx.x); i < fragments; i += static_cast<int>(blockDim.x)) {
    const int fragment_lane = i % kWarpSize;
    const int column = 8 * ((i / kWarpSize) % kTiles) + fragment_lane / 4;
    const int row = 8 * (i / (kWarpSize * kTiles)) + 2 * (fragment_lane % 4);
    float2 value{0.0f, 0.0f};
    if (column < n) {
      if (row < k) value.x = w[row * w_stride + column];
      if (row + 1 < k) value.y = w[(row + 1) * w_stride + column];
    }
    w_fragments[i] = value;
  }
  __syncthreads();

  const int lane = static_cast<int>(threadIdx.x) % kWarpSize;
  const int g = lane / 4;
  const int t = lane % 4;
  const int64_t warps = static_cast<int64_t>(gridDim.x) * kRowsWarps;
  for (int64_t tile = static_cast<int64_t>(blockIdx.x) * kRowsWarps + threadIdx.x / kWarpSize; tile * 16 < rows;
       tile += warps) {
    // Rows past the end read the last row; their results are not stored.
    const int64_t last = rows - 1;
    const float* row_g = x + (tile * 16 + g < rows ? tile * 16 + g : last) * x_stride;
    const float* row_h = x + (tile * 16 + g + 8 < rows ? tile * 16 + g + 8 : last) * x_stride;
    float acc[kTiles][4] = {};
    float2 current[kStepsPerChunk][2];
    float2 next[kStepsPerChunk][2];
    auto load_chunk = [&](float2(&into)[kStepsPerChunk][2], int chunk) {
      const bool whole = (chunk + 1) * kChunkColumns <= k;
#pragma unroll
      for (int step = 0; step < kStepsPerChunk; ++step) {
        const int column = chunk * kChunkColumns + 8 * step + 2 * t;
        into[step][0] = load_pair<kPairs>(row_g, column, k, whole);
        into[step][1] = load_pair<kPairs>(row_h, column, k, whole);
      }
    };
    load_chunk(current, 0);
    for (int chunk = 0; chunk < chunks; ++chunk) {
      if (chunk + 1 < chunks) load_chunk(next, chunk + 1);
      float chunk_acc[kTiles][4] = {};
#pragma unroll
      for (int step = 0; step < kStepsPerChunk; ++step) {
        // a[0] = A(g, t), a[1] = A(g + 8, t), a[2] = A(g, t + 4), a[3] = A(g + 8, t + 4).
        const float values[4] = {current[step][0].x, current[step][1].x, current[step][0].y, current[step][1].y};
        uint32_t a_big[4], a_small[4];
        split_fragment(values, a_big, a_small);
        const float2* b = w_fragments + ((chunk * kStepsPerChunk + step) * kTiles) * kWarpSize + lane;
        Split b0[kTiles], b1[kTiles];
#pragma unroll
        for (int j = 0; j < kTiles; ++j) {
          const float2 pair = b[j * kWarpSize];
          b0[j] = split(pair.x);
          b1[j] = split(pair.y);
        }
        mma_3xtf32(chunk_acc, a_big, a_small, b0, b1);
      }
#pragma unroll
      for (int j = 0; j < kTiles; ++j) {
#pragma unroll
        for (int i = 0; i < 4; ++i) acc[j][i] += chunk_acc[j][i];
      }
#pragma unroll
      for (int step = 0; step < kStepsPerChunk; ++step) {
        current[step][0] = next[step][0];
        current[step][1] = next[step][1];
      }
    }
    // d[0], d[1] = D(g, 2t), D(g, 2t + 1); d[2], d[3] the same at row g + 8.
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int64_t row = tile * 16 + g + 8 * half;
      if (row >= rows) continue;
#pragma unroll
      for (int j = 0; j < kTiles; ++j) {
        const int column = 8 * j + 2 * t;
        if (column < n) c[row * c_stride + column] = acc[j][2 * half];
        if (column + 1 < n) c[row * c_stride + column + 1] = acc[j][2 * half + 1];
      }
    }
  }
}

// The padded w of rows_times_weight in shared memory.
std::size_t fragment_bytes(int k, int n) {
  const int chunks = (k + kChunkColumns - 1) / kChunkColumns;
  const int tiles = (n + 7) / 8;
  return static_cast<std::size_t>(chunks) * kStepsPerChunk * tiles * kWarpSize * sizeof(float2);
}

// Runs `body` with the number of 8-column tiles of n as a template constant.
template <typename Body>
void with_tiles(int n, Body&& body) {
  switch ((n + 7) / 8) {
    case 1: return body.template operator()<1>();
    case 2: return body.template operator()<2>();
    case 3: return body.template operator()<3>();
    case 4: return body.template operator()<4>();
    case 5: return body.template operator()<5>();
    case 6: return body.template operator()<6>();
    case 7: return body.template operator()<7>();
    default: return body.template operator()<8>();
  }
}

// Opts `kernel` into the device's largest dynamic shared memory once per
// (kernel, device): the attribute stays set in the device's context, and a
// driver call on every launch cost host time on each product.
void allow_largest_shared_memory(const void* kernel, Device device) {
  static std::mutex mutex;
  static std::set<std::pair<const void*, int>> allowed;
  const std::lock_guard<std::mutex> lock(mutex);
  if (allowed.contains({kernel, device.index})) return;
  SGNN_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       static_cast<int>(cuda::properties(device).sharedMemPerBlockOptin)));
  allowed.insert({kernel, device.index});
}

}  // namespace

bool narrow_applies(const GemmContext& context, const GemmCall& call) {
  if (call.operand_type != CUDA_R_32F || call.result_type != CUDA_R_32F || call.compute != CUBLAS_COMPUTE_32F)
    return false;
  if (call.transpose_a != CUBLAS_OP_N || call.transpose_b != CUBLAS_OP_N) return false;
  if (call.m < 1 || call.m > kMaxColumns || call.n < 1 || call.k < 1) return false;
  return fragment_bytes(call.k, call.m) <= cuda::properties(context.device).sharedMemPerBlockOptin;
}

void run_narrow(const GemmContext& context, const GemmCall& call) {
  SGNN_CHECK(narrow_applies(context, call), "matmul: the narrow 3xTF32 kernel does not take this ", call.m, " x ",
             call.n, " x ", call.k, " product");
  cuda::DeviceGuard guard(context.device);
  const auto* x = static_cast<const float*>(call.b);
  const auto* w = static_cast<const float*>(call.a);
  auto* c = static_cast<float*>(call.c);
  const int64_t rows = call.n;
  const int k = call.k;
  const int n = call.m;
  const std::size_t shared = fragment_bytes(k, n);
  const cudaStream_t stream = cuda::stream(context.device);
  const auto blocks = static_cast<unsigned>(std::min<int64_t>(
      cuda::properties(context.device).multiProcessorCount, (rows + 16 * kRowsWarps - 1) / (16 * kRowsWarps)));
  const bool pairs = call.ldb % 2 == 0 && reinterpret_cast<std::uintptr_t>(x) % 8 == 0;
  with_tiles(n, [&]<int kTiles>() {
    auto launch = [&](auto kernel) {
      allow_largest_shared_memory(reinterpret_cast<const void*>(kernel), context.device);
      kernel<<<blocks, kRowsWarps * kWarpSize, shared, stream>>>(x, call.ldb, w, call.lda, c, call.ldc, rows, k, n);
      SGNN_CUDA_CHECK_LAUNCH("rows_times_weight_kernel");
    };
    if (pairs) launch(rows_times_weight_kernel<kTiles, true>);
    else launch(rows_times_weight_kernel<kTiles, false>);
  });
}

}  // namespace sgnn::ops::gemm_cuda
