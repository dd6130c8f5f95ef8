// GATv2's scores and their gradients (ops/gatv2_backend.hpp) without an
// [nnz, H, F] tensor: x_target[row] + x_source[col] is formed per entry in
// registers, as the generalized g-SDDMM forms its operations
// (gspmm_kernel.cuh's operands and the plan's balanced segments). Two
// layouts of the lanes, forward and backward alike:
//  - whole rows (every head of an entry in one group of at most 32 lanes:
//    H · lanes-per-head ≤ 32): a warp per segment, each group of lanes one
//    entry, 32 / group entries side by side and kUnroll of them in flight
//    per group. An entry's x_source row (all heads, H·F contiguous values)
//    and its H scores (or score gradients: 4·H contiguous bytes) move as
//    whole sectors, x_target's row and a stay in registers for the segment,
//    and each lane keeps a's partial sums for its own (head, feature) from
//    the first item to the last (one atomic add per lane per launch).
//  - per head (wider heads): one subwarp per (segment, head) in the forward
//    and per (head, feature tile, segment) in the backward, items ordered
//    head-major so that a subwarp keeps a's partial sums for one (head,
//    tile) across the items it strides over and adds them to a once when
//    that changes.
// The row gradients are added with float atomics (a split row's segments
// meet there; an unsplit row's one add has no contender), and a's sums too.
// Under ops::set_deterministic(true) both go to partials instead, one row
// per work segment (`Gatv2Partials`), which fixed-order kernels then add:
// a's over all segments (sum_axis), a split row's over its segments
// (reduce_split_rows_kernel).
#include <optional>

#include "ops/cuda/gatv2_lanes.cuh"
#include "ops/determinism.hpp"
#include "ops/gatv2_backend.hpp"
#include "ops/reduce_backend.hpp"

