// Tensor-core SpMM on HRPB (cuTeSpMM, Algorithm 1), TF32 mma.sync m16n8k8.
//
// One thread block per (virtual row panel, chunk of the features). Warps
// split the chunk, each owning TN columns (warp coarsening): TN = 32 (4 mma
// n-tiles, 128-column chunks) up to width 64, TN = 64 (8 n-tiles,
// 256-column chunks) beyond. B stages live in dynamic shared memory sized by
// the width. Per block of the panel: the packed block record and the 16
// rows of B it needs (activeCols) are staged in shared memory with cp.async;
// then each k8 step takes brick columns 2i and 2i+1: lane l of the warp owns
// A-fragment cells (row l/4, col l%4) and (row l/4 + 8, col l%4) of each
// brick, i.e. pattern bits l and l + 32, and finds its value by a popcount
// of the pattern below its bit. Staging is double-buffered: the copies of
// block i + 1 are in flight while block i's mma steps run (a block is only
// two k8 steps, so unhidden staging latency dominated at widths 128-256),
// with 16-byte copies of B when its rows allow them. Only the columns the
// warps read are staged (the chunk width rounded up to 8).
// C stays in registers over the whole panel
// and is written once; only split panels use atomics (or, deterministic,
// slots merged in a fixed order by a second kernel).
#include <cstdint>

#include "core/cuda/launch.cuh"
#include "ops/spmm_hrpb_backend.hpp"

namespace sgnn::ops {

namespace {

constexpr int kWarps = 4;  // warps of a thread block over a full chunk of feature columns
constexpr int kRecordWords = hrpb::kMaxBlockWords + 1;

struct KernelArguments {
  const int32_t* virtual_panel;
  const int32_t* virtual_block_ptr;
  const int32_t* virtual_slot;
  const int32_t* active_cols;
  const int64_t* size_ptr;
  const int32_t* packed;
  const float* b;
  float* c;
  float* partials;  // deterministic mode: [slots, 16, width]; else nullptr (atomics)
  int64_t num_rows;
  int64_t width;
  bool vector_rows;  // B rows 16-byte aligned (B aligned, width a multiple of 4): 16-byte copies
  int b_stride;      // floats per staged B row in shared memory (LaunchShape)
  bool pair_stores;  // C 8-byte aligned and the width even: float2 stores
};

__device__ __forceinline__ void cp_async4(void* shared, const void* global) {
  const unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(shared));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(address), "l"(global));
}

__device__ __forceinline__ void cp_async16(void* shared, const void* global) {
  const unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(shared));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(address), "l"(global));
}

__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }

// Waits until at most `kPending` committed copy groups are still in flight.
template <int kPending>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory");
}

// Round to nearest even: one F2FP instruction on sm_90, where cvt.rna
// (ties away) is emulated with a compare and an add; two of these per mma
// n-tile made that a measurable share of the kernel (bench/RESULTS.md).
__device__ __forceinline__ uint32_t to_tf32(float x) {
  uint32_t out;
  asm("cvt.rn.tf32.f32 %0, %1;\n" : "=r"(out) : "f"(x));
  return out;
}

