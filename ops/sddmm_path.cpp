#include "ops/sddmm_path.hpp"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <string>

#include "core/error.hpp"
#include "ops/vector_access.hpp"

namespace sgnn::ops {

namespace {

std::atomic<SddmmPath> forced_path{SddmmPath::Auto};
std::atomic<int> forced_lanes{0};
std::atomic<bool> forced_by_row{false};

}  // namespace

void force_sddmm_path(SddmmPath path, int lanes, bool by_row) {
  SGNN_CHECK(lanes == 0 || (lanes >= 1 && lanes <= 32 && (lanes & (lanes - 1)) == 0),
             "force_sddmm_path: lanes must be 0 or a power of two in 1..32, got ", lanes);
  forced_path.store(path, std::memory_order_relaxed);
  forced_lanes.store(lanes, std::memory_order_relaxed);
  forced_by_row.store(by_row, std::memory_order_relaxed);
}

bool forced_sddmm_by_row() { return forced_by_row.load(std::memory_order_relaxed); }

std::string SddmmKernel::name() const {
  const std::string base(sddmm_path_name(path));
  return (lanes > 0 ? base + "-" + std::to_string(lanes) : base) + (by_row ? "-rows" : "");
}

SddmmPath forced_sddmm_path() { return forced_path.load(std::memory_order_relaxed); }

int forced_sddmm_lanes() { return forced_lanes.load(std::memory_order_relaxed); }

SddmmPath choose_sddmm_path(const SparsePlan& plan, int64_t features) {
  if (features < 1) return SddmmPath::Segments;
  const bool small_graph = plan.entry_row.defined();  // Edges exists
  const bool dense_rows = features <= kDenseRowsMaxFeatures;
  switch (forced_sddmm_path()) {
    case SddmmPath::Segments: return SddmmPath::Segments;
    case SddmmPath::DenseRows: return dense_rows ? SddmmPath::DenseRows : SddmmPath::Segments;
    case SddmmPath::Edges: return small_graph ? SddmmPath::Edges : SddmmPath::Segments;
    case SddmmPath::EdgeGroups: return SddmmPath::EdgeGroups;
    case SddmmPath::Hrpb:
    case SddmmPath::Auto: break;
  }
  if (small_graph && features <= kEdgesMaxFeatures) return SddmmPath::Edges;
  const bool dense_rows_pay = small_graph ? features <= kSmallGraphDenseRowsMaxFeatures
                                          : plan.mean_segment_length >= kDenseRowsMinMeanSegment;
  return dense_rows && dense_rows_pay ? SddmmPath::DenseRows : SddmmPath::Segments;
}

bool hrpb_sddmm_fits(const Hrpb* hrpb, const Csr& csr, int64_t features, bool vectorized, DType dtype) {
  // A chunk of four 16-byte vectors: 16 float32 or 32 bfloat16 features.
  const int64_t chunk = dtype == DType::BFloat16 ? 32 : 16;
  return hrpb != nullptr && vectorized && features >= chunk && features % chunk == 0 &&
         features <= kHrpbSddmmMaxFeatures && hrpb->num_rows == csr.num_rows && hrpb->num_cols == csr.num_cols &&
         hrpb->nnz == csr.nnz && hrpb->device() == csr.device();
}

namespace {

// The EdgeGroups group sizes tried: four feature slices (one load each) per lane, two, or one.
int edge_group_lanes(int64_t features, int vector, int slices_per_lane) {
  return subwarp_lanes(features / vector / slices_per_lane);
}

SddmmKernel kernel_of(SddmmPath path, int64_t features, int vector) {
  if (path == SddmmPath::Segments) return {path, subwarp_lanes(features / vector)};
  if (path == SddmmPath::EdgeGroups) return {path, edge_group_lanes(features, vector, 4)};
  return {path, 0};
}

}  // namespace

bool walks_segments(SddmmPath path) { return path == SddmmPath::Segments || path == SddmmPath::DenseRows; }

SddmmKernel rule_sddmm_kernel(const SparsePlan& plan, int64_t features, int vector) {
  return kernel_of(choose_sddmm_path(plan, features), features, vector);
}

std::vector<SddmmKernel> candidate_sddmm_kernels(const SparsePlan& plan, int64_t features, int vector,
                                                 bool hrpb_fits) {
  std::vector<SddmmKernel> all{rule_sddmm_kernel(plan, features, vector)};
  const auto add = [&](SddmmKernel kernel) {
    if (std::find(all.begin(), all.end(), kernel) == all.end()) all.push_back(kernel);
  };
  // Segments with one, two or four slices of the head a lane (sddmm.cu's row kernel from 4 lanes).
  for (const int slices_per_lane : {1, 2, 4}) {
    add({SddmmPath::Segments, subwarp_lanes(features / vector / slices_per_lane)});
  }
  if (features <= kDenseRowsMaxFeatures) add({SddmmPath::DenseRows, 0});
  if (plan.entry_row.defined()) add({SddmmPath::Edges, 0});
  for (const int slices_per_lane : {4, 2, 1}) {
    add({SddmmPath::EdgeGroups, edge_group_lanes(features, vector, slices_per_lane)});
  }
  if (hrpb_fits) add({SddmmPath::Hrpb, 0});
  return all;
}

bool sddmm_kernel_exists(const SddmmKernel& kernel, const SparsePlan& plan, int64_t features, bool hrpb_fits) {
  if (kernel.by_row && !walks_segments(kernel.path)) return false;
  const bool lanes_ok = kernel.lanes >= 1 && kernel.lanes <= 32 && (kernel.lanes & (kernel.lanes - 1)) == 0;
  switch (kernel.path) {
    case SddmmPath::Segments:
    case SddmmPath::EdgeGroups: return lanes_ok;
    case SddmmPath::DenseRows: return kernel.lanes == 0 && features <= kDenseRowsMaxFeatures;
    case SddmmPath::Edges: return kernel.lanes == 0 && plan.entry_row.defined();
    case SddmmPath::Hrpb: return kernel.lanes == 0 && hrpb_fits;
    case SddmmPath::Auto: break;
  }
  return false;
}

std::optional<SddmmKernel> parse_sddmm_kernel(std::string_view name, const SparsePlan& plan, int64_t features,
                                              bool hrpb_fits) {
  SddmmKernel kernel;
  if (name.ends_with("-rows") && name != "dense-rows") {
    kernel.by_row = true;
    name.remove_suffix(5);
  }
  // "<path>" or "<path>-<lanes>" (one or two digits).
  const std::size_t dash = name.find_last_of('-');
  const std::string_view digits = dash == std::string_view::npos ? std::string_view() : name.substr(dash + 1);
  if (!digits.empty() && digits.size() <= 2 && digits.find_first_not_of("0123456789") == std::string_view::npos) {
    std::from_chars(digits.data(), digits.data() + digits.size(), kernel.lanes);
    name = name.substr(0, dash);
  }
  for (const SddmmPath path : {SddmmPath::Segments, SddmmPath::DenseRows, SddmmPath::Edges, SddmmPath::EdgeGroups,
                               SddmmPath::Hrpb}) {
    if (name != sddmm_path_name(path)) continue;
    kernel.path = path;
    if (sddmm_kernel_exists(kernel, plan, features, hrpb_fits)) return kernel;
  }
  return std::nullopt;
}

std::vector<SddmmKernel> sddmm_candidates(const Csr& csr, int64_t features, bool vectorized, DType dtype,
                                          const Hrpb* hrpb) {
  const int vector = vectorized ? vector_elements(dtype) : 1;
  const bool hrpb_fits = hrpb_sddmm_fits(hrpb, csr, features, vectorized, dtype);
  std::vector<SddmmKernel> all = candidate_sddmm_kernels(*sparse_plan(csr), features, vector, hrpb_fits);
  const std::size_t count = all.size();
  for (std::size_t i = 0; i < count; ++i) {
    if (walks_segments(all[i].path)) all.push_back({all[i].path, all[i].lanes, true});
  }
  return all;
}

std::string_view sddmm_path_name(SddmmPath path) {
  switch (path) {
    case SddmmPath::Segments: return "segments";
    case SddmmPath::DenseRows: return "dense-rows";
    case SddmmPath::Edges: return "edges";
    case SddmmPath::EdgeGroups: return "edge-groups";
    case SddmmPath::Hrpb: return "hrpb";
    default: return "auto";
  }
}

SddmmPath parse_sddmm_path(std::string_view name) {
  for (SddmmPath path :
       {SddmmPath::Auto, SddmmPath::Segments, SddmmPath::DenseRows, SddmmPath::Edges, SddmmPath::EdgeGroups,
        SddmmPath::Hrpb}) {
    if (name == sddmm_path_name(path)) return path;
  }
  throw InvalidArgument("parse_sddmm_path: unknown SDDMM path '" + std::string(name) +
                        "' (expected auto, segments, dense-rows, edges, edge-groups or hrpb)");
}

}  // namespace sgnn::ops
