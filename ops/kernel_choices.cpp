#include "ops/kernel_choices.hpp"

#include "ops/older_kernel_choices.hpp"
#include "ops/sparse_plan.hpp"

namespace sgnn::ops {

KernelChoiceMap kernel_choices(const Csr& csr) { return sparse_plan(csr)->choices->all(); }

void import_kernel_choices(const Csr& csr, const KernelChoiceMap& choices) {
  sparse_plan(csr)->choices->import(with_current_keys(choices));
}

void share_kernel_choices(const Csr& csr, const Csr& transpose) {
  const std::shared_ptr<const SparsePlan> main_plan = sparse_plan(csr);
  const std::shared_ptr<const SparsePlan> transpose_plan = sparse_plan(transpose);
  if (main_plan == transpose_plan) return;
  transpose_plan->choices->forward_to(main_plan->choices);
}

}  // namespace sgnn::ops
