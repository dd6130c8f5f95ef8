// 3xTF32 products with a narrow output (gemm_narrow.hpp).
//
// Both kernels permute the summed index inside each 8-wide step of the
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

#include "core/cuda/launch.cuh"
#include "core/cuda_runtime.hpp"
#include "ops/cuda/mma.cuh"  // mma_tf32

namespace sgnn::ops::gemm_cuda {

namespace {

constexpr int kMaxColumns = 64;
constexpr int kWarpSize = 32;
// rows_times_weight: one block per multiprocessor (w fills its shared
// memory), 16 warps, each a 16-row tile at a time, loading the next 32
// columns of its rows while it multiplies the current ones.
constexpr int kRowsWarps = 16;
constexpr int kStepsPerChunk = 4;
constexpr int kChunkColumns = 8 * kStepsPerChunk;
// weight_gradient: a warp owns a 32-column strip of x (two 16-row m16 tiles
// of the [K, N] result) over one block of rows; 8 warps a thread block.
constexpr int kGradientWarps = 8;
constexpr int kStripColumns = 32;
// Up to 3 tiles of n, two thread blocks fit a multiprocessor at 128 registers
// a thread, and 2 steps of rows are loaded ahead. Past that (the total's and
// the chunk's accumulators take 64-128 registers) one block of up to 255
// registers a thread, loading 3 steps ahead, 2 from 7 tiles on (more spilled
// under ptxas -v).
constexpr int gradient_blocks_per_sm(int tiles) { return tiles <= 3 ? 2 : 1; }
template <int kTiles>
constexpr int kGradientStepsAhead = kTiles <= 3 ? 2 : kTiles <= 6 ? 3 : 2;

// x = big + small: big is x rounded to TF32 (to nearest, ties away from
// zero), small the rest (exact in FP32; the tensor cores ignore its bits
// below TF32's, a 2^-10 relative error of a term already 2^-11 of x). The
// rounding is an integer add and mask: the CUDA guide rates conversions at 16
// a clock on a multiprocessor, and a kernel splits one or two values per
// product (no measured change in the forward kernel's time: docs/kernels.md).
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

// One step of the weight gradient: the 8 rows m0 .. m0 + 7 as lane 4g + t
// holds them, rows m0 + 2t and m0 + 2t + 1: x's columns strip + 4g .. 4g + 3
// and g's columns 8j + g of each n-tile j.
template <int kTiles>
struct GradientStep {
  float x[2][4];
  float g[2][kTiles];
};

// Four columns from `column` of a row; zero past the row's k. `whole`: all
// four are inside it, read with loads of kVector floats.
template <int kVector>
__device__ __forceinline__ void load_four(const float* row, int column, int k, bool whole, float (&into)[4]) {
  if (whole) {
    if constexpr (kVector == 4) {
      const float4 v = *reinterpret_cast<const float4*>(row + column);
      into[0] = v.x, into[1] = v.y, into[2] = v.z, into[3] = v.w;
      return;
    } else if constexpr (kVector == 2) {
      const float2 v0 = *reinterpret_cast<const float2*>(row + column);
      const float2 v1 = *reinterpret_cast<const float2*>(row + column + 2);
      into[0] = v0.x, into[1] = v0.y, into[2] = v1.x, into[3] = v1.y;
      return;
    }
  }
#pragma unroll
  for (int i = 0; i < 4; ++i) into[i] = column + i < k ? row[column + i] : 0.0f;
}

// partial [blocks of rows, k, n]: each warp task (a strip of 32 columns of x,
// a block of rows) adds xᵀ·g over its rows into registers and stores its
// [32, n] part of its row block's partial. Row blocks are consecutive tasks,
// so a thread block's warps mostly read the same rows of g (L1 hits).
// The result's row r of tile i and D row g holds column strip + 4g + 2i and
// its D row g + 8 column strip + 4g + 2i + 1.
template <int kTiles, int kVector>
__global__ void __launch_bounds__(kGradientWarps* kWarpSize, gradient_blocks_per_sm(kTiles))
    weight_gradient_kernel(const float* __restrict__ x, int64_t x_stride, const float* __restrict__ gradient,
                           int64_t gradient_stride, float* __restrict__ partial, int64_t rows, int k, int n,
                           int64_t rows_per_block, int strips, int64_t tasks) {
  const int64_t task = static_cast<int64_t>(blockIdx.x) * kGradientWarps + threadIdx.x / kWarpSize;
  if (task >= tasks) return;
  const int strip = static_cast<int>(task % strips) * kStripColumns;
  const int64_t row_block = task / strips;
  const int64_t begin = row_block * rows_per_block;
  const int64_t end = begin + rows_per_block < rows ? begin + rows_per_block : rows;
  const int lane = static_cast<int>(threadIdx.x) % kWarpSize;
  const int g = lane / 4;
  const int t = lane % 4;
  const bool whole_strip = strip + kStripColumns <= k;

  auto load_step = [&](GradientStep<kTiles>& into, int64_t m0) {
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      const int64_t row = m0 + 2 * t + r;
      if (row < end) {
        load_four<kVector>(x + row * x_stride, strip + 4 * g, k, whole_strip, into.x[r]);
        const float* gradient_row = gradient + row * gradient_stride;
#pragma unroll
        for (int j = 0; j < kTiles; ++j) into.g[r][j] = 8 * j + g < n ? gradient_row[8 * j + g] : 0.0f;
      } else {
#pragma unroll
        for (int i = 0; i < 4; ++i) into.x[r][i] = 0.0f;
#pragma unroll
        for (int j = 0; j < kTiles; ++j) into.g[r][j] = 0.0f;
      }
    }
  };