namespace sgnn::ops {

namespace {

using namespace gatv2_cuda;

template <int kVec, int kSub>
__global__ void __launch_bounds__(sparse_cuda::kBlockThreads)
    gatv2_scores_kernel(Gatv2Arguments args, float* __restrict__ scores) {
  const unsigned mask = sparse_cuda::subwarp_mask<kSub>();
  const int lane = static_cast<int>(threadIdx.x) & (kSub - 1);
  const int64_t items = args.segments.count * args.heads;
  for (int64_t item = sparse_cuda::global_subwarp(kSub); item < items; item += sparse_cuda::subwarp_count(kSub)) {
    const int head = static_cast<int>(item % args.heads);
    const sparse_cuda::SegmentRange range = sparse_cuda::segment_range(args.segments, args.indptr, item / args.heads);
    if (range.skip) continue;
    for (int64_t chunk = range.begin; chunk < range.end; chunk += kSub) {
      const int64_t position = chunk + lane;
      const int32_t column = position < range.end ? __ldg(args.indices + position) : 0;
      const int staged = range.end - chunk < kSub ? static_cast<int>(range.end - chunk) : kSub;
      for (int k = 0; k < staged; ++k) {
        const int64_t c = __shfl_sync(mask, int64_t{column}, k, kSub);
        float sum = 0.0f;
        for (int64_t feature = lane * kVec; feature < args.features; feature += kSub * kVec) {
          float x[kVec], y[kVec];
          args.rows.template load<kVec>(args.rows.at(range.row, head, feature), x);
          args.columns.template load<kVec>(args.columns.at(c, head, feature), y);
#pragma unroll
          for (int v = 0; v < kVec; ++v) {
            sum += __ldg(args.a + head * args.features + feature + v) * leaky(x[v] + y[v], args.slope);
          }
        }
        sum = sparse_cuda::subwarp_sum<kSub>(sum, mask);
        if (lane == 0) scores[(chunk + k) * args.heads + head] = sum;
      }
    }
  }
}

// Deterministic mode's partial sums, [segments, H · F] float32 each (null
// by default): a's sums of each work segment, and the row gradients of the
// split rows' segments (items [0, split_segments)).
struct Gatv2Partials {
  float* a = nullptr;
  float* split_rows = nullptr;
};

template <int kVec, int kSub>
__global__ void __launch_bounds__(sparse_cuda::kBlockThreads)
    gatv2_backward_kernel(Gatv2Arguments args, const int32_t* __restrict__ edge_map,
                          const float* __restrict__ grad_scores, float* __restrict__ grad_rows,
                          float* __restrict__ grad_a, Gatv2Partials partials) {
  const int lane = static_cast<int>(threadIdx.x) & (kSub - 1);
  const unsigned mask = sparse_cuda::subwarp_mask<kSub>();
  const int64_t width = args.heads * args.features;
  const int64_t per_head_tile = args.segments.count;
  const int64_t items = per_head_tile * args.heads * args.tiles;
  float a_sums[kVec];
  int64_t a_offset = -1;  // where a_sums belong (head · F + the lane's first feature), -1: nothing held
  const auto flush = [&] {
    if (grad_a != nullptr && partials.a == nullptr && a_offset >= 0) {
#pragma unroll
      for (int v = 0; v < kVec; ++v) {
        if (a_offset % args.features + v < args.features) atomicAdd(grad_a + a_offset + v, a_sums[v]);
      }
    }
  };
  for (int64_t item = sparse_cuda::global_subwarp(kSub); item < items; item += sparse_cuda::subwarp_count(kSub)) {
    const int64_t head_tile = item / per_head_tile;
    const int head = static_cast<int>(head_tile / args.tiles);
    const int64_t tile = head_tile % args.tiles;
    const int64_t segment = item % per_head_tile;
    const sparse_cuda::SegmentRange range = sparse_cuda::segment_range(args.segments, args.indptr, segment);
    if (range.skip) continue;
    const int64_t feature = tile * (kSub * kVec) + lane * kVec;
    const bool lane_active = feature < args.features;
    const int64_t lane_feature = lane_active ? feature : 0;
    const int64_t offset = head * args.features + lane_feature;
    if (offset != a_offset) {
      flush();
      a_offset = lane_active ? offset : -1;
#pragma unroll
      for (int v = 0; v < kVec; ++v) a_sums[v] = 0.0f;
    }
    float a[kVec], x[kVec], acc[kVec];
#pragma unroll
    for (int v = 0; v < kVec; ++v) {
      a[v] = lane_active && feature + v < args.features ? __ldg(args.a + offset + v) : 0.0f;
      acc[v] = 0.0f;
    }
    args.rows.template load<kVec>(args.rows.at(range.row, head, lane_feature), x);
    for (int64_t chunk = range.begin; chunk < range.end; chunk += kSub) {
      const int64_t position = chunk + lane;
      const bool inside = position < range.end;
      const int32_t column = inside ? __ldg(args.indices + position) : 0;
      const int64_t edge = !inside ? 0 : edge_map ? int64_t{__ldg(edge_map + position)} : position;
      const float g_staged = inside ? __ldg(grad_scores + edge * args.heads + head) : 0.0f;
      const int staged = range.end - chunk < kSub ? static_cast<int>(range.end - chunk) : kSub;
      for (int k = 0; k < staged; ++k) {
        const int64_t c = __shfl_sync(mask, int64_t{column}, k, kSub);
        const float g = __shfl_sync(mask, g_staged, k, kSub);
        float y[kVec];
        args.columns.template load<kVec>(args.columns.at(c, head, lane_feature), y);
#pragma unroll
        for (int v = 0; v < kVec; ++v) {
          const float z = x[v] + y[v];
          // g · LeakyReLU'(z); LeakyReLU(z) = z · LeakyReLU'(z).
          const float gradient = g * (z > 0.0f ? 1.0f : args.slope);
          acc[v] += gradient * a[v];
          a_sums[v] += gradient * z;
        }
      }
    }
    if (lane_active) {
      const bool split = partials.split_rows != nullptr && segment < args.segments.split_segments;
#pragma unroll
      for (int v = 0; v < kVec; ++v) {
        if (feature + v >= args.features) continue;
        if (split) partials.split_rows[segment * width + offset + v] = acc[v];
        else atomicAdd(grad_rows + range.row * width + offset + v, acc[v]);
        if (partials.a != nullptr) partials.a[segment * width + offset + v] = a_sums[v];
      }
    }
    if (partials.a != nullptr) {  // this item's own sums only
#pragma unroll
      for (int v = 0; v < kVec; ++v) a_sums[v] = 0.0f;
    }
  }
  flush();
}


template <typename T, int kVec, int kChunks, int kUnroll>
__global__ void __launch_bounds__(sparse_cuda::kBlockThreads)
    gatv2_scores_rows_kernel(Gatv2Arguments args, WholeRowLanes lanes, float* __restrict__ scores) {
  const auto f = lane_features<kVec, kChunks>(args, lanes);
  const int head = f.valid[0] ? f.head : 0;
  const LaneOffsets offsets = LaneOffsets::template make<kVec>(f, lanes, args.heads, args.features);
  const T* __restrict__ targets = typed_data<T>(args.rows);
  const T* __restrict__ sources = typed_data<T>(args.columns);
  float a[kChunks][kVec];
  load_attention<kVec, kChunks>(args, f, head, a);
  for (int64_t item = sparse_cuda::global_subwarp(32); item < args.segments.count; item += sparse_cuda::subwarp_count(32)) {
    const sparse_cuda::SegmentRange range = sparse_cuda::segment_range(args.segments, args.indptr, item);
    if (range.skip) continue;
    float x[kChunks][kVec];
    load_lane_row<kVec, kChunks>(targets, args.rows.row_stride, offsets, range.row, x);
    for (int64_t base = range.begin; base < range.end; base += int64_t{kUnroll} * f.slots) {
      int64_t position[kUnroll];
      float y[kUnroll][kChunks][kVec];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        position[u] = base + int64_t{u} * f.slots + f.slot;
        // Past the end: row 0, read and not used.
        load_lane_row<kVec, kChunks>(sources, args.columns.row_stride, offsets,
                                     position[u] < range.end ? int64_t{__ldg(args.indices + position[u])} : 0, y[u]);
      }
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        float sum = 0.0f;
#pragma unroll
        for (int j = 0; j < kChunks; ++j) {
#pragma unroll
          for (int v = 0; v < kVec; ++v) sum += a[j][v] * leaky(x[j][v] + y[u][j][v], args.slope);
        }
        sum = lanes_sum(sum, lanes.per_head);
        if (position[u] < range.end && f.valid[0] && f.feature[0] == 0) scores[position[u] * args.heads + head] = sum;
      }
    }
  }
}

