// CUDA SDDMM after Sputnik (§VI), the Segments path of ops/sddmm_path.hpp
// (the plan picks it for short rows; long rows go to sddmm_dense_rows.cu,
// small graphs at small widths to sddmm_edges.cu, sddmm_edge_groups.cu
// balances by entries, and sddmm_hrpb.cu runs on tensor cores where the
// graph has an HRPB layout; which one runs is timed per graph and width where
// that pays, see choose() below and ops/kernel_choices.hpp):
// one subwarp per (segment, head) of the
// plan's work segments (ops/sparse_segments.hpp: rows cut into pieces of at
// most segment_length entries, so hub rows spread over many subwarps; every
// edge output is independent, so no atomics) walks the segment's entries four
// at a time; each lane multiplies its
// slice of x[row] and y[col] (16-byte loads, float4 or 8 bfloat16, when the
// per-head width is a multiple of the vector and the pointers are aligned;
// products and sums in float, the output float32), and the subwarp reduces the
// dot products with shuffles. Narrow subwarps for small widths; grid-stride
// over items, so any number of rows launches. sddmm_add: one subwarp per segment
// writes x[row] + y[col] for the segment's entries and heads, coalesced.
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "ops/kernel_timer.hpp"
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
using sddmm_cuda::SddmmArguments;

constexpr int kEntries = 4;  // entries per step: independent loads in flight

template <int kVec, int kSub, typename T>
__global__ void __launch_bounds__(sparse_cuda::kBlockThreads) sddmm_dot_kernel(SddmmArguments<T> args) {
  const unsigned mask = sparse_cuda::subwarp_mask<kSub>();
  const int lane = static_cast<int>(threadIdx.x) & (kSub - 1);
  const int64_t width = args.heads * args.features;
  const int64_t items = args.segments.count * args.heads;
  for (int64_t item = sparse_cuda::global_subwarp(kSub); item < items; item += sparse_cuda::subwarp_count(kSub)) {
    const int head = static_cast<int>(item % args.heads);
    const int64_t segment = item / args.heads;
    const sparse_cuda::SegmentRange range =
        sparse_cuda::segment_range(args.segments, args.indptr, segment);
    if (range.skip) continue;  // a split row met in row order: its segments are other items
    const int64_t row = range.row;
    const int64_t begin = range.begin;
    const int64_t end = range.end;
    const T* x_row = args.x + row * width + head * args.features;
    for (int64_t e0 = begin; e0 < end; e0 += kEntries) {
      const T* y_row[kEntries];
#pragma unroll
      for (int k = 0; k < kEntries; ++k) {
        // Entries past the row end repeat the first one; their sums are not written.
        const int64_t e = e0 + k < end ? e0 + k : e0;
        y_row[k] = args.y + int64_t{__ldg(args.indices + e)} * width + head * args.features;
      }
      float partial[kEntries] = {};
      for (int64_t f = lane * kVec; f < args.features; f += kSub * kVec) {
#pragma unroll
        for (int k = 0; k < kEntries; ++k) partial[k] += dot_slice<kVec>(x_row + f, y_row[k] + f);
      }
#pragma unroll
      for (int k = 0; k < kEntries; ++k) {
        const float sum = sparse_cuda::subwarp_sum<kSub>(partial[k], mask);
        if (lane == 0 && e0 + k < end) args.out.store((e0 + k) * args.heads + head, sum);
      }
    }
  }
}

template <int kVec, int kSub, typename T>
void launch_dot(const SddmmArguments<T>& args, Device device) {
  const unsigned blocks = sparse_cuda::subwarp_blocks(args.segments.count * args.heads, kSub, device);
  sddmm_dot_kernel<kVec, kSub><<<blocks, sparse_cuda::kBlockThreads, 0, cuda::stream(device)>>>(args);
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

}  // namespace

