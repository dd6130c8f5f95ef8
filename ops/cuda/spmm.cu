// CUDA SpMM after Sputnik (Gale et al. 2020, §V), for GNN shapes:
//  - 1-D tiling of the output: one subwarp of kSub lanes owns one
//    (row, head, feature tile) of C; small feature widths use narrow subwarps
//    so a warp works on several rows at once (subwarp tiling);
//  - work items are the plan's segments (ops/sparse_segments.hpp): rows cut
//    into pieces of at most segment_length entries, so a power-law hub row
//    is spread over many subwarps instead of serialising on a few lanes;
//    grid-stride over (segment, head, feature tile), so any size launches;
//  - items run segment-major (a row's feature tiles side by side) or, for
//    the "-slices" tiles, slice-major: every row's first feature tile, then
//    every row's second, … The warps running at one time then gather one
//    slice of B's columns, so a B too large for L2 is served from L2 a slice
//    at a time (GE-SpMM's grid order, Huang et al. SC'20); which order is
//    faster depends on B's size and the graph, so both are timed;
//  - the tile, the item order and whether B is zero-padded to the 16-byte
//    vector first are the call's CsrSpmmLaunch, decided on the host
//    (ops/spmm_choice.hpp); this file launches what it is given;
//  - an unsplit row's segment stores its output directly; segments of split
//    rows either atomicAdd into C (zeroed on the split rows just before; a
//    small kernel over the split-row list, cheaper than clearing all of C),
//    which makes those rows' summation order vary run to run, or, under
//    ops::set_deterministic(true), store partials into a [split segments,
//    width] workspace that a second kernel sums per row in segment order;
//  - each lane loads 4 consecutive column indices with one 128-bit load from
//    the row start rounded down to a multiple of 4 (reverse offset memory
//    alignment); entries outside the row are masked, loads past the row end
//    fall back to scalar loads;
//  - indices are pre-scaled to element offsets of B by the loading lane and
//    broadcast with shuffles;
//  - B and C are read and written 16 bytes per access (4 floats, 8
//    bfloat16s) when the per-head width is a multiple of that and the
//    pointers are 16-byte aligned, else with scalars; any width works
//    (feature residues are predicated);
//  - bfloat16 B and C (spmm_kernel.cuh, spmm_bf16.cu): loaded as float, summed
//    in float, each output rounded once; split rows always go through the
//    float partials (an atomic bfloat16 add would round at every segment),
//    so bfloat16 SpMM is deterministic in either mode.
#include <algorithm>
#include <cstdint>

#include "ops/cuda/pad_features.cuh"
#include "ops/cuda/sparse_device.cuh"
#include "ops/cuda/spmm_kernel.cuh"
#include "ops/determinism.hpp"
#include "ops/sparse_offsets.hpp"
#include "ops/sparse_plan.hpp"
#include "ops/spmm_backend.hpp"
#include "ops/spmm_tile.hpp"
#include "ops/vector_access.hpp"

