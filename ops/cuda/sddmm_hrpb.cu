// The HRPB path of sddmm_dot (ops/sddmm_path.hpp): dot products on TF32
// tensor cores over the HRPB layout of the graph (core/hrpb.hpp), for
// matrices whose rows share their columns (meshes, stencils, banded
// numberings), where the CSR kernels read the same y row once per entry.
//
// A block of the layout is 16 rows of a panel × 16 compacted columns. Its
// 256 dot products x[row]·y[col] form the dense product X_panel · Y_blockᵀ,
// which mma.sync m16n8k8 computes in two n-tiles of 8 columns; the products
// of cells without an entry are dropped. Per block a warp reads the 16
// y rows once (16·F floats) where the CSR kernels read one y row per entry
// (93 entries a block on the 3D FEM matrices, 43 on the 27-point stencil).
//
// One thread block of four warps per virtual panel of the HRPB schedule (a
// heavy panel split along its blocks). The panel's 16 x rows of one head are
// staged in shared memory once, rounded to TF32; the warps take the panel's
// blocks in turn. A k8 step reads features in the order 4t + 2s (+1) for
// lane 4g + t and step s of a pair, so that each lane reads its x and y
// values for two steps as one 16-byte load (the sum over features is the
// same in any order). Every dot product is written by one lane, to the CSR
// entry the block's row masks give (ops/cuda/hrpb_row_masks.cuh): no atomics,
// and the same sums in the same order on every run.
//
// Precision: x and y rounded to TF32 (round to nearest even), products and
// sums in float — as the HRPB SpMM computes. Float32 operands only; the
// per-head width a multiple of 16 (whole 16-byte loads per lane and step pair).
#include <cstdint>

#include "core/cuda/launch.cuh"
#include "core/error.hpp"
#include "ops/cuda/hrpb_row_masks.cuh"
#include "ops/cuda/mma_tf32.cuh"
#include "ops/cuda/sddmm_arguments.cuh"