template <typename T, int kVec, int kChunks, int kUnroll>
__global__ void __launch_bounds__(sparse_cuda::kBlockThreads)
    gatv2_backward_rows_kernel(Gatv2Arguments args, WholeRowLanes lanes, const int32_t* __restrict__ edge_map,
                               const float* __restrict__ grad_scores, float* __restrict__ grad_rows,
                               float* __restrict__ grad_a, Gatv2Partials partials) {
  const auto f = lane_features<kVec, kChunks>(args, lanes);
  const int head = f.valid[0] ? f.head : 0;
  const LaneOffsets offsets = LaneOffsets::template make<kVec>(f, lanes, args.heads, args.features);
  const T* __restrict__ targets = typed_data<T>(args.rows);
  const T* __restrict__ sources = typed_data<T>(args.columns);
  const int64_t width = args.heads * args.features;
  float a[kChunks][kVec], a_sums[kChunks][kVec] = {};
  load_attention<kVec, kChunks>(args, f, head, a);
  for (int64_t item = sparse_cuda::global_subwarp(32); item < args.segments.count; item += sparse_cuda::subwarp_count(32)) {
    const sparse_cuda::SegmentRange range = sparse_cuda::segment_range(args.segments, args.indptr, item);
    if (range.skip) continue;
    float x[kChunks][kVec], acc[kChunks][kVec];
    load_lane_row<kVec, kChunks>(targets, args.rows.row_stride, offsets, range.row, x);
#pragma unroll
    for (int j = 0; j < kChunks; ++j) {
#pragma unroll
      for (int v = 0; v < kVec; ++v) acc[j][v] = 0.0f;
    }
    for (int64_t base = range.begin; base < range.end; base += int64_t{kUnroll} * f.slots) {
      float g[kUnroll];
      bool inside[kUnroll];
      float y[kUnroll][kChunks][kVec];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        const int64_t position = base + int64_t{u} * f.slots + f.slot;
        inside[u] = position < range.end && f.valid[0];
        const int64_t edge = !inside[u] ? 0 : edge_map ? int64_t{__ldg(edge_map + position)} : position;
        g[u] = inside[u] ? __ldg(grad_scores + edge * args.heads + head) : 0.0f;
        // Outside: row 0, read and not used.
        load_lane_row<kVec, kChunks>(sources, args.columns.row_stride, offsets,
                                     inside[u] ? int64_t{__ldg(args.indices + position)} : 0, y[u]);
      }
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
#pragma unroll
        for (int j = 0; j < kChunks; ++j) {
#pragma unroll
          for (int v = 0; v < kVec; ++v) {
            const float z = x[j][v] + y[u][j][v];
            if (!inside[u]) continue;  // row 0's values may not be finite: g · them is not 0
            const float gradient = g[u] * (z > 0.0f ? 1.0f : args.slope);  // LeakyReLU(z) = z · LeakyReLU'(z)
            acc[j][v] += gradient * a[j][v];
            a_sums[j][v] += gradient * z;
          }
        }
      }
    }
    if (partials.split_rows != nullptr && item < args.segments.split_segments) {
      add_slot_sums<kVec, kChunks, false>(f, lanes, head, args.features, acc, partials.split_rows + item * width);
    } else {
      add_slot_sums<kVec, kChunks>(f, lanes, head, args.features, acc, grad_rows + range.row * width);
    }
    if (partials.a != nullptr) {  // this item's own sums, then afresh
      add_slot_sums<kVec, kChunks, false>(f, lanes, head, args.features, a_sums, partials.a + item * width);
#pragma unroll
      for (int j = 0; j < kChunks; ++j) {
#pragma unroll
        for (int v = 0; v < kVec; ++v) a_sums[j][v] = 0.0f;
      }
    }
  }
  if (grad_a == nullptr || partials.a != nullptr) return;
  add_slot_sums<kVec, kChunks>(f, lanes, head, args.features, a_sums, grad_a);
}