namespace sgnn::ops {

namespace {

// Where the kernels' entry weights come from (spmm_backend.hpp): stored
// values, else the symmetric scale, else 1.
struct EdgeWeights {
  const float* values;
  const bfloat16* bf16_values;
  const double* symmetric_scale;
  const int32_t* value_map;  // entry e's values at value_map[e], or null
  bool average = false;      // each row's sum divided by its entry count (g-SpMM's Mean)
};

using sparse_cuda::Offsets;
using sparse_cuda::offsets_of;
using spmm_cuda::kWideVec;
using spmm_cuda::SpmmArguments;

void launch_tile(const SpmmTile& tile, const SpmmArguments<float>& args, bool wide_index, Device device) {
  spmm_cuda::launch_tile_of<float>(tile, args, wide_index, device);
}
using spmm_cuda::launch_tile;

// out[k, :] = in[map[k], :] in units of U: the widest of 16, 8, 4 or 2 bytes
// that divides an entry's row (8 heads of bfloat16: one 16-byte unit an
// entry, not eight 2-byte loads) and both base addresses.
template <typename U>
__global__ void gather_edges_kernel(Offsets map, const U* __restrict__ in, U* __restrict__ out, int64_t count,
                                    int64_t units) {
  const int64_t total = count * units;
  for (int64_t i = grid_stride_begin(); i < total; i += grid_stride_step()) {
    const int64_t k = i / units;
    out[i] = in[map[k] * units + (i - k * units)];
  }
}

// C[split row, :] /= the row's entry count after its segments added into C with atomics (float C, Mean).
__global__ void average_split_rows_kernel(const int32_t* __restrict__ rows, int64_t count, int64_t width,
                                          Offsets indptr, float* __restrict__ c) {
  const int64_t total = count * width;
  for (int64_t i = grid_stride_begin(); i < total; i += grid_stride_step()) {
    const int64_t k = i / width;
    c[int64_t{rows[k]} * width + (i - k * width)] *= sparse_cuda::split_row_factor(indptr, rows[k], true);
  }
}

// C = A · B with the CSR kernel and `tile` at this width.
template <typename T>
void spmm_direct_as(const Csr& csr, const EdgeWeights& weights, int64_t heads, int64_t features, const Tensor& b,
                    Tensor& c, const SpmmTile& tile) {
  constexpr bool kFloat = std::is_same_v<T, float>;
  const Device device = b.device();
  cuda::DeviceGuard guard(device);
  const std::shared_ptr<const SparsePlan> plan = sparse_plan(csr);
  const int64_t width = heads * features;
  const bool split = plan->split_segments > 0;
  const bool ordered = split && (deterministic() || !kFloat);
  const Tensor partials = ordered ? Tensor::empty({plan->split_segments, width}, DType::Float32, device) : Tensor();
  const bool vectorizable = sparse_cuda::aligned16(b.raw_data()) && sparse_cuda::aligned16(c.raw_data()) &&
                            (!ordered || sparse_cuda::aligned16(partials.raw_data())) && features % kWideVec<T> == 0;
  SGNN_CHECK(spmm_tile_has_kernel(tile, dtype_of<T>()) && (tile.vec == 1 || vectorizable),
             "spmm: the CSR tile ", spmm_tile_name(tile), " has no kernel for ", dtype_name(dtype_of<T>()),
             " operands of width ", features, (vectorizable ? "" : " without 16-byte accesses"));
  cudaStream_t stream = cuda::stream(device);
  const int32_t* split_rows = split ? plan->split_rows.data<int32_t>() : nullptr;
  SpmmArguments<T> args{offsets_of(csr.indptr),
                        csr.indices.data<int32_t>(),
                        weights.values,
                        sparse_cuda::segment_list(*plan, tile.by_row),
                        ordered ? partials.data<float>() : nullptr,
                        static_cast<int>(heads),
                        features,
                        0,
                        sparse_cuda::aligned16(csr.indices.raw_data()),
                        b.data<T>(),
                        c.data<T>()};
  args.symmetric_scale = weights.symmetric_scale;
  args.bf16_values = weights.bf16_values;
  args.value_map = weights.value_map;
  args.average = weights.average;
  args.int32_fits = light_spmm_tiles_fit(csr, *plan, heads, features);
  const int64_t extent = tile.across_heads ? width : features;
  args.tiles = (extent + tile.width() - 1) / tile.width();
  args.slice_major = tile.by_slice;
  args.item_grid = tile.item_grid;
  const bool wide_index = csr.num_cols * heads * features >= (int64_t{1} << 31);
  if constexpr (kFloat) {
    if (split && !ordered) {  // the split rows are summed into C with atomics: cleared before the launch
      const LaunchShape shape = elementwise_launch_shape(plan->num_split_rows * width, device);
      sparse_cuda::fill_split_rows_kernel<float><<<shape.blocks, shape.threads, 0, stream>>>(
          split_rows, plan->num_split_rows, width, 0.0f, c.data<float>());
      SGNN_CUDA_CHECK_LAUNCH("fill_split_rows_kernel");
    }
  }
  launch_tile(tile, args, wide_index, device);
  if (ordered) {
    const LaunchShape shape = elementwise_launch_shape(plan->num_split_rows * width, device);
    sparse_cuda::reduce_split_rows_kernel<T><<<shape.blocks, shape.threads, 0, stream>>>(
        split_rows, plan->split_offsets.data<int64_t>(), partials.data<float>(), plan->num_split_rows, width,
        offsets_of(csr.indptr), weights.average, c.data<T>());
    SGNN_CUDA_CHECK_LAUNCH("reduce_split_rows_kernel");
  } else if (split && weights.average) {
    if constexpr (kFloat) {
      const LaunchShape shape = elementwise_launch_shape(plan->num_split_rows * width, device);
      average_split_rows_kernel<<<shape.blocks, shape.threads, 0, stream>>>(split_rows, plan->num_split_rows, width,
                                                                           offsets_of(csr.indptr), c.data<float>());
      SGNN_CUDA_CHECK_LAUNCH("average_split_rows_kernel");
    }
  }
}

// The padded path (ops/spmm_choice.cpp says when it pays): B copied into
// [n, heads, width rounded up to the vector] (zero columns), the vector
// kernel there, C's real columns copied back; the same sums in the same
// order, so the same results.
template <typename T>
void spmm_padded_as(const Csr& csr, const EdgeWeights& weights, int64_t heads, int64_t features, const Tensor& b,
                    Tensor& c, const SpmmTile& tile) {
  const int64_t padded = padded_width(features, kWideVec<T>);
  const Tensor b_padded = sparse_cuda::padded_features<T>(b, heads, features, padded);
  Tensor c_padded = Tensor::empty({c.size(0), heads, padded}, c.dtype(), b.device());
  spmm_direct_as<T>(csr, weights, heads, padded, b_padded, c_padded, tile);
  sparse_cuda::unpad_features<T>(c_padded, features, padded, c);
}

}  // namespace

void spmm_forward(Cuda, const Csr& csr, const Tensor& values, int64_t heads, int64_t features, const Tensor& b,
                  Tensor& c, const double* symmetric_scale, const Tensor& value_map, bool average,
                  const CsrSpmmLaunch& launch) {
  if (c.numel() == 0) return;
  const bool bf16_values = values.defined() && values.dtype() == DType::BFloat16;
  const EdgeWeights weights{values.defined() && !bf16_values ? values.data<float>() : nullptr,
                            bf16_values ? values.data<bfloat16>() : nullptr, symmetric_scale,
                            value_map.defined() ? value_map.data<int32_t>() : nullptr, average};
  visit_floating(b.dtype(), [&](auto element) {
    using T = decltype(element);
    if (launch.padded) return spmm_padded_as<T>(csr, weights, heads, features, b, c, launch.tile);
    spmm_direct_as<T>(csr, weights, heads, features, b, c, launch.tile);
  });
}

void gather_edges(Cuda, const Tensor& map, const Tensor& in, Tensor& out) {
  const int64_t count = map.numel();
  if (out.numel() == 0) return;
  const Device device = in.device();
  cuda::DeviceGuard guard(device);
  const int64_t row_bytes = out.numel() / count * static_cast<int64_t>(dtype_size(in.dtype()));
  const auto gather = [&](auto unit) {
    using U = decltype(unit);
    const int64_t units = row_bytes / static_cast<int64_t>(sizeof(U));
    const LaunchShape shape = elementwise_launch_shape(count * units, device);
    gather_edges_kernel<U><<<shape.blocks, shape.threads, 0, cuda::stream(device)>>>(
        offsets_of(map), static_cast<const U*>(in.raw_data()), static_cast<U*>(out.raw_data()), count, units);
  };
  const auto fits = [&](std::size_t bytes) {
    const auto b = static_cast<int64_t>(bytes);
    return row_bytes % b == 0 && reinterpret_cast<uintptr_t>(in.raw_data()) % bytes == 0 &&
           reinterpret_cast<uintptr_t>(out.raw_data()) % bytes == 0;
  };
  if (fits(16)) gather(uint4{});
  else if (fits(8)) gather(uint2{});
  else if (fits(4)) gather(uint32_t{});
  else gather(uint16_t{});
  SGNN_CUDA_CHECK_LAUNCH("gather_edges_kernel");
}

}  // namespace sgnn::ops
