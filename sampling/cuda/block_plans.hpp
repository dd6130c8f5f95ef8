// The sparse launch plans (ops/sparse_plan.hpp) of CSRs the sampler makes,
// built on the GPU in the context's stream and registered with
// ops::register_sparse_plan: the same plan ops::sparse_plan would build on
// the host (rows by decreasing length, split rows' segments first, whole
// rows longest first), without reading the CSR back. One host read of three
// counts per CSR (all CSRs of a call in one read).
#pragma once

#include <vector>

#include "core/csr.hpp"
#include "sampling/work_context.hpp"

namespace sgnn::sampling {

struct PlanRequest {
  const Csr* csr = nullptr;
  Tensor entry_row;  // int32 [nnz]: the row of each entry, when the caller has it (else computed if needed)
};

void register_device_plans(const std::vector<PlanRequest>& requests, const WorkContext& context);

}  // namespace sgnn::sampling
