// GATv2's scores and their gradients (ops/gatv2_backend.hpp) without an
// [nnz, H, F] tensor: x_target[row] + x_source[col] is formed per entry in
// registers, as the generalized g-SDDMM forms its operations
// (gspmm_kernel.cuh's operands and the plan's balanced segments).
//  - forward: one subwarp per (segment, head); per entry each lane sums a·
//    LeakyReLU(z) over its features, then the subwarp sums the lanes;
//  - backward: one subwarp per (head, feature tile, segment), items ordered
//    head-major so that a subwarp keeps a's partial sums for one (head,
//    tile) across the items it strides over and adds them to a once when
//    that changes (not once per entry); the row gradients are added with
//    float atomics (a split row's segments meet there; an unsplit row's
//    one add has no contender).
#include "ops/cuda/gspmm_kernel.cuh"
#include "ops/gatv2_backend.hpp"
#include "ops/sparse_plan.hpp"

namespace sgnn::ops {

namespace {

using gspmm_cuda::DeviceOperand;
using gspmm_cuda::device_operand;
using gspmm_cuda::vector_ready;
using sparse_cuda::offsets_of;

struct Gatv2Arguments {
  sparse_cuda::Offsets indptr;
  const int32_t* indices = nullptr;
  sparse_cuda::SegmentList segments;
  int heads = 1;
  int64_t features = 1;
  int64_t tiles = 1;
  DeviceOperand rows, columns;  // [n, H, F]
  const float* a = nullptr;     // [H, F]
  float slope = 0.2f;
};

__device__ __forceinline__ float leaky(float z, float slope) { return z > 0.0f ? z : slope * z; }

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

template <int kVec, int kSub>
__global__ void __launch_bounds__(sparse_cuda::kBlockThreads)
    gatv2_backward_kernel(Gatv2Arguments args, const int32_t* __restrict__ edge_map,
                          const float* __restrict__ grad_scores, float* __restrict__ grad_rows,
                          float* __restrict__ grad_a) {
  const int lane = static_cast<int>(threadIdx.x) & (kSub - 1);
  const unsigned mask = sparse_cuda::subwarp_mask<kSub>();
  const int64_t width = args.heads * args.features;
  const int64_t per_head_tile = args.segments.count;
  const int64_t items = per_head_tile * args.heads * args.tiles;
  float a_sums[kVec];
  int64_t a_offset = -1;  // where a_sums belong (head · F + the lane's first feature), -1: nothing held
  const auto flush = [&] {
    if (grad_a != nullptr && a_offset >= 0) {
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
    const sparse_cuda::SegmentRange range = sparse_cuda::segment_range(args.segments, args.indptr, item % per_head_tile);
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
          acc[v] += g * a[v] * (z > 0.0f ? 1.0f : args.slope);
          a_sums[v] += g * leaky(z, args.slope);
        }
      }
    }
    if (lane_active) {
#pragma unroll
      for (int v = 0; v < kVec; ++v) {
        if (feature + v < args.features) atomicAdd(grad_rows + range.row * width + offset + v, acc[v]);
      }
    }
  }
  flush();
}

Gatv2Arguments arguments_of(const Csr& csr, const SparsePlan& plan, const Tensor& rows, const Tensor& columns,
                            const Tensor& a, float slope) {
  Gatv2Arguments args;
  args.indptr = offsets_of(csr.indptr);
  args.indices = csr.indices.data<int32_t>();
  args.segments = sparse_cuda::segment_list(plan, false);
  args.heads = static_cast<int>(rows.size(1));
  args.features = rows.size(2);
  const FeatureLayout layout{args.heads * args.features, args.features, 1};
  args.rows = device_operand(rows, layout);
  args.columns = device_operand(columns, layout);
  args.a = a.data<float>();
  args.slope = slope;
  return args;
}

// 16-byte accesses where every row is aligned (F a multiple of 4 floats or 8 bfloat16s).
int vector_width(const Tensor& rows, const Tensor& columns) {
  const int wide = rows.dtype() == DType::BFloat16 ? 8 : 4;
  const FeatureLayout layout{rows.size(1) * rows.size(2), rows.size(2), 1};
  return rows.size(2) % wide == 0 && vector_ready(rows, layout, wide) && vector_ready(columns, layout, wide) ? wide : 1;
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
  with_tile(vector_width(rows, columns), args.features, [&](auto vec, auto sub) {
    const int64_t items = args.segments.count * args.heads;
    gatv2_scores_kernel<decltype(vec)::value, decltype(sub)::value>
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
  with_tile(vec, args.features, [&](auto vec_constant, auto sub) {
    constexpr int kVec = decltype(vec_constant)::value, kSub = decltype(sub)::value;
    args.tiles = (args.features + kSub * kVec - 1) / (kSub * kVec);
    const int64_t items = args.segments.count * args.heads * args.tiles;
    gatv2_backward_kernel<kVec, kSub><<<sparse_cuda::subwarp_blocks(items, kSub, device), sparse_cuda::kBlockThreads,
                                        0, cuda::stream(device)>>>(
        args, edge_map.defined() ? edge_map.data<int32_t>() : nullptr, grad_scores.data<float>(),
        grad_rows.data<float>(), grad_a.defined() ? grad_a.data<float>() : nullptr);
  });
  SGNN_CUDA_CHECK_LAUNCH("gatv2_backward_kernel");
}

}  // namespace sgnn::ops