  float acc[2][kTiles][4] = {};
  GradientStep<kTiles> ahead[kGradientStepsAhead<kTiles>];
#pragma unroll
  for (int i = 0; i < kGradientStepsAhead<kTiles>; ++i) load_step(ahead[i], begin + 8 * i);
  for (int64_t m0 = begin; m0 < end; m0 += 8 * kGradientStepsAhead<kTiles>) {
    float chunk_acc[2][kTiles][4] = {};
#pragma unroll
    for (int i = 0; i < kGradientStepsAhead<kTiles>; ++i) {
      if (m0 + 8 * i >= end) break;
      // Split this step's values before the step kGradientStepsAhead later
      // is loaded into the same registers.
      Split b0[kTiles], b1[kTiles];
#pragma unroll
      for (int j = 0; j < kTiles; ++j) {
        b0[j] = split(ahead[i].g[0][j]);  // B(t, g): summed index 2t
        b1[j] = split(ahead[i].g[1][j]);  // B(t + 4, g): summed index 2t + 1
      }
      uint32_t a_big[2][4], a_small[2][4];
#pragma unroll
      for (int tile = 0; tile < 2; ++tile) {
        // a[0] = A(g, t), a[1] = A(g + 8, t), a[2] = A(g, t + 4), a[3] = A(g + 8, t + 4).
        const float values[4] = {ahead[i].x[0][2 * tile], ahead[i].x[0][2 * tile + 1], ahead[i].x[1][2 * tile],
                                 ahead[i].x[1][2 * tile + 1]};
        split_fragment(values, a_big[tile], a_small[tile]);
      }
      const int64_t next = m0 + 8 * (i + kGradientStepsAhead<kTiles>);
      if (next < end) load_step(ahead[i], next);
#pragma unroll
      for (int tile = 0; tile < 2; ++tile) {
        mma_3xtf32(chunk_acc[tile], a_big[tile], a_small[tile], b0, b1);
      }
    }
#pragma unroll
    for (int tile = 0; tile < 2; ++tile) {
#pragma unroll
      for (int j = 0; j < kTiles; ++j) {
#pragma unroll
        for (int i = 0; i < 4; ++i) acc[tile][j][i] += chunk_acc[tile][j][i];
      }
    }
  }
  float* out = partial + row_block * k * n;
#pragma unroll
  for (int tile = 0; tile < 2; ++tile) {
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int row = strip + 4 * g + 2 * tile + half;
      if (row >= k) continue;
#pragma unroll
      for (int j = 0; j < kTiles; ++j) {
        const int column = 8 * j + 2 * t;
        if (column < n) out[static_cast<int64_t>(row) * n + column] = acc[tile][j][2 * half];
        if (column + 1 < n) out[static_cast<int64_t>(row) * n + column + 1] = acc[tile][j][2 * half + 1];
      }
    }
  }
}

