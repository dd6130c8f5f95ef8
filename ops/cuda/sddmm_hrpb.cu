// The HRPB path of sddmm_dot (ops/sddmm_path.hpp): dot products on tensor
// cores over the HRPB layout of the graph (core/hrpb.hpp), for matrices whose
// rows share their columns (meshes, stencils, banded numberings), where the
// CSR kernels read the same y row once per entry.
//
// A block of the layout is 16 rows of a panel × 16 compacted columns. Its
// 256 dot products x[row]·y[col] form the dense product X_panel · Y_blockᵀ,
// which mma.sync computes in two n-tiles of 8 columns (m16n8k8 on TF32,
// m16n8k16 on bfloat16); the products of cells without an entry are dropped.
// Per block a warp reads the 16 y rows once where the CSR kernels read one y
// row per entry (93 entries a block on the 3D FEM matrices, 43 on the
// 27-point stencil).
//
// One thread block of four warps per virtual panel of the HRPB schedule (a
// heavy panel split along its blocks). The panel's 16 x rows of one head are
// staged in shared memory once (float32 rounded to TF32 there); the warps
// take the panel's blocks in turn. Lane 4g + t reads, per row and chunk of
// features, one 16-byte vector (the t-th of the chunk's four), and the two
// mma steps of the chunk take its words 0-1 and 2-3: the features are summed
// in another order than k's, the same for x and y (a dot product's sum is the
// same in any order). Every dot product is written by one lane, to the CSR
// entry the block's row masks give (ops/cuda/hrpb_row_masks.cuh): no atomics,
// and the same sums in the same order on every run.
//
// Precision: float32 x and y are rounded to TF32 (round to nearest even),
// products and sums in float, as the HRPB SpMM computes; bfloat16 x and y go
// to mma m16n8k16 as they are (a product of two bfloat16 is exact in float;
// the sums in float, as the CPU reference's rounding points). The per-head
// width is a multiple of 16 float32 or 32 bfloat16 features (one 16-byte load
// per lane, row and pair of mma steps).
#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "core/cuda/launch.cuh"
#include "core/error.hpp"
#include "ops/cuda/hrpb_row_masks.cuh"
#include "ops/cuda/mma.cuh"
#include "ops/cuda/sddmm_arguments.cuh"