__device__ __forceinline__ void mma_tf32(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// The A-fragment values of `lane` in a brick whose values start at `values`
// (0 where its bit is clear): pattern bit lane (row lane/4) and bit lane + 32
// (row lane/4 + 8), each found by a popcount of the bits below it.
// Branch-free: the load happens either way and the select drops a clear
// bit's value. That load reads at most one word past the block's values,
// still inside the staged record (kRecordWords > values_offset(4) + 256).
__device__ __forceinline__ void brick_values(uint64_t pattern, int lane, uint32_t lane_mask, const int32_t* values,
                                             float& upper, float& lower) {
  const auto low = static_cast<uint32_t>(pattern);
  const auto high = static_cast<uint32_t>(pattern >> 32);
  const float upper_value = __int_as_float(values[__popc(low & lane_mask)]);
  const float lower_value = __int_as_float(values[__popc(low) + __popc(high & lane_mask)]);
  upper = (low >> lane) & 1u ? upper_value : 0.0f;
  lower = (high >> lane) & 1u ? lower_value : 0.0f;
}

// Issues the copies of block `block`'s record and B rows into one stage of
// shared memory (zeros for padding columns) and commits them as one group.
// Lanes 0-15 of each warp load the block's 16 active columns at once and
// hand them out by shuffles: a load per copy made every copy wait for one
// more L2 round trip. Every lane of a warp runs the same iterations (the
// item counts are multiples of 32), so the full-warp shuffles are safe.
__device__ __forceinline__ void stage_block(const KernelArguments& args, int32_t block, int64_t chunk_begin,
                                            int chunk_width, int staged_width, int32_t* sm_record,
                                            float* sm_b) {
  const int threads = static_cast<int>(blockDim.x);
  const int64_t record_begin = args.size_ptr[block];
  const int record_words = static_cast<int>(args.size_ptr[block + 1] - record_begin);
  for (int i = static_cast<int>(threadIdx.x); i < record_words; i += threads) {
    cp_async4(&sm_record[i], args.packed + record_begin + i);
  }
  const int lane = static_cast<int>(threadIdx.x) % 32;
  const int32_t lane_column = lane < hrpb::kBlockCols ? args.active_cols[int64_t{block} * hrpb::kBlockCols + lane] : -1;
  constexpr unsigned kFullWarp = 0xffffffffu;
  const int quads = staged_width / 4;
  const int row_step = threads / quads;
  if (args.vector_rows && (quads & (quads - 1)) == 0 && row_step * quads == threads &&
      hrpb::kBlockCols % row_step == 0) {
    // Quads per row a power of two dividing the threads (every full chunk):
    // each thread copies the same 16-byte slice j of rows k0, k0 + row_step,
    // …, so a copy costs a shuffle and one address, not a division and a
    // 64-bit index (the copies were a quarter of the kernel's instructions).
    const int j = 4 * (static_cast<int>(threadIdx.x) & (quads - 1));
    const int k0 = static_cast<int>(threadIdx.x) / quads;
    const bool inside = j < chunk_width;
    const float* b_slice = args.b + chunk_begin + j;
    float* target = sm_b + k0 * args.b_stride + j;
    for (int k = k0; k < hrpb::kBlockCols; k += row_step, target += row_step * args.b_stride) {
      const int32_t column = __shfl_sync(kFullWarp, lane_column, k);
      if (column >= 0 && inside) {
        cp_async16(target, b_slice + int64_t{column} * args.width);
      } else {
        *reinterpret_cast<float4*>(target) = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
      }
    }
  } else if (args.vector_rows) {  // staged_width and chunk_width are multiples of 4 here
    for (int i = static_cast<int>(threadIdx.x); i < hrpb::kBlockCols * quads; i += threads) {
      const int k = i / quads;
      const int j = 4 * (i - k * quads);
      const int32_t column = __shfl_sync(kFullWarp, lane_column, k);
      if (column >= 0 && j < chunk_width) {
        cp_async16(&sm_b[k * args.b_stride + j], args.b + int64_t{column} * args.width + chunk_begin + j);
      } else {
        *reinterpret_cast<float4*>(&sm_b[k * args.b_stride + j]) = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
      }
    }
  } else {
    for (int i = static_cast<int>(threadIdx.x); i < hrpb::kBlockCols * staged_width; i += threads) {
      const int k = i / staged_width, j = i % staged_width;
      const int32_t column = __shfl_sync(kFullWarp, lane_column, k);
      if (column >= 0 && j < chunk_width) {
        cp_async4(&sm_b[k * args.b_stride + j], args.b + int64_t{column} * args.width + chunk_begin + j);
      } else {
        sm_b[k * args.b_stride + j] = 0.0f;  // padding columns and features past the width contribute 0
      }
    }
  }
  cp_async_commit();
}

// kTiles mma n-tiles per warp: warp columns TN = 8·kTiles, chunk = kWarps·TN.
template <int kTiles>
__global__ void __launch_bounds__(32 * kWarps) spmm_hrpb_kernel(KernelArguments args) {
  constexpr int kWarpColumns = 8 * kTiles;
  constexpr int kChunk = kWarps * kWarpColumns;
  extern __shared__ float4 dynamic_shared[];  // two stages of 16 B rows, b_stride floats each
  float* const sm_b = reinterpret_cast<float*>(dynamic_shared);
  const int stage_floats = hrpb::kBlockCols * args.b_stride;
  __shared__ __align__(8) int32_t sm_record[2][kRecordWords];

  const int lane = static_cast<int>(threadIdx.x) % 32;
  const int warp = static_cast<int>(threadIdx.x) / 32;
  const int group = lane / 4;         // groupID of the mma fragment layouts
  const int in_group = lane % 4;      // threadID_in_group
  const uint32_t lane_mask = (1u << lane) - 1u;  // pattern bits below this lane's
  const int64_t v = blockIdx.x;
  const int64_t chunk_begin = int64_t{blockIdx.y} * kChunk;
  const int chunk_width = static_cast<int>(args.width - chunk_begin < kChunk ? args.width - chunk_begin : kChunk);
  const int staged_width = (chunk_width + 7) / 8 * 8;  // an n-tile reads 8 columns

  // The warp's n-tiles inside the chunk, and its B columns in a stage.
  const int b_stride = args.b_stride;
  const int warp_tiles = min(kTiles, max(0, (chunk_width - warp * kWarpColumns + 7) / 8));
  const float* const b_warp = sm_b + in_group * b_stride + warp * kWarpColumns + group;

  float acc[kTiles][4];
#pragma unroll
  for (int t = 0; t < kTiles; ++t) acc[t][0] = acc[t][1] = acc[t][2] = acc[t][3] = 0.0f;

  const int32_t block_begin = args.virtual_block_ptr[v];
  const int32_t block_end = args.virtual_block_ptr[v + 1];
  if (block_begin < block_end) {
    stage_block(args, block_begin, chunk_begin, chunk_width, staged_width, sm_record[0], sm_b);
  }
  for (int32_t block = block_begin; block < block_end; ++block) {
    const int stage = (block - block_begin) & 1;
    if (block + 1 < block_end) {
      // The other stage was last read by block - 1, before the barrier that ended its iteration.
      stage_block(args, block + 1, chunk_begin, chunk_width, staged_width, sm_record[stage ^ 1],
                  sm_b + (stage ^ 1) * stage_floats);
      cp_async_wait<1>();  // this block's group has landed; the next one may still be in flight
    } else {
      cp_async_wait<0>();
    }
    __syncthreads();

    const int32_t* record = sm_record[stage];
    const int bricks = record[hrpb::kBrickColumns];
    const int32_t* values = record + hrpb::values_offset(bricks);
    const int32_t* pattern_words = record + hrpb::patterns_offset(bricks);
    int nnz_offset = 0;
#pragma unroll
    for (int step = 0; step < hrpb::kBrickColumns / 2; ++step) {
      // Brick columns 2·step (A columns 0..3 of the k8 step) and 2·step + 1 (columns 4..7).
      uint64_t pattern[2] = {0, 0};
      int offset[2] = {0, 0};
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const int brick_col = 2 * step + half;
        // TM = brick height: a brick column holds at most one brick, brick row 0.
        if (record[brick_col + 1] > record[brick_col]) {
          const int k = record[brick_col];
          pattern[half] = static_cast<uint32_t>(pattern_words[2 * k]) |
                          (static_cast<uint64_t>(static_cast<uint32_t>(pattern_words[2 * k + 1])) << 32);
          offset[half] = nnz_offset;
          nnz_offset += __popcll(pattern[half]);
        }
      }
      if ((pattern[0] | pattern[1]) == 0) continue;  // warp-uniform: no brick in this k8 step
      float cells[4];  // (row g, col t), (row g + 8, col t), (row g, col t + 4), (row g + 8, col t + 4)
      brick_values(pattern[0], lane, lane_mask, values + offset[0], cells[0], cells[1]);
      brick_values(pattern[1], lane, lane_mask, values + offset[1], cells[2], cells[3]);
      const uint32_t a[4] = {to_tf32(cells[0]), to_tf32(cells[1]), to_tf32(cells[2]), to_tf32(cells[3])};
      // B fragment of n-tile t: rows k_row and k_row + 4, column t·8 + group of the warp's columns.
      const float* b_step = b_warp + stage * stage_floats + (step * 8) * b_stride;
      if (warp_tiles == kTiles) {  // warp-uniform: the common case, no per-tile test
#pragma unroll
        for (int t = 0; t < kTiles; ++t) {
          mma_tf32(acc[t], a, to_tf32(b_step[8 * t]), to_tf32(b_step[8 * t + 4 * b_stride]));
        }
      } else {
#pragma unroll
        for (int t = 0; t < kTiles; ++t) {
          if (t < warp_tiles) mma_tf32(acc[t], a, to_tf32(b_step[8 * t]), to_tf32(b_step[8 * t + 4 * b_stride]));
        }
      }
    }
    __syncthreads();  // before the next iteration's copies overwrite this stage
  }

  // C fragment: c0, c1 at (row g, cols 2t, 2t+1), c2, c3 at row g + 8. An
  // unsplit panel stores each pair as one float2 where C allows (half the
  // store instructions, whole sectors); the rest goes element by element.
  const int64_t panel = args.virtual_panel[v];
  const int32_t slot = args.virtual_slot[v];
  const int64_t chunk_end = chunk_begin + chunk_width;
#pragma unroll
  for (int t = 0; t < kTiles; ++t) {
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int row_in_panel = group + 8 * half;
      const int64_t row = panel * hrpb::kPanelRows + row_in_panel;
      const int64_t col = chunk_begin + warp * kWarpColumns + t * 8 + 2 * in_group;
      if (row >= args.num_rows || col >= chunk_end) continue;
      if (slot < 0 && args.pair_stores && col + 1 < chunk_end) {
        *reinterpret_cast<float2*>(&args.c[row * args.width + col]) = make_float2(acc[t][2 * half], acc[t][2 * half + 1]);
        continue;
      }
#pragma unroll
      for (int r = 2 * half; r < 2 * half + 2; ++r) {
        const int64_t element = col + (r & 1);
        if (element >= chunk_end) continue;
        if (slot < 0) {
          args.c[row * args.width + element] = acc[t][r];
        } else if (args.partials != nullptr) {
          args.partials[(int64_t{slot} * hrpb::kPanelRows + row_in_panel) * args.width + element] = acc[t][r];
        } else {
          atomicAdd(&args.c[row * args.width + element], acc[t][r]);
        }
      }
    }
  }
}

