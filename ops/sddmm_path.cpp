#include "ops/sddmm_path.hpp"

#include <atomic>
#include <string>

#include "core/error.hpp"

namespace sgnn::ops {

namespace {

std::atomic<SddmmPath> forced_path{SddmmPath::Auto};

}  // namespace

void force_sddmm_path(SddmmPath path) { forced_path.store(path, std::memory_order_relaxed); }

SddmmPath forced_sddmm_path() { return forced_path.load(std::memory_order_relaxed); }

SddmmPath choose_sddmm_path(const SparsePlan& plan, int64_t features) {
  if (features < 1 || features > kDenseRowsMaxFeatures) return SddmmPath::Segments;
  const SddmmPath forced = forced_sddmm_path();
  if (forced != SddmmPath::Auto) return forced;
  return plan.mean_segment_length >= kDenseRowsMinMeanSegment ? SddmmPath::DenseRows : SddmmPath::Segments;
}

std::string_view sddmm_path_name(SddmmPath path) {
  switch (path) {
    case SddmmPath::Segments: return "segments";
    case SddmmPath::DenseRows: return "dense-rows";
    default: return "auto";
  }
}

SddmmPath parse_sddmm_path(std::string_view name) {
  for (SddmmPath path : {SddmmPath::Auto, SddmmPath::Segments, SddmmPath::DenseRows}) {
    if (name == sddmm_path_name(path)) return path;
  }
  throw InvalidArgument("parse_sddmm_path: unknown SDDMM path '" + std::string(name) +
                        "' (expected auto, segments or dense-rows)");
}

}  // namespace sgnn::ops
