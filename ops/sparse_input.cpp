#include "ops/sparse_input.hpp"

#include "core/autograd.hpp"
#include "ops/determinism.hpp"
#include "ops/gspmm.hpp"
#include "ops/kernel_choice_table.hpp"
#include "ops/kernel_timer.hpp"
#include "ops/matmul.hpp"

namespace sgnn::ops {

bool attach_sparse_rows(Tensor& x) {
  if (!x.defined() || !x.device().is_cuda() || x.dtype() != DType::Float32 || x.dim() != 2) return false;
  std::shared_ptr<const SparseRows> rows = make_sparse_rows(x, 0.25);
  if (!rows) return false;
  x.set_sparse_rows(std::move(rows));
  return true;
}

Tensor sparse_rows_product(const SparseRows& rows, const Tensor& weight) {
  constexpr const char* op = "sparse_rows_product";
  check_dtype(weight, DType::Float32, op, "weight");
  check_dim(weight, 2, op, "weight");
  const Adjacency& matrix = rows.pattern->matrix();
  SGNN_CHECK(weight.size(0) == matrix.num_cols() && weight.device() == matrix.device(), op, ": weight ",
             shape_str(weight.shape()), " on ", weight.device().str(), " does not fit an x of ", matrix.num_rows(),
             " x ", matrix.num_cols(), " on ", matrix.device().str());
  return gspmm(matrix, MessageKind::UMulE, ReduceKind::Sum, weight, rows.values);
}

bool sparse_product_chosen(const Tensor& x, const Tensor& weight) {
  const std::shared_ptr<const SparseRows>& rows = x.sparse_rows();
  if (!rows || x.dtype() != DType::Float32 || x.requires_grad() || weight.dim() != 2 || deterministic()) return false;
  const SparsePattern& pattern = *rows->pattern;
  const Device device = x.device();
  if (pattern.matrix().device() != device || weight.device() != device || weight.size(0) != x.size(1)) return false;
  const int64_t width = weight.size(1);
  if (const std::optional<bool> recorded = pattern.sparse_product_faster(width)) return *recorded;
  if (!device.is_cuda() || stream_capturing(device) || !kernel_tuning_enabled()) return false;
  const autograd::NoGradGuard no_gradients;
  const auto dense = [&] { (void)matmul(x, weight); };
  const auto sparse = [&] { (void)sparse_rows_product(*rows, weight); };
  // Each product's own first-call choices (the GEMM algorithm, the SpMM tile) before either is timed.
  dense();
  sparse();
  const double dense_ms = candidate_ms(device, dense, "matmul over every entry");
  const double sparse_ms = candidate_ms(device, sparse, "matmul over the non-zeros", dense_ms);
  const bool faster = sparse_ms < dense_ms;
  pattern.record_sparse_product_faster(width, faster);
  return faster;
}

}  // namespace sgnn::ops