// Deterministic merge: C rows of split panel s = sum of its slots, in slot order.
__global__ void merge_split_panels_kernel(const int32_t* split_panel, const int32_t* split_slot_ptr,
                                          const float* partials, float* c, int64_t num_rows, int64_t width) {
  const int64_t s = blockIdx.x;
  const int64_t panel = split_panel[s];
  const int64_t tile = hrpb::kPanelRows * width;
  for (int64_t i = threadIdx.x; i < tile; i += blockDim.x) {
    const int64_t row = panel * hrpb::kPanelRows + i / width;
    if (row >= num_rows) break;
    float sum = 0.0f;
    for (int32_t part = split_slot_ptr[s]; part < split_slot_ptr[s + 1]; ++part) sum += partials[part * tile + i];
    c[row * width + i % width] = sum;
  }
}

// The launch of one width: n-tiles per warp (4 up to width 64, 8 beyond:
// each warp's decoded A fragments then serve twice the mma; measured on the
// H100, 8 from width 65 on gained 8-20% at width 128 on the FEM matrices and
// lost 5-8% at width 64 on two of them), the chunk of
// feature columns a thread block covers, its warps, and the shared memory of
// the staged B rows, sized by the width (narrow widths fit more blocks on
// an SM). Rows are padded to 8 or 24 mod 32 floats: the B-fragment loads
// (row t, column g of lane 4g + t) then hit 32 distinct banks.
struct LaunchShape {
  int tiles;
  int64_t chunk;
  int warps;
  int b_stride;
  std::size_t shared_bytes;
};

