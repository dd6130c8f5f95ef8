#include "ops/spmm_format.hpp"

#include <optional>
#include <string>

#include "ops/sparse_plan.hpp"

namespace sgnn::ops {

SpmmFormat chosen_spmm_format(const Adjacency& adjacency, int64_t width, DType dtype) {
  switch (adjacency.spmm_format) {
    case SpmmFormat::Csr:
      return SpmmFormat::Csr;
    case SpmmFormat::Hrpb:
      SGNN_CHECK(adjacency.hrpb != nullptr,
                 "spmm: the adjacency asks for the HRPB kernel but has no HRPB layout (build it with "
                 "graph_io::attach_hrpb, or use SpmmFormat::Csr)");
      return SpmmFormat::Hrpb;
    case SpmmFormat::Auto: {
      if (adjacency.hrpb == nullptr) return SpmmFormat::Csr;
      if (const std::optional<std::string> recorded =
              sparse_plan(adjacency.csr)->choices->find(spmm_format_key(width, dtype))) {
        if (*recorded == "hrpb" || *recorded == kHrpbByCopies) return SpmmFormat::Hrpb;
        if (*recorded == "csr") return SpmmFormat::Csr;
      }
      if (dtype == DType::BFloat16) return SpmmFormat::Csr;
      return adjacency.hrpb->forward.statistics.alpha() >= kHrpbAutoMinimumAlpha && width >= kHrpbAutoMinimumWidth
                 ? SpmmFormat::Hrpb
                 : SpmmFormat::Csr;
    }
  }
  return SpmmFormat::Csr;
}

HrpbRowStaging chosen_hrpb_row_staging(const Adjacency& adjacency, int64_t width, DType dtype) {
  if (adjacency.spmm_format == SpmmFormat::Csr || !hrpb_row_staging_matters(dtype, width)) {
    return HrpbRowStaging::BulkCopies;
  }
  const std::optional<std::string> recorded = sparse_plan(adjacency.csr)->choices->find(spmm_format_key(width, dtype));
  return recorded == kHrpbByCopies ? HrpbRowStaging::Copies : HrpbRowStaging::BulkCopies;
}

std::string spmm_format_key(int64_t width, DType dtype) {
  return std::string("spmm-format:") + (dtype == DType::BFloat16 ? "bf16:" : "") + "f" + std::to_string(width);
}

}  // namespace sgnn::ops
