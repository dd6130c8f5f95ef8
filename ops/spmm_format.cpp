#include "ops/spmm_format.hpp"

#include "ops/spmm_choice.hpp"

namespace sgnn::ops {

SpmmFormat rule_spmm_format(const Adjacency& adjacency, int64_t width, DType dtype) {
  if (adjacency.hrpb == nullptr || dtype == DType::BFloat16) return SpmmFormat::Csr;
  return adjacency.hrpb->forward.statistics.alpha() >= kHrpbAutoMinimumAlpha && width >= kHrpbAutoMinimumWidth
             ? SpmmFormat::Hrpb
             : SpmmFormat::Csr;
}

SpmmFormat chosen_spmm_format(const Adjacency& adjacency, int64_t width, DType dtype) {
  return spmm_format_choice(adjacency, width, dtype).format;
}

HrpbRowStaging chosen_hrpb_row_staging(const Adjacency& adjacency, int64_t width, DType dtype) {
  return spmm_format_choice(adjacency, width, dtype).staging;
}

}  // namespace sgnn::ops