template <typename Launch>
void with_tile(int vec, int64_t features, const Launch& launch) {
  const int64_t lanes = (features + vec - 1) / vec;
  const int sub = lanes <= 4 ? 4 : lanes <= 8 ? 8 : 32;
  const auto by_sub = [&](auto vec_constant) {
    constexpr int kVec = decltype(vec_constant)::value;
    if (sub == 4) return launch(std::integral_constant<int, kVec>{}, std::integral_constant<int, 4>{});
    if (sub == 8) return launch(std::integral_constant<int, kVec>{}, std::integral_constant<int, 8>{});
    launch(std::integral_constant<int, kVec>{}, std::integral_constant<int, 32>{});
  };
  if (vec == 8) return by_sub(std::integral_constant<int, 8>{});
  if (vec == 4) return by_sub(std::integral_constant<int, 4>{});
  by_sub(std::integral_constant<int, 1>{});
}

}  // namespace

void gatv2_scores_forward(Cuda, const Csr& csr, const Tensor& rows, const Tensor& columns, const Tensor& a,
                          float negative_slope, Tensor& scores) {
  const Device device = scores.device();
  cuda::DeviceGuard guard(device);
  const std::shared_ptr<const SparsePlan> plan = sparse_plan(csr);
  const Gatv2Arguments args = arguments_of(csr, *plan, rows, columns, a, negative_slope);
  const int vec = vector_width(rows, columns);
  if (const std::optional<WholeRowLayout> layout = whole_row_layout(args.heads, args.features, vec)) {
    with_whole_rows(columns.dtype(), vec, layout->chunks, [&](auto type, auto vec_constant, auto chunks, auto unroll) {
      gatv2_scores_rows_kernel<typename decltype(type)::type, decltype(vec_constant)::value, decltype(chunks)::value,
                               decltype(unroll)::value>
          <<<sparse_cuda::subwarp_blocks(args.segments.count, 32, device), sparse_cuda::kBlockThreads, 0,
             cuda::stream(device)>>>(args, layout->lanes, scores.data<float>());
    });
    SGNN_CUDA_CHECK_LAUNCH("gatv2_scores_rows_kernel");
    return;
  }
  with_tile(vec, args.features, [&](auto vec_constant, auto sub) {
    const int64_t items = args.segments.count * args.heads;
    gatv2_scores_kernel<decltype(vec_constant)::value, decltype(sub)::value>
        <<<sparse_cuda::subwarp_blocks(items, decltype(sub)::value, device), sparse_cuda::kBlockThreads, 0,
           cuda::stream(device)>>>(args, scores.data<float>());
  });
  SGNN_CUDA_CHECK_LAUNCH("gatv2_scores_kernel");
}