namespace sgnn::ops::sddmm_cuda {

namespace {

constexpr int kWarps = 4;
constexpr int kThreads = kWarps * 32;
// Feature chunks (16 features, one 16-byte load per lane and n-tile) whose y
// loads are issued before any of their mma steps: 4 loads in flight per lane.
// With eight thread blocks an SM (64 registers, 16 bytes spilled) this was
// 6-20% faster on the H100 than 4 chunks at 88 registers (five blocks) or
// six blocks: more warps waiting on L2 beat more loads per warp
// (bench/RESULTS.md, "SDDMM on the HRPB layout").
constexpr int kBatch = 2;
constexpr int kBlocksPerSm = 8;

struct PanelArguments {
  const int32_t* virtual_panel;
  const int32_t* virtual_block_ptr;
  const int32_t* active_cols;
  const uint2* row_masks;
  int64_t num_virtual_panels;
  int64_t num_rows;
  int x_stride;  // floats per staged x row: ≡ 16 mod 32, so a quarter warp's 16-byte loads of two rows never collide
};

__device__ __forceinline__ float4 tf32_rounded(float4 v) {
  return make_float4(__uint_as_float(to_tf32(v.x)), __uint_as_float(to_tf32(v.y)), __uint_as_float(to_tf32(v.z)),
                     __uint_as_float(to_tf32(v.w)));
}

__global__ void __launch_bounds__(kThreads, kBlocksPerSm) sddmm_hrpb_kernel(PanelArguments panels, SddmmArguments<float> args) {
  extern __shared__ float4 staged_x[];  // 16 rows × x_stride floats: one head of the panel's x rows
  float* x_rows = reinterpret_cast<float*>(staged_x);
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const int warp = static_cast<int>(threadIdx.x) >> 5;
  const int g = lane >> 2;
  const int t = lane & 3;
  const int heads = args.heads;
  const int64_t features = args.features;
  const int64_t width = heads * features;
  const int64_t vectors = features / 4;   // 16-byte vectors of one head's row
  const int64_t chunks = features / 16;   // step pairs
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
        float4 value = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        if (first_row + r < panels.num_rows) {
          value = __ldg(reinterpret_cast<const float4*>(args.x + (first_row + r) * width + head * features) + q);
        }
        reinterpret_cast<float4*>(x_rows + r * panels.x_stride)[q] = tf32_rounded(value);
      }
      __syncthreads();
      const float* x_upper = x_rows + g * panels.x_stride + 4 * t;
      const float* x_lower = x_upper + 8 * panels.x_stride;
      for (int64_t block = begin + warp; block < end; block += kWarps) {
        // Compacted columns g (n-tile 0) and 8 + g (n-tile 1); -1 past the panel's last active column.
        const int32_t columns[2] = {__ldg(panels.active_cols + block * hrpb::kBlockCols + g),
                                    __ldg(panels.active_cols + block * hrpb::kBlockCols + 8 + g)};
        const float* y_rows[2];
#pragma unroll
        for (int n = 0; n < 2; ++n) {
          y_rows[n] = columns[n] >= 0 ? args.y + int64_t{columns[n]} * width + head * features + 4 * t : nullptr;
        }
        float d[2][4] = {};
        for (int64_t first_chunk = 0; first_chunk < chunks; first_chunk += kBatch) {
          float4 y_values[kBatch][2];
#pragma unroll
          for (int k = 0; k < kBatch; ++k) {
#pragma unroll
            for (int n = 0; n < 2; ++n) {
              y_values[k][n] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
              if (first_chunk + k < chunks && y_rows[n] != nullptr) {
                y_values[k][n] = __ldg(reinterpret_cast<const float4*>(y_rows[n] + 16 * (first_chunk + k)));
              }
            }
          }
#pragma unroll
          for (int k = 0; k < kBatch; ++k) {
            if (first_chunk + k >= chunks) break;
            const int64_t offset = 16 * (first_chunk + k);
            const float4 upper = *reinterpret_cast<const float4*>(x_upper + offset);
            const float4 lower = *reinterpret_cast<const float4*>(x_lower + offset);
            const uint32_t a_even[4] = {__float_as_uint(upper.x), __float_as_uint(lower.x), __float_as_uint(upper.y),
                                        __float_as_uint(lower.y)};
            const uint32_t a_odd[4] = {__float_as_uint(upper.z), __float_as_uint(lower.z), __float_as_uint(upper.w),
                                       __float_as_uint(lower.w)};
#pragma unroll
            for (int n = 0; n < 2; ++n) {
              mma_tf32(d[n], a_even, to_tf32(y_values[k][n].x), to_tf32(y_values[k][n].y));
              mma_tf32(d[n], a_odd, to_tf32(y_values[k][n].z), to_tf32(y_values[k][n].w));
            }
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

int staged_stride(int64_t features) { return static_cast<int>(features % 32 == 0 ? features + 16 : features); }

}  // namespace

void launch_hrpb(const Hrpb& hrpb, const SddmmArguments<float>& args, Device device) {
  const HrpbSchedule& schedule = hrpb.schedule;
  if (schedule.num_virtual_panels == 0) return;  // no entries
  const Tensor row_masks = hrpb_row_masks(hrpb);
  const PanelArguments panels{schedule.virtual_panel.data<int32_t>(),
                              schedule.virtual_block_ptr.data<int32_t>(),
                              hrpb.active_cols.data<int32_t>(),
                              reinterpret_cast<const uint2*>(row_masks.data<int32_t>()),
                              schedule.num_virtual_panels,
                              hrpb.num_rows,
                              staged_stride(args.features)};
  const size_t shared_bytes = sizeof(float) * hrpb::kPanelRows * static_cast<size_t>(panels.x_stride);
  const auto grid = static_cast<unsigned>(std::min<int64_t>(schedule.num_virtual_panels, int64_t{1} << 30));
  sddmm_hrpb_kernel<<<grid, kThreads, shared_bytes, cuda::stream(device)>>>(panels, args);
  SGNN_CUDA_CHECK_LAUNCH("sddmm_hrpb_kernel");
}

}  // namespace sgnn::ops::sddmm_cuda
