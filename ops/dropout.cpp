#include "ops/dropout.hpp"

#include "core/autograd.hpp"
#include "core/sparse_rows.hpp"
#include "ops/dropout_backend.hpp"

namespace sgnn::ops {

Tensor dropout(const Tensor& x, float p, bool training, Generator& generator) {
  check_floating(x, "dropout", "x");
  SGNN_CHECK(p >= 0.0f && p < 1.0f, "dropout: p must be in [0, 1), got ", p);
  if (!training || p == 0.0f) return x;
  const float keep_scale = 1.0f / (1.0f - p);
  const RandomDraw stream = generator.next_draw(static_cast<uint64_t>(x.numel()));
  Tensor y = Tensor::empty_like(x);
  SGNN_DISPATCH(x.device(), dropout_apply, x, p, keep_scale, stream, y);
  // x's non-zeros (core/sparse_rows.hpp): y's are the same entries under the same mask.
  if (const std::shared_ptr<const SparseRows>& rows = x.sparse_rows(); rows && x.dtype() == DType::Float32) {
    SparseRows masked{rows->pattern, Tensor::empty_like(rows->values)};
    SGNN_DISPATCH(x.device(), dropout_at_positions, rows->values, rows->pattern->positions(), p, keep_scale, stream,
                  masked.values);
    y.set_sparse_rows(std::make_shared<const SparseRows>(std::move(masked)));
  }
  if (autograd::needs_recording({x})) {
    autograd::record("dropout", {x}, y, [p, keep_scale, stream](const Tensor& grad, const autograd::NeedsGrad&) {
      Tensor grad_x = Tensor::empty_like(grad);
      SGNN_DISPATCH(grad.device(), dropout_apply, grad, p, keep_scale, stream, grad_x);
      return std::vector<Tensor>{grad_x};
    });
  }
  return y;
}

}  // namespace sgnn::ops