void gatv2_scores_backward(Cuda, const Csr& csr, const Tensor& edge_map, const Tensor& grad_scores, const Tensor& rows,
                           const Tensor& columns, const Tensor& a, float negative_slope, Tensor& grad_rows,
                           Tensor& grad_a) {
  if (csr.nnz == 0) return;
  const Device device = grad_rows.device();
  cuda::DeviceGuard guard(device);
  const std::shared_ptr<const SparsePlan> plan = sparse_plan(csr);
  Gatv2Arguments args = arguments_of(csr, *plan, rows, columns, a, negative_slope);
  const int vec = vector_width(rows, columns);
  const int32_t* map = edge_map.defined() ? edge_map.data<int32_t>() : nullptr;
  float* grad_a_data = grad_a.defined() ? grad_a.data<float>() : nullptr;
  // Deterministic mode: partials instead of atomics where several items meet.
  const int64_t width = args.heads * args.features;
  const bool ordered = deterministic();
  const Tensor a_partials = ordered && grad_a.defined()
                                ? Tensor::zeros({args.segments.count, width}, DType::Float32, device)
                                : Tensor();
  const Tensor split_partials = ordered && plan->split_segments > 0
                                    ? Tensor::zeros({plan->split_segments, width}, DType::Float32, device)
                                    : Tensor();
  Gatv2Partials partials;
  if (a_partials.defined()) partials.a = a_partials.data<float>();
  if (split_partials.defined()) partials.split_rows = split_partials.data<float>();
  // After the kernel: the partials added in a fixed order.
  const auto merge = [&] {
    if (split_partials.defined()) {
      const LaunchShape shape = elementwise_launch_shape(plan->num_split_rows * width, device);
      sparse_cuda::reduce_split_rows_kernel<float><<<shape.blocks, shape.threads, 0, cuda::stream(device)>>>(
          plan->split_rows.data<int32_t>(), plan->split_offsets.data<int64_t>(), split_partials.data<float>(),
          plan->num_split_rows, width, args.indptr, false, grad_rows.data<float>());
      SGNN_CUDA_CHECK_LAUNCH("reduce_split_rows_kernel");
    }
    if (a_partials.defined()) sum_axis(Cuda{}, a_partials, AxisLayout{1, args.segments.count, width}, 1.0f, grad_a);
  };
  if (const std::optional<WholeRowLayout> layout = whole_row_layout(args.heads, args.features, vec)) {
    with_whole_rows(columns.dtype(), vec, layout->chunks, [&](auto type, auto vec_constant, auto chunks, auto unroll) {
      gatv2_backward_rows_kernel<typename decltype(type)::type, decltype(vec_constant)::value, decltype(chunks)::value,
                                 decltype(unroll)::value>
          <<<sparse_cuda::subwarp_blocks(args.segments.count, 32, device), sparse_cuda::kBlockThreads, 0,
             cuda::stream(device)>>>(args, layout->lanes, map, grad_scores.data<float>(), grad_rows.data<float>(),
                                     grad_a_data, partials);
    });
    SGNN_CUDA_CHECK_LAUNCH("gatv2_backward_rows_kernel");
    return merge();
  }
  with_tile(vec, args.features, [&](auto vec_constant, auto sub) {
    constexpr int kVec = decltype(vec_constant)::value, kSub = decltype(sub)::value;
    args.tiles = (args.features + kSub * kVec - 1) / (kSub * kVec);
    const int64_t items = args.segments.count * args.heads * args.tiles;
    gatv2_backward_kernel<kVec, kSub><<<sparse_cuda::subwarp_blocks(items, kSub, device), sparse_cuda::kBlockThreads,
                                        0, cuda::stream(device)>>>(
        args, map, grad_scores.data<float>(), grad_rows.data<float>(), grad_a_data, partials);
  });
  SGNN_CUDA_CHECK_LAUNCH("gatv2_backward_kernel");
  merge();
}

}  // namespace sgnn::ops