namespace {

// Below, `vector` is the elements per load: 1 for scalar loads, else
// kVectorElements of the dtype (4 float32, 8 bfloat16: 16 bytes either way).
// The EdgeGroups group sizes tried: four feature slices (one load each) per lane, two, or one.
int edge_group_lanes(int64_t features, int vector, int slices_per_lane) {
  const int64_t slices = features / vector;
  return sparse_cuda::next_power_of_two(std::max<int64_t>(1, slices / slices_per_lane), 32);
}

int segment_lanes(int64_t features, int vector) { return sparse_cuda::next_power_of_two(features / vector, 32); }

SddmmKernel variant_of(SddmmPath path, int64_t features, int vector) {
  if (path == SddmmPath::Segments) return {path, segment_lanes(features, vector)};
  if (path == SddmmPath::EdgeGroups) return {path, edge_group_lanes(features, vector, 4)};
  return {path, 0};
}

// Whether the kernel walks the plan's work items (and so has a row order).
bool walks_segments(SddmmPath path) { return path == SddmmPath::Segments || path == SddmmPath::DenseRows; }

SddmmKernel in_row_order(SddmmKernel kernel) {
  kernel.by_row = true;
  return kernel;
}

// Every kernel that exists for this graph and width in the plan's order, the
// rule's first; the HRPB kernel last, where the graph's layout fits.
std::vector<SddmmKernel> candidates(const SparsePlan& plan, int64_t features, int vector, bool hrpb_fits) {
  std::vector<SddmmKernel> all{variant_of(choose_sddmm_path(plan, features), features, vector)};
  const auto add = [&](SddmmKernel variant) {
    for (const SddmmKernel& known : all) {
      if (known.name() == variant.name()) return;
    }
    all.push_back(variant);
  };
  add(variant_of(SddmmPath::Segments, features, vector));
  if (features <= kDenseRowsMaxFeatures) add({SddmmPath::DenseRows, 0});
  if (plan.entry_row.defined()) add({SddmmPath::Edges, 0});
  for (const int slices_per_lane : {4, 2, 1}) {
    add({SddmmPath::EdgeGroups, edge_group_lanes(features, vector, slices_per_lane)});
  }
  if (hrpb_fits) add({SddmmPath::Hrpb, 0});
  return all;
}

// The variant a name (SddmmKernel::name) stands for, when it exists for this graph and width.
std::optional<SddmmKernel> parse_variant(const std::string& name, const SparsePlan& plan, int64_t features,
                                        bool hrpb_fits) {
  const auto lanes_after = [&](const std::string& prefix) -> int {
    if (!name.starts_with(prefix)) return 0;
    const std::string digits = name.substr(prefix.size());
    if (digits.empty() || digits.size() > 2 || digits.find_first_not_of("0123456789") != std::string::npos) return 0;
    const int lanes = std::stoi(digits);
    return lanes >= 1 && lanes <= 32 && (lanes & (lanes - 1)) == 0 ? lanes : 0;
  };
  if (name.ends_with("-rows") && name != "dense-rows") {
    std::optional<SddmmKernel> kernel = parse_variant(name.substr(0, name.size() - 5), plan, features, hrpb_fits);
    if (!kernel || !walks_segments(kernel->path)) return std::nullopt;
    kernel->by_row = true;
    return kernel;
  }
  if (name == "dense-rows") return features <= kDenseRowsMaxFeatures ? std::optional<SddmmKernel>({SddmmPath::DenseRows, 0}) : std::nullopt;
  if (name == "edges") return plan.entry_row.defined() ? std::optional<SddmmKernel>({SddmmPath::Edges, 0}) : std::nullopt;
  if (name == "hrpb") return hrpb_fits ? std::optional<SddmmKernel>({SddmmPath::Hrpb, 0}) : std::nullopt;
  if (const int lanes = lanes_after("segments-")) return SddmmKernel{SddmmPath::Segments, lanes};
  if (const int lanes = lanes_after("edge-groups-")) return SddmmKernel{SddmmPath::EdgeGroups, lanes};
  return std::nullopt;
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

// The forced path, else the graph's recorded choice, else timing (where it
// pays, ops/kernel_choices.hpp), else the rule. bfloat16 operands have their
// own key (":bf16"): half the bytes per row, so another kernel may win.
template <typename T>
SddmmKernel choose(const Csr& csr, const SparsePlan& plan, int64_t heads, int64_t features, bool vectorized,
                    const SddmmArguments<T>& args, const Hrpb* hrpb, Device device) {
  const int vector = vectorized ? sddmm_cuda::kVectorElements<T> : 1;
  const bool hrpb_fits = hrpb_sddmm_fits(hrpb, csr, features, vectorized, dtype_of<T>());
  if (forced_sddmm_path() == SddmmPath::Hrpb && hrpb_fits) return {SddmmPath::Hrpb, 0};
  if (forced_sddmm_path() != SddmmPath::Auto) {
    SddmmKernel forced = variant_of(choose_sddmm_path(plan, features), features, vector);
    if (forced.lanes > 0 && forced_sddmm_lanes() > 0) forced.lanes = forced_sddmm_lanes();
    forced.by_row = forced_sddmm_by_row() && walks_segments(forced.path);
    return forced;
  }
  const std::string key = sddmm_choice_key(heads, features, vectorized, dtype_of<T>(), hrpb_fits);
  // The recorded choice, read back from its name without listing the candidates (every call comes here).
  if (const std::optional<std::string> recorded = plan.choices->find(key)) {
    if (const std::optional<SddmmKernel> variant = parse_variant(*recorded, plan, features, hrpb_fits)) return *variant;
  }
  const std::vector<SddmmKernel> all = candidates(plan, features, vector, hrpb_fits);
  if (all.size() == 1 || !may_tune(csr, *plan.choices, stream_capturing(device))) return all.front();
  SddmmKernel best = all.front();
  double best_ms = std::numeric_limits<double>::infinity();
  std::vector<SddmmKernel> walking;  // the kernels that have a row order
  for (const SddmmKernel& variant : all) {
    const double ms = candidate_ms(
        device, [&] { run(variant, plan, args, csr.num_rows, vectorized, hrpb, device); }, key + " " + variant.name(),
        best_ms);
    if (ms < best_ms) {
      best_ms = ms;
      best = variant;
    }
    if (walks_segments(variant.path)) walking.push_back(variant);
  }
  // Where the numbering has locality the row order keeps the y rows that run
  // together in L2: each kernel that has one is timed again that way (it may
  // then beat a kernel without one: DenseRows in row order against
  // EdgeGroups on community graphs). Not only the faster of the two: in
  // longest-first order they can tie while one gains far more from the row
  // order (bfloat16 at width 128 on SBM with contiguous blocks: Segments
  // 0.857 and DenseRows 0.856 ms, in row order 0.705 and 0.595 ms;
  // docs/kernels.md). Their kernels have run: one launch times each.
  for (const SddmmKernel& kernel : walking) {
    const SddmmKernel by_row = in_row_order(kernel);
    const double ms = candidate_ms(
        device, [&] { run(by_row, plan, args, csr.num_rows, vectorized, hrpb, device); }, key + " " + by_row.name(),
        best_ms, /*warm=*/true);
    if (ms < best_ms) {
      best_ms = ms;
      best = by_row;
    }
  }
  plan.choices->set(key, best.name());
  return best;
}

}  // namespace

std::vector<SddmmKernel> sddmm_candidates(const Csr& csr, int64_t features, bool vectorized, DType dtype,
                                          const Hrpb* hrpb) {
  const int vector = vectorized ? sddmm_cuda::vector_elements(dtype) : 1;
  const bool hrpb_fits = hrpb_sddmm_fits(hrpb, csr, features, vectorized, dtype);
  std::vector<SddmmKernel> all = candidates(*sparse_plan(csr), features, vector, hrpb_fits);
  const std::size_t count = all.size();
  for (std::size_t i = 0; i < count; ++i) {
    if (walks_segments(all[i].path)) all.push_back(in_row_order(all[i]));
  }
  return all;
}

namespace {

template <typename T>
void dot_direct(const Csr& csr, const SparsePlan& plan, int64_t heads, int64_t features, const Tensor& x,
                const Tensor& y, Tensor& out, const Hrpb* hrpb, Device device) {
  const bool vectorized = sddmm_cuda::vectorizable(features, x, y);
  const SddmmArguments<T> args = arguments_of<T>(csr, plan, heads, features, x, y, out);
  run(choose(csr, plan, heads, features, vectorized, args, hrpb, device), plan, args, csr.num_rows, vectorized, hrpb,
      device);
}

// The same products plus zero ones, on copies of x and y padded to whole
// 16-byte vectors per head (their own measured kernel, under the padded width's key).
template <typename T>
void dot_padded(const Csr& csr, const SparsePlan& plan, int64_t heads, int64_t features, const Tensor& x,
                const Tensor& y, Tensor& out, const Hrpb* hrpb, Device device) {
  const int64_t padded = sparse_cuda::padded_width(features, sddmm_cuda::kVectorElements<T>);
  const Tensor x_padded = sparse_cuda::padded_features<T>(x, heads, features, padded);
  const Tensor y_padded = sparse_cuda::padded_features<T>(y, heads, features, padded);
  dot_direct<T>(csr, plan, heads, padded, x_padded, y_padded, out, hrpb, device);
}

}  // namespace

void sddmm_dot_forward(Cuda, const Csr& csr, int64_t heads, int64_t features, const Tensor& x, const Tensor& y,
                       Tensor& out, const Hrpb* hrpb) {
  if (out.numel() == 0) return;
  const Device device = x.device();
  cuda::DeviceGuard guard(device);
  const std::shared_ptr<const SparsePlan> plan = sparse_plan(csr);
  visit_floating(x.dtype(), [&](auto element) {
    using T = decltype(element);
    if (sddmm_cuda::vectorizable(features, x, y) || forced_sddmm_path() != SddmmPath::Auto) {
      return dot_direct<T>(csr, *plan, heads, features, x, y, out, hrpb, device);
    }
    const std::string key = sddmm_padded_key(heads, features, dtype_of<T>());
    std::optional<std::string> choice = plan->choices->find(key);
    if (!choice && may_tune(csr, *plan->choices, stream_capturing(device))) {
      const bool padded = padded_path_faster(
          device, key, [&] { dot_direct<T>(csr, *plan, heads, features, x, y, out, hrpb, device); },
          [&] { dot_padded<T>(csr, *plan, heads, features, x, y, out, hrpb, device); });
      choice = padded ? kSddmmPadded : "direct";
      plan->choices->set(key, *choice);
    }
    if (choice == std::optional<std::string>(kSddmmPadded)) {
      return dot_padded<T>(csr, *plan, heads, features, x, y, out, hrpb, device);
    }
    dot_direct<T>(csr, *plan, heads, features, x, y, out, hrpb, device);
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