LaunchShape launch_shape(int64_t width) {
  LaunchShape shape{};
  shape.tiles = width > 64 ? 8 : 4;
  const int64_t warp_columns = 8 * shape.tiles;
  shape.chunk = kWarps * warp_columns;
  const int64_t widest = std::min(width, shape.chunk);  // the first chunk's width, the widest
  shape.warps = static_cast<int>((widest + warp_columns - 1) / warp_columns);
  const int64_t staged = (widest + 7) / 8 * 8;
  shape.b_stride = static_cast<int>((staged + 31) / 32 * 32 + 8);
  shape.shared_bytes = std::size_t{2} * hrpb::kBlockCols * static_cast<std::size_t>(shape.b_stride) * sizeof(float);
  return shape;
}

// The kernel instance of a launch shape: one place for the launch and the
// occupancy query.
using HrpbKernel = void (*)(KernelArguments);
HrpbKernel kernel_for(const LaunchShape& shape) {
  return shape.tiles == 8 ? spmm_hrpb_kernel<8> : spmm_hrpb_kernel<4>;
}

}  // namespace

void spmm_hrpb_forward(Cuda, const Hrpb& a, const Tensor& b, Tensor& c) {
  const Device device = b.device();
  const cuda::DeviceGuard guard(device);
  const cudaStream_t stream = cuda::stream(device);
  const int64_t width = b.size(1);
  const HrpbSchedule& s = a.schedule;
  const LaunchShape shape = launch_shape(width);
  const int64_t chunks = (width + shape.chunk - 1) / shape.chunk;
  SGNN_CHECK(chunks <= 65535, "spmm_hrpb: feature width ", width, " needs ", chunks,
             " column chunks; the grid allows 65535");
  if (s.num_virtual_panels == 0) return;  // no rows

  Tensor partials;
  if (s.num_split_panels > 0) {
    if (a.deterministic) {
      partials = Tensor::empty({s.num_slots * hrpb::kPanelRows * width}, DType::Float32, device);
    } else {
      SGNN_CUDA_CHECK(cudaMemsetAsync(c.data<float>(), 0, c.nbytes(), stream));  // atomics add into C
    }
  }
  const KernelArguments args{s.virtual_panel.data<int32_t>(),
                             s.virtual_block_ptr.data<int32_t>(),
                             s.virtual_slot.data<int32_t>(),
                             a.active_cols.data<int32_t>(),
                             a.size_ptr.data<int64_t>(),
                             a.packed_blocks.data<int32_t>(),
                             b.data<float>(),
                             c.data<float>(),
                             partials.defined() ? partials.data<float>() : nullptr,
                             a.num_rows,
                             width,
                             width % 4 == 0 && aligned16(b.raw_data()),
                             shape.b_stride,
                             width % 2 == 0 && reinterpret_cast<std::uintptr_t>(c.raw_data()) % 8 == 0};
  const dim3 grid(static_cast<unsigned>(s.num_virtual_panels), static_cast<unsigned>(chunks));
  kernel_for(shape)<<<grid, static_cast<unsigned>(32 * shape.warps), shape.shared_bytes, stream>>>(args);
  SGNN_CUDA_CHECK_LAUNCH("spmm_hrpb_kernel");
  if (partials.defined()) {
    merge_split_panels_kernel<<<static_cast<unsigned>(s.num_split_panels), 256, 0, stream>>>(
        s.split_panel.data<int32_t>(), s.split_slot_ptr.data<int32_t>(), partials.data<float>(), c.data<float>(),
        a.num_rows, width);
    SGNN_CUDA_CHECK_LAUNCH("merge_split_panels_kernel");
  }
}

int64_t spmm_hrpb_occupancy(Cuda, Device device, int64_t width) {
  const cuda::DeviceGuard guard(device);
  const LaunchShape shape = launch_shape(width);
  int blocks_per_sm = 0;
  SGNN_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, kernel_for(shape), 32 * shape.warps,
                                                                shape.shared_bytes));
  return int64_t{blocks_per_sm} * cuda::properties(device).multiProcessorCount;
}

}  // namespace sgnn::ops
