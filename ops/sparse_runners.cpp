#include "ops/sparse_runners.hpp"

#include "ops/cast.hpp"
#include "ops/edge_sums_backend.hpp"
#include "ops/sddmm_choice.hpp"
#include "ops/spmm_backend.hpp"
#include "ops/spmm_choice.hpp"

namespace sgnn::ops::detail {

Tensor run_spmm(const Csr& csr, const Tensor& values, int64_t heads, int64_t features, const Tensor& b,
                const Shape& shape, const double* symmetric_scale, bool average, const CsrSpmmLaunch* launch) {
  Tensor c = Tensor::empty(shape, b.dtype(), b.device());
  if (launch != nullptr) {
    launch_csr_spmm({csr, values, heads, features, b, symmetric_scale, Tensor(), average}, c, *launch);
  } else {
    csr_spmm_into(csr, values, heads, features, b, c, symmetric_scale, Tensor(), average);
  }
  return c;
}

Tensor run_spmm_transposed(const Adjacency& adjacency, const Tensor& values, int64_t heads, int64_t features,
                           const Tensor& b, const Shape& shape) {
  Tensor c = Tensor::empty(shape, b.dtype(), b.device());
  const Tensor& map = adjacency.transpose_to_csr;
  if (map.dtype() == DType::Int32) {
    csr_spmm_into(adjacency.transpose, values, heads, features, b, c, nullptr, map);
    return c;
  }
  Tensor moved = Tensor::empty_like(values);
  SGNN_DISPATCH(values.device(), gather_edges, map, values, moved);
  csr_spmm_into(adjacency.transpose, moved, heads, features, b, c);
  return c;
}

Tensor run_sddmm_dot(const Adjacency& adjacency, int64_t heads, int64_t features, const Tensor& x, const Tensor& y,
                     const Shape& shape, DType dtype) {
  Tensor out = Tensor::empty(shape, dtype, x.device());
  const Hrpb* hrpb = adjacency.hrpb != nullptr ? &adjacency.hrpb->forward : nullptr;
  sddmm_dot_into(adjacency.csr, heads, features, x, y, out, hrpb);
  return out;
}

std::vector<Tensor> edge_sum_gradients(const Adjacency& adjacency, int64_t heads, DType dtype, const Tensor& grad_sums,
                                       const autograd::NeedsGrad& needs) {
  std::vector<Tensor> grads(2);
  const Device device = grad_sums.device();
  if (needs[0]) {
    Tensor sums = Tensor::empty({adjacency.num_rows(), heads}, DType::Float32, device);
    SGNN_DISPATCH(device, edge_sums, adjacency.csr, heads, grad_sums, Tensor(), sums);
    grads[0] = cast(sums, dtype);
  }
  if (needs[1]) {
    Tensor sums = Tensor::empty({adjacency.num_cols(), heads}, DType::Float32, device);
    SGNN_DISPATCH(device, edge_sums, adjacency.transpose, heads, grad_sums, adjacency.transpose_to_csr, sums);
    grads[1] = cast(sums, dtype);
  }
  return grads;
}

}  // namespace sgnn::ops::detail
