#include "ops/sddmm_path.hpp"

#include <atomic>
#include <string>

#include "core/error.hpp"

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

std::string sddmm_choice_key(int64_t heads, int64_t features, bool vectorized, DType dtype, bool with_hrpb) {
  return "sddmm:h" + std::to_string(heads) + ":f" + std::to_string(features) + (vectorized ? "" : ":scalar") +
         (dtype == DType::BFloat16 ? ":bf16" : "") + (with_hrpb ? ":hrpb" : "");
}

std::string sddmm_padded_key(int64_t heads, int64_t features, DType dtype) {
  return std::string("sddmm-padded:") + (dtype == DType::BFloat16 ? "bf16:" : "") + "h" + std::to_string(heads) +
         ":f" + std::to_string(features);
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
