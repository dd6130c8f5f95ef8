// CUDA SDDMM after Sputnik (§VI), the Segments path of ops/sddmm_path.hpp
// (the plan picks it for short rows; long rows go to sddmm_dense_rows.cu,
// small graphs at small widths to sddmm_edges.cu, sddmm_edge_groups.cu
// balances by entries, and sddmm_hrpb.cu runs on tensor cores where the
// graph has an HRPB layout; which one runs, and whether on zero-padded
// copies of x and y, is the call's SddmmLaunch, decided on the host,
// ops/sddmm_choice.hpp):
// one subwarp per (segment, head) of the
// plan's work segments (ops/sparse_segments.hpp: rows cut into pieces of at
// most segment_length entries, so hub rows spread over many subwarps; every
// edge output is independent, so no atomics): from 4 lanes a row kernel
// (sddmm_dot_rows_kernel, below) keeps x[row] in registers and reduces a
// step of entries together; narrower subwarps and heads wider than four
// slices a lane take the entry-at-a-time kernel, which walks the segment's
// entries four at a time; each lane multiplies its
// slice of x[row] and y[col] (16-byte loads, float4 or 8 bfloat16, when the
// per-head width is a multiple of the vector and the pointers are aligned;
// products and sums in float, the output float32), and the subwarp reduces the
// dot products with shuffles. Narrow subwarps for small widths; grid-stride
// over items, so any number of rows launches. sddmm_add: one subwarp per segment
// writes x[row] + y[col] for the segment's entries and heads, coalesced.
#include <cstdint>
#include <type_traits>

#include "ops/cuda/pad_features.cuh"
#include "ops/cuda/sddmm_arguments.cuh"
#include "ops/cuda/sparse_device.cuh"
#include "ops/sddmm_backend.hpp"
#include "ops/sddmm_path.hpp"
#include "ops/sparse_plan.hpp"

