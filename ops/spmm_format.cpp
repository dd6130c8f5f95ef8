#include "ops/spmm_format.hpp"

namespace sgnn::ops {

SpmmFormat chosen_spmm_format(const Adjacency& adjacency, int64_t width) {
  switch (adjacency.spmm_format) {
    case SpmmFormat::Csr:
      return SpmmFormat::Csr;
    case SpmmFormat::Hrpb:
      SGNN_CHECK(adjacency.hrpb != nullptr,
                 "spmm: the adjacency asks for the HRPB kernel but has no HRPB layout (build it with "
                 "graph_io::attach_hrpb, or use SpmmFormat::Csr)");
      return SpmmFormat::Hrpb;
    case SpmmFormat::Auto:
      return adjacency.hrpb != nullptr && adjacency.hrpb->forward.statistics.alpha() >= kHrpbAutoMinimumAlpha &&
                     width >= kHrpbAutoMinimumWidth
                 ? SpmmFormat::Hrpb
                 : SpmmFormat::Csr;
  }
  return SpmmFormat::Csr;
}

}  // namespace sgnn::ops