namespace sgnn::ops::sddmm_cuda {

namespace {

constexpr int kWarps = 4;
constexpr int kThreads = kWarps * 32;
// Feature chunks (16 float32 or 32 bfloat16 features: one 16-byte load per
// lane and n-tile) whose y loads are issued before any of their mma steps: 4
// loads in flight per lane. With eight thread blocks an SM (64 registers; 20
// bytes spilled for float32, 36 for bfloat16) this was 6-20% faster on the
// H100 than 4 chunks at 88 registers (five blocks) or six blocks: more warps
// waiting on L2 beat more loads per warp (docs/kernels.md).
constexpr int kBatch = 2;
constexpr int kBlocksPerSm = 8;

struct PanelArguments {
  const int32_t* virtual_panel;
  const int32_t* virtual_block_ptr;
  const int32_t* active_cols;
  const uint2* row_masks;
  int64_t num_virtual_panels;
  int64_t num_rows;
  // 16-byte vectors per staged x row: the row plus 64 bytes where its bytes
  // are a multiple of 128, so that a quarter warp's loads of rows g and g + 1
  // fall in different banks.
  int x_stride;
};

// x values as the mma takes them: float32 rounded to TF32 once here, bfloat16 as it is.
template <typename T>
__device__ __forceinline__ uint4 staged(uint4 v) {
  if constexpr (std::is_same_v<T, float>) {
    return make_uint4(to_tf32(__uint_as_float(v.x)), to_tf32(__uint_as_float(v.y)), to_tf32(__uint_as_float(v.z)),
                      to_tf32(__uint_as_float(v.w)));
  } else {
    return v;
  }
}

// d[n] += the products of one chunk: this lane's 16-byte vectors of x rows g
// (upper) and g + 8 (lower) and of the y rows of n-tiles 0 and 1. Word w of
// a vector holds one float32 feature or two bfloat16 ones; step s of the two
// takes words 2s (k = t, or 2t and 2t + 1) and 2s + 1 (k = t + 4, or 2t + 8 and 2t + 9).
template <typename T>
__device__ __forceinline__ void multiply_chunk(float (&d)[2][4], uint4 upper, uint4 lower, const uint4 (&y)[2]) {
  const uint32_t a_even[4] = {upper.x, lower.x, upper.y, lower.y};
  const uint32_t a_odd[4] = {upper.z, lower.z, upper.w, lower.w};
#pragma unroll
  for (int n = 0; n < 2; ++n) {
    if constexpr (std::is_same_v<T, float>) {
      mma_tf32(d[n], a_even, to_tf32(__uint_as_float(y[n].x)), to_tf32(__uint_as_float(y[n].y)));
      mma_tf32(d[n], a_odd, to_tf32(__uint_as_float(y[n].z)), to_tf32(__uint_as_float(y[n].w)));
    } else {
      mma_bf16(d[n], a_even, y[n].x, y[n].y);
      mma_bf16(d[n], a_odd, y[n].z, y[n].w);
    }
  }
}

template <typename T>
__global__ void __launch_bounds__(kThreads, kBlocksPerSm) sddmm_hrpb_kernel(PanelArguments panels, SddmmArguments<T> args) {
  extern __shared__ uint4 x_rows[];  // 16 rows × x_stride vectors: one head of the panel's x rows
  constexpr int kVectorElements = 16 / static_cast<int>(sizeof(T));
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const int warp = static_cast<int>(threadIdx.x) >> 5;
  const int g = lane >> 2;
  const int t = lane & 3;
  const int heads = args.heads;
  const int64_t features = args.features;
  const int64_t width = heads * features;
  const int64_t vectors = features / kVectorElements;  // 16-byte vectors of one head's row
  const int64_t chunks = vectors / 4;                  // a vector per lane t of a row
  for (int64_t v = blockIdx.x; v < panels.num_virtual_panels; v += gridDim.x) {
    const int64_t begin = panels.virtual_block_ptr[v];
    const int64_t end = panels.virtual_block_ptr[v + 1];
    if (begin == end) continue;  // uniform over the thread block
    const int64_t first_row = int64_t{panels.virtual_panel[v]} * hrpb::kPanelRows;
    // CSR offsets of this lane's two rows (g and g + 8); rows past the end have no entries (empty masks).
    const int64_t start_upper = first_row + g < panels.num_rows ? args.indptr[first_row + g] : 0;
    const int64_t start_lower = first_row + g + 8 < panels.num_rows ? args.indptr[first_row + g + 8] : 0;
    for (int head = 0; head < heads; ++head) {
      __syncthreads();  // every warp is done with the x rows staged before
      for (int64_t i = threadIdx.x; i < hrpb::kPanelRows * vectors; i += kThreads) {
        const int64_t r = i / vectors;
        const int64_t q = i - r * vectors;
        uint4 value = make_uint4(0, 0, 0, 0);
        if (first_row + r < panels.num_rows) {
          value = __ldg(reinterpret_cast<const uint4*>(args.x + (first_row + r) * width + head * features) + q);
        }
        x_rows[r * panels.x_stride + q] = staged<T>(value);
      }
      __syncthreads();
      const uint4* x_upper = x_rows + g * panels.x_stride + t;
      const uint4* x_lower = x_upper + 8 * panels.x_stride;
      for (int64_t block = begin + warp; block < end; block += kWarps) {
        // Compacted columns g (n-tile 0) and 8 + g (n-tile 1); -1 past the panel's last active column.
        const int32_t columns[2] = {__ldg(panels.active_cols + block * hrpb::kBlockCols + g),
                                    __ldg(panels.active_cols + block * hrpb::kBlockCols + 8 + g)};
        const uint4* y_rows[2];
#pragma unroll
        for (int n = 0; n < 2; ++n) {
          y_rows[n] = columns[n] >= 0
                          ? reinterpret_cast<const uint4*>(args.y + int64_t{columns[n]} * width + head * features) + t
                          : nullptr;
        }
        float d[2][4] = {};
        for (int64_t first_chunk = 0; first_chunk < chunks; first_chunk += kBatch) {
          uint4 y_values[kBatch][2];
#pragma unroll
          for (int k = 0; k < kBatch; ++k) {
#pragma unroll
            for (int n = 0; n < 2; ++n) {
              y_values[k][n] = make_uint4(0, 0, 0, 0);
              if (first_chunk + k < chunks && y_rows[n] != nullptr) y_values[k][n] = __ldg(y_rows[n] + 4 * (first_chunk + k));
            }
          }
#pragma unroll
          for (int k = 0; k < kBatch; ++k) {
            if (first_chunk + k >= chunks) break;
            const int64_t offset = 4 * (first_chunk + k);
            multiply_chunk<T>(d, x_upper[offset], x_lower[offset], y_values[k]);
          }
        }
        // d[n][i]: row g (i < 2) or g + 8, compacted column 8n + 2t + (i & 1).
        const uint2 masks[2] = {__ldg(panels.row_masks + block * hrpb::kPanelRows + g),
                                __ldg(panels.row_masks + block * hrpb::kPanelRows + g + 8)};
        const int64_t starts[2] = {start_upper, start_lower};
#pragma unroll
        for (int n = 0; n < 2; ++n) {
#pragma unroll
          for (int i = 0; i < 4; ++i) {
            const int half = i >> 1;
            const unsigned column = 8u * n + 2u * t + (i & 1u);
            const unsigned mask = masks[half].y;
            if ((mask >> column) & 1u) {
              const int64_t entry = starts[half] + masks[half].x + __popc(mask & ((1u << column) - 1u));
              args.out.store(entry * heads + head, d[n][i]);
            }
          }
        }
      }
    }
  }
}

// 16-byte vectors per staged x row (PanelArguments::x_stride).
int staged_stride(int64_t features, int element_bytes) {
  const int64_t row_bytes = features * element_bytes;
  return static_cast<int>(row_bytes / 16 + (row_bytes % 128 == 0 ? 4 : 0));
}

}  // namespace

template <typename T>
void launch_hrpb(const Hrpb& hrpb, const SddmmArguments<T>& args, Device device) {
  const HrpbSchedule& schedule = hrpb.schedule;
  if (schedule.num_virtual_panels == 0) return;  // no entries
  const Tensor row_masks = hrpb_row_masks(hrpb);
  const PanelArguments panels{schedule.virtual_panel.data<int32_t>(),
                              schedule.virtual_block_ptr.data<int32_t>(),
                              hrpb.active_cols.data<int32_t>(),
                              reinterpret_cast<const uint2*>(row_masks.data<int32_t>()),
                              schedule.num_virtual_panels,
                              hrpb.num_rows,
                              staged_stride(args.features, static_cast<int>(sizeof(T)))};
  const size_t shared_bytes = sizeof(uint4) * hrpb::kPanelRows * static_cast<size_t>(panels.x_stride);
  const auto grid = static_cast<unsigned>(std::min<int64_t>(schedule.num_virtual_panels, int64_t{1} << 30));
  sddmm_hrpb_kernel<T><<<grid, kThreads, shared_bytes, cuda::stream(device)>>>(panels, args);
  SGNN_CUDA_CHECK_LAUNCH("sddmm_hrpb_kernel");
}

template void launch_hrpb(const Hrpb&, const SddmmArguments<float>&, Device);
template void launch_hrpb(const Hrpb&, const SddmmArguments<bfloat16>&, Device);

}  // namespace sgnn::ops::sddmm_cuda
