#include "ops/spmm_format.hpp"

#include <optional>
#include <string>

#include "ops/sparse_plan.hpp"

namespace sgnn::ops {

SpmmKernelChoice chosen_spmm_kernel(const Adjacency& adjacency, int64_t width, DType dtype) {
  constexpr SpmmKernelChoice kCsr{SpmmFormat::Csr, HrpbRowStaging::BulkCopies};
  // The recorded choice, looked up once: "csr", "hrpb" or kHrpbByCopies.
  const auto recorded = [&] { return sparse_plan(adjacency.csr)->choices->find(spmm_format_key(width, dtype)); };
  const auto hrpb_staged = [&](const std::optional<std::string>& choice) {
    const bool copies = choice == kHrpbByCopies && hrpb_row_staging_matters(dtype, width);
    return SpmmKernelChoice{SpmmFormat::Hrpb, copies ? HrpbRowStaging::Copies : HrpbRowStaging::BulkCopies};
  };
  switch (adjacency.spmm_format) {
    case SpmmFormat::Csr:
      return kCsr;
    case SpmmFormat::Hrpb:
      SGNN_CHECK(adjacency.hrpb != nullptr,
                 "spmm: the adjacency asks for the HRPB kernel but has no HRPB layout (build it with "
                 "graph_io::attach_hrpb, or use SpmmFormat::Csr)");
      return hrpb_staged(hrpb_row_staging_matters(dtype, width) ? recorded() : std::nullopt);
    case SpmmFormat::Auto: {
      if (adjacency.hrpb == nullptr) return kCsr;
      if (const std::optional<std::string> choice = recorded()) {
        if (*choice == "hrpb" || *choice == kHrpbByCopies) return hrpb_staged(choice);
        if (*choice == "csr") return kCsr;
      }
      if (dtype == DType::BFloat16) return kCsr;
      return adjacency.hrpb->forward.statistics.alpha() >= kHrpbAutoMinimumAlpha && width >= kHrpbAutoMinimumWidth
                 ? hrpb_staged(std::nullopt)
                 : kCsr;
    }
  }
  return kCsr;
}

SpmmFormat chosen_spmm_format(const Adjacency& adjacency, int64_t width, DType dtype) {
  return chosen_spmm_kernel(adjacency, width, dtype).format;
}

HrpbRowStaging chosen_hrpb_row_staging(const Adjacency& adjacency, int64_t width, DType dtype) {
  return chosen_spmm_kernel(adjacency, width, dtype).staging;
}

std::string spmm_format_key(int64_t width, DType dtype) {
  return std::string("spmm-format:") + (dtype == DType::BFloat16 ? "bf16:" : "") + "f" + std::to_string(width);
}

}  // namespace sgnn::ops