namespace sgnn::ops {

namespace {

using sddmm_cuda::arguments_of;
using sddmm_cuda::dot_slice;
using sddmm_cuda::lane_dot;
using sddmm_cuda::row_of;
using sddmm_cuda::SddmmArguments;

constexpr int kEntries = 4;  // entries per step: independent loads in flight

// kSlices: a lane's slices of a head (1, or 0: counted at run time, lane_dot).
template <int kVec, int kSub, int kSlices, typename T>
__global__ void __launch_bounds__(sparse_cuda::kBlockThreads) sddmm_dot_kernel(SddmmArguments<T> args) {
  const unsigned mask = sparse_cuda::subwarp_mask<kSub>();
  const int lane = static_cast<int>(threadIdx.x) & (kSub - 1);
  const int64_t width = args.heads * args.features;
  const int64_t items = args.segments.count * args.heads;
  for (int64_t item = sparse_cuda::global_subwarp(kSub); item < items; item += sparse_cuda::subwarp_count(kSub)) {
    const sparse_cuda::ItemPlace<int64_t> place =
        sparse_cuda::item_place(item, int64_t{1}, int64_t{args.heads}, items, false);
    const int head = static_cast<int>(place.head);
    const int64_t segment = place.segment;
    const sparse_cuda::SegmentRange range =
        sparse_cuda::segment_range(args.segments, args.indptr, segment);
    if (range.skip) continue;  // a split row met in row order: its segments are other items
    const int64_t row = range.row;
    const int64_t begin = range.begin;
    const int64_t end = range.end;
    const int64_t head_base = head * args.features;
    const T* x_row = row_of(args.x, static_cast<int32_t>(row), width) + head_base;
    for (int64_t e0 = begin; e0 < end; e0 += kEntries) {
      const T* y_row[kEntries];
#pragma unroll
      for (int k = 0; k < kEntries; ++k) {
        // Entries past the row end repeat the first one; their sums are not written.
        const int64_t e = e0 + k < end ? e0 + k : e0;
        y_row[k] = row_of(args.y, __ldg(args.indices + e), width) + head_base;
      }
      float partial[kEntries] = {};
      if constexpr (kSlices == 0) {
        // Wider heads: the entries' slices interleaved, a loop over the width.
        for (int64_t f = lane * kVec; f < args.features; f += kSub * kVec) {
#pragma unroll
          for (int k = 0; k < kEntries; ++k) partial[k] += dot_slice<kVec>(x_row + f, y_row[k] + f);
        }
      } else {
#pragma unroll
        for (int k = 0; k < kEntries; ++k) {
          partial[k] = lane_dot<kVec, kSub, kSlices>(x_row, y_row[k], lane, args.features);
        }
      }
#pragma unroll
      for (int k = 0; k < kEntries; ++k) {
        const float sum = sparse_cuda::subwarp_sum<kSub>(partial[k], mask);
        if (lane == 0 && e0 + k < end) args.out.store((e0 + k) * args.heads + head, sum);
      }
    }
  }
}

// The Segments path where a subwarp of at least 4 lanes covers the head in
// kSlices (1, 2 or 4) slices a lane: x[row]'s slices loaded once per segment
// into registers; the subwarp's lanes load kSub column indices at once (one
// coalesced load) and hand them out by shuffles; a step issues kEntries
// entries' y loads before any arithmetic, and one transposing butterfly
// (fold_sums) reduces the step's dot products together, kEntries − 1 +
// log2(kSub / kEntries) shuffles for kEntries entries where a sum per entry
// takes log2(kSub) each; consecutive lanes write consecutive outputs.
// Entries past the segment's end load nothing (a column of −1). No search
// and no reload of x per entry: RoDe's residue kernel has the same shape
// (Pang et al., PPoPP 2024); on the 5-point stencil at 1024² and width 32
// the entry-at-a-time kernel below took 0.37 ms, EdgeGroups 0.28 and RoDe's
// 0.18 (ncu, H200), this one 0.14 with 4 lanes in two slices in row order
// (docs/kernels.md).
// A step holds at most 32 floats of y a lane (DenseRows allows 64 for
// float32): at width 128 the 8-lane kernel in four slices spilled 16 bytes
// with 64 and ran 0.466 ms on the 5-point stencil at 1024², with 32 (two
// entries a step, 80 registers either way) 0.423 (H200; docs/kernels.md).
inline constexpr int kRowStepFloats = 32;

template <int kVec, int kSub, int kSlices, typename T>
__global__ void __launch_bounds__(sparse_cuda::kBlockThreads) sddmm_dot_rows_kernel(SddmmArguments<T> args) {
  constexpr int kEntries = sddmm_cuda::entries_per_step(kVec, kSub, kSlices, kRowStepFloats);
  constexpr int kCopies = kSub / kEntries;  // lanes holding each total after the fold
  static_assert(kSub >= 4 && kSub <= 32 && (kSub & (kSub - 1)) == 0, "kSub: a power of two from 4 to 32");
  const unsigned mask = sparse_cuda::subwarp_mask<kSub>();
  const int lane = static_cast<int>(threadIdx.x) & (kSub - 1);
  const int64_t width = args.heads * args.features;
  const int64_t items = args.segments.count * args.heads;
  for (int64_t item = sparse_cuda::global_subwarp(kSub); item < items; item += sparse_cuda::subwarp_count(kSub)) {
    const sparse_cuda::ItemPlace<int64_t> place =
        sparse_cuda::item_place(item, int64_t{1}, int64_t{args.heads}, items, false);
    const int head = static_cast<int>(place.head);
    const int64_t segment = place.segment;
    const sparse_cuda::SegmentRange range = sparse_cuda::segment_range(args.segments, args.indptr, segment);
    if (range.skip) continue;  // a split row met in row order: its segments are other items
    const int64_t head_base = head * args.features;
    // Slice c of this lane: features (c·kSub + lane)·kVec …; past a narrow head's end, zeros, never loaded.
    const T* x_row = row_of(args.x, static_cast<int32_t>(range.row), width) + head_base;
    float x_slice[kSlices][kVec] = {};
#pragma unroll
    for (int c = 0; c < kSlices; ++c) {
      const int f = (c * kSub + lane) * kVec;
      if (f < args.features) sddmm_cuda::load_slice<kVec>(x_row + f, x_slice[c]);
    }
    for (int64_t base = range.begin; base < range.end; base += kSub) {
      const int64_t mine = base + lane;
      const int32_t column = mine < range.end ? __ldg(args.indices + mine) : -1;
      // Not unrolled: a step's kEntries loads are the ones in flight; unrolled,
      // the steps' loads were hoisted together (222 registers at 32 lanes of
      // bfloat16 in four slices).
#pragma unroll 1
      for (int step = 0; step < kSub; step += kEntries) {
        if (base + step >= range.end) break;  // the same for the subwarp's lanes
        float partial[kEntries];
#pragma unroll
        for (int k = 0; k < kEntries; ++k) {
          const int32_t col = __shfl_sync(mask, column, step + k, kSub);
          const T* y_row = row_of(args.y, col, width) + head_base;
          float sum = 0.0f;
#pragma unroll
          for (int c = 0; c < kSlices; ++c) {
            const int f = (c * kSub + lane) * kVec;
            float y_slice[kVec] = {};
            if (col >= 0 && f < args.features) sddmm_cuda::load_slice<kVec>(y_row + f, y_slice);
#pragma unroll
            for (int v = 0; v < kVec; ++v) sum += x_slice[c][v] * y_slice[v];
          }
          partial[k] = sum;
        }
        const int slot = sddmm_cuda::fold_sums<kEntries, kSub / 2>(partial, lane, mask);
        const int64_t e = base + step + slot;
        if (lane % kCopies == 0 && e < range.end) args.out.store(e * args.heads + head, partial[0]);
      }
    }
  }
}

// The row kernel from 4 lanes wherever they cover the head in up to 4
// slices a lane, else the entry-at-a-time kernel (one slice a lane, or a loop).
template <int kVec, int kSub, typename T>
void launch_dot(const SddmmArguments<T>& args, Device device) {
  const int64_t items = args.segments.count * args.heads;
  const int64_t slices = (args.features + kSub * kVec - 1) / (kSub * kVec);
  if constexpr (kSub >= 4) {
    if (slices <= 4) {
      const unsigned blocks = sparse_cuda::item_blocks(items, kSub);
      const cudaStream_t stream = cuda::stream(device);
      if (slices <= 1) sddmm_dot_rows_kernel<kVec, kSub, 1><<<blocks, sparse_cuda::kBlockThreads, 0, stream>>>(args);
      else if (slices <= 2) sddmm_dot_rows_kernel<kVec, kSub, 2><<<blocks, sparse_cuda::kBlockThreads, 0, stream>>>(args);
      else sddmm_dot_rows_kernel<kVec, kSub, 4><<<blocks, sparse_cuda::kBlockThreads, 0, stream>>>(args);
      SGNN_CUDA_CHECK_LAUNCH("sddmm_dot_rows_kernel");
      return;
    }
  }
  const unsigned blocks = sparse_cuda::subwarp_blocks(items, kSub, device);
  if (slices <= 1) {
    sddmm_dot_kernel<kVec, kSub, 1><<<blocks, sparse_cuda::kBlockThreads, 0, cuda::stream(device)>>>(args);
  } else {
    sddmm_dot_kernel<kVec, kSub, 0><<<blocks, sparse_cuda::kBlockThreads, 0, cuda::stream(device)>>>(args);
  }
  SGNN_CUDA_CHECK_LAUNCH("sddmm_dot_kernel");
}

template <int kVec, typename T>
void launch_dot_sub(int sub, const SddmmArguments<T>& args, Device device) {
  switch (sub) {
    case 1: return launch_dot<kVec, 1>(args, device);
    case 2: return launch_dot<kVec, 2>(args, device);
    case 4: return launch_dot<kVec, 4>(args, device);
    case 8: return launch_dot<kVec, 8>(args, device);
    case 16: return launch_dot<kVec, 16>(args, device);
    default: return launch_dot<kVec, 32>(args, device);
  }
}

template <int kSub, typename T>
__global__ void __launch_bounds__(sparse_cuda::kBlockThreads) sddmm_add_kernel(SddmmArguments<T> args) {
  const int lane = static_cast<int>(threadIdx.x) & (kSub - 1);
  const int64_t heads = args.heads;
  for (int64_t item = sparse_cuda::global_subwarp(kSub); item < args.segments.count;
       item += sparse_cuda::subwarp_count(kSub)) {
    const sparse_cuda::SegmentRange range =
        sparse_cuda::segment_range(args.segments, args.indptr, item);
    if (range.skip) continue;  // a split row met in row order: its segments are other items
    const int64_t row = range.row;
    const int64_t end = range.end * heads;
    for (int64_t k = range.begin * heads + lane; k < end; k += kSub) {
      const int64_t e = k / heads;
      const int64_t head = k - e * heads;
      args.out.store(k, load_float_readonly(args.x + row * heads + head) +
                            load_float_readonly(args.y + int64_t{__ldg(args.indices + e)} * heads + head));
    }
  }
}

template <int kSub, typename T>
void launch_add(const SddmmArguments<T>& args, Device device) {
  const unsigned blocks = sparse_cuda::subwarp_blocks(args.segments.count, kSub, device);
  sddmm_add_kernel<kSub><<<blocks, sparse_cuda::kBlockThreads, 0, cuda::stream(device)>>>(args);
  SGNN_CUDA_CHECK_LAUNCH("sddmm_add_kernel");
}

// `hrpb`: the graph's layout, where the variant is Hrpb.
template <typename T>
void run(const SddmmKernel& variant, const SparsePlan& plan, SddmmArguments<T> args, int64_t rows, bool vectorized,
         const Hrpb* hrpb, Device device) {
  args.segments = sparse_cuda::segment_list(plan, variant.by_row);
  if (variant.path == SddmmPath::Hrpb) return sddmm_cuda::launch_hrpb(*hrpb, args, device);
  switch (variant.path) {
    case SddmmPath::DenseRows: return sddmm_cuda::launch_dense_rows(args, vectorized, device);
    case SddmmPath::Edges: return sddmm_cuda::launch_edges(args, vectorized, device);
    case SddmmPath::EdgeGroups: return sddmm_cuda::launch_edge_groups(args, rows, variant.lanes, vectorized, device);
    default:
      if (vectorized) return launch_dot_sub<sddmm_cuda::kVectorElements<T>>(variant.lanes, args, device);
      return launch_dot_sub<1>(variant.lanes, args, device);
  }
}

template <typename T>
void dot_direct(const Csr& csr, const SparsePlan& plan, int64_t heads, int64_t features, const Tensor& x,
                const Tensor& y, Tensor& out, const Hrpb* hrpb, const SddmmKernel& kernel, Device device) {
  const bool vectorized = sddmm_cuda::vectorizable(features, x, y);
  const bool hrpb_fits = hrpb_sddmm_fits(hrpb, csr, features, vectorized, dtype_of<T>());
  SGNN_CHECK(sddmm_kernel_exists(kernel, plan, features, hrpb_fits), "sddmm_dot: no kernel ", kernel.name(),
             " for this graph at ", features, " features per head", (hrpb_fits ? "" : " without an HRPB layout that fits"));
  run(kernel, plan, arguments_of<T>(csr, plan, heads, features, x, y, out), csr.num_rows, vectorized, hrpb, device);
}

// The same products plus zero ones, on copies of x and y padded to whole 16-byte vectors per head.
template <typename T>
void dot_padded(const Csr& csr, const SparsePlan& plan, int64_t heads, int64_t features, const Tensor& x,
                const Tensor& y, Tensor& out, const Hrpb* hrpb, const SddmmKernel& kernel, Device device) {
  const int64_t padded = padded_width(features, sddmm_cuda::kVectorElements<T>);
  const Tensor x_padded = sparse_cuda::padded_features<T>(x, heads, features, padded);
  const Tensor y_padded = sparse_cuda::padded_features<T>(y, heads, features, padded);
  dot_direct<T>(csr, plan, heads, padded, x_padded, y_padded, out, hrpb, kernel, device);
}

}  // namespace

void sddmm_dot_forward(Cuda, const Csr& csr, int64_t heads, int64_t features, const Tensor& x, const Tensor& y,
                       Tensor& out, const Hrpb* hrpb, const SddmmLaunch& launch) {
  if (out.numel() == 0) return;
  const Device device = x.device();
  cuda::DeviceGuard guard(device);
  const std::shared_ptr<const SparsePlan> plan = sparse_plan(csr);
  visit_floating(x.dtype(), [&](auto element) {
    using T = decltype(element);
    if (launch.padded) return dot_padded<T>(csr, *plan, heads, features, x, y, out, hrpb, launch.kernel, device);
    dot_direct<T>(csr, *plan, heads, features, x, y, out, hrpb, launch.kernel, device);
  });
}

void sddmm_add_forward(Cuda, const Csr& csr, int64_t heads, const Tensor& x, const Tensor& y, Tensor& out) {
  if (out.numel() == 0) return;
  const Device device = x.device();
  cuda::DeviceGuard guard(device);
  const std::shared_ptr<const SparsePlan> plan = sparse_plan(csr);
  // Entries × heads of a typical row decide how many lanes share it.
  const double per_row = plan->mean_row_length * static_cast<double>(heads);
  visit_floating(x.dtype(), [&](auto element) {
    using T = decltype(element);
    const SddmmArguments<T> args = arguments_of<T>(csr, *plan, heads, 1, x, y, out);
    if (per_row <= 4) launch_add<4>(args, device);
    else if (per_row <= 8) launch_add<8>(args, device);
    else if (per_row <= 16) launch_add<16>(args, device);
    else launch_add<32>(args, device);
  });
}

}  // namespace sgnn::ops