// c [k, n] (row stride c_stride) = the sum of the blocks' partials, block b
// into sum b mod 8 (eight loads in flight, not one chain of round trips),
// then the eight sums in order: the same order on every run.
constexpr int kPartialSums = 8;

__global__ void add_partials_kernel(const float* __restrict__ partial, int64_t blocks, int k, int n,
                                    float* __restrict__ c, int64_t c_stride) {
  const int64_t count = static_cast<int64_t>(k) * n;
  for (int64_t i = grid_stride_begin(); i < count; i += grid_stride_step()) {
    float sums[kPartialSums] = {};
    int64_t b = 0;
    for (; b + kPartialSums <= blocks; b += kPartialSums) {
#pragma unroll
      for (int j = 0; j < kPartialSums; ++j) sums[j] += partial[(b + j) * count + i];
    }
    for (int j = 0; b < blocks; ++b, ++j) sums[j] += partial[b * count + i];
    float sum = 0.0f;
#pragma unroll
    for (int j = 0; j < kPartialSums; ++j) sum += sums[j];
    c[(i / n) * c_stride + i % n] = sum;
  }
}

// The padded w of rows_times_weight in shared memory.
std::size_t fragment_bytes(int k, int n) {
  const int chunks = (k + kChunkColumns - 1) / kChunkColumns;
  const int tiles = (n + 7) / 8;
  return static_cast<std::size_t>(chunks) * kStepsPerChunk * tiles * kWarpSize * sizeof(float2);
}

// Row blocks of weight_gradient: as many tasks as one wave of thread blocks
// runs (a few blocks more would run as a second wave, alone), at least 64
// rows each, no more partials than the workspace holds.
struct GradientPlan {
  int strips = 0;
  int64_t row_blocks = 0;
  int64_t rows_per_block = 0;
};

GradientPlan plan_gradient(const GemmContext& context, int64_t rows, int k, int n) {
  GradientPlan plan;
  plan.strips = (k + kStripColumns - 1) / kStripColumns;
  const int64_t wanted_tasks = int64_t{kGradientWarps} * gradient_blocks_per_sm((n + 7) / 8) *
                               cuda::properties(context.device).multiProcessorCount;
  const int64_t partial_bytes = static_cast<int64_t>(k) * n * static_cast<int64_t>(sizeof(float));
  const int64_t most = static_cast<int64_t>(context.workspace_bytes) / partial_bytes;
  const int64_t blocks = std::clamp<int64_t>(wanted_tasks / plan.strips, 1, (rows + 63) / 64);
  plan.row_blocks = std::min(blocks, most);
  if (plan.row_blocks < 1) return {};
  plan.rows_per_block = ((rows + plan.row_blocks - 1) / plan.row_blocks + 7) / 8 * 8;
  plan.row_blocks = (rows + plan.rows_per_block - 1) / plan.rows_per_block;
  return plan;
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

bool aligned(const void* pointer, std::size_t bytes) {
  return reinterpret_cast<std::uintptr_t>(pointer) % bytes == 0;
}

void run_rows_times_weight(const GemmContext& context, const GemmCall& call) {
  const auto* x = static_cast<const float*>(call.b);
  const auto* w = static_cast<const float*>(call.a);
  auto* c = static_cast<float*>(call.c);
  const int64_t rows = call.n;
  const int k = call.k;
  const int n = call.m;
  const std::size_t shared = fragment_bytes(k, n);
  const cudaStream_t stream = cuda::stream(context.device);
  const auto blocks = static_cast<unsigned>(
      std::min<int64_t>(cuda::properties(context.device).multiProcessorCount, (rows + 16 * kRowsWarps - 1) / (16 * kRowsWarps)));
  const bool pairs = call.ldb % 2 == 0 && aligned(x, 8);
  with_tiles(n, [&]<int kTiles>() {
    auto launch = [&](auto kernel) {
      SGNN_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared)));
      kernel<<<blocks, kRowsWarps * kWarpSize, shared, stream>>>(x, call.ldb, w, call.lda, c, call.ldc, rows, k, n);
      SGNN_CUDA_CHECK_LAUNCH("rows_times_weight_kernel");
    };
    if (pairs) launch(rows_times_weight_kernel<kTiles, true>);
    else launch(rows_times_weight_kernel<kTiles, false>);
  });
}

void run_weight_gradient(const GemmContext& context, const GemmCall& call) {
  const auto* gradient = static_cast<const float*>(call.a);
  const auto* x = static_cast<const float*>(call.b);
  auto* c = static_cast<float*>(call.c);
  const int64_t rows = call.k;
  const int k = call.n;
  const int n = call.m;
  const GradientPlan plan = plan_gradient(context, rows, k, n);
  SGNN_CHECK(plan.row_blocks > 0, "matmul: the weight gradient's partial products do not fit the workspace");
  auto* partial = static_cast<float*>(context.workspace);
  const cudaStream_t stream = cuda::stream(context.device);
  const int64_t tasks = plan.row_blocks * plan.strips;
  const auto blocks = static_cast<unsigned>((tasks + kGradientWarps - 1) / kGradientWarps);
  const int vector = call.ldb % 4 == 0 && aligned(x, 16) ? 4 : call.ldb % 2 == 0 && aligned(x, 8) ? 2 : 1;
  with_tiles(n, [&]<int kTiles>() {
    auto launch = [&](auto kernel) {
      kernel<<<blocks, kGradientWarps * kWarpSize, 0, stream>>>(x, call.ldb, gradient, call.lda, partial, rows, k, n,
                                                                 plan.rows_per_block, plan.strips, tasks);
      SGNN_CUDA_CHECK_LAUNCH("weight_gradient_kernel");
    };
    if (vector == 4) launch(weight_gradient_kernel<kTiles, 4>);
    else if (vector == 2) launch(weight_gradient_kernel<kTiles, 2>);
    else launch(weight_gradient_kernel<kTiles, 1>);
  });
  const LaunchShape shape = elementwise_launch_shape(static_cast<int64_t>(k) * n, context.device);
  add_partials_kernel<<<shape.blocks, shape.threads, 0, stream>>>(partial, plan.row_blocks, k, n, c, call.ldc);
  SGNN_CUDA_CHECK_LAUNCH("add_partials_kernel");
}

}  // namespace

NarrowForm narrow_form_of(const GemmContext& context, const GemmCall& call) {
  if (call.operand_type != CUDA_R_32F || call.result_type != CUDA_R_32F || call.compute != CUBLAS_COMPUTE_32F)
    return NarrowForm::none;
  if (call.m < 1 || call.m > kMaxColumns || call.n < 1 || call.k < 1 || call.transpose_a != CUBLAS_OP_N)
    return NarrowForm::none;
  if (call.transpose_b == CUBLAS_OP_N) {
    const std::size_t limit = cuda::properties(context.device).sharedMemPerBlockOptin;
    return fragment_bytes(call.k, call.m) <= limit ? NarrowForm::rows_times_weight : NarrowForm::none;
  }
  if (call.transpose_b == CUBLAS_OP_T && context.workspace != nullptr)
    return plan_gradient(context, call.k, call.n, call.m).row_blocks > 0 ? NarrowForm::weight_gradient
                                                                          : NarrowForm::none;
  return NarrowForm::none;
}

void run_narrow(const GemmContext& context, const GemmCall& call, NarrowForm form) {
  cuda::DeviceGuard guard(context.device);
  if (form == NarrowForm::rows_times_weight) return run_rows_times_weight(context, call);
  SGNN_CHECK(form == NarrowForm::weight_gradient, "matmul: no narrow form for this product");
  run_weight_gradient(context, call);
}

}  // namespace sgnn::ops::gemm_cuda
