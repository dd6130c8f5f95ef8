#include "sampling/destination_rows.hpp"

#include "core/autograd.hpp"
#include "ops/shape.hpp"

namespace sgnn::sampling {

Tensor destination_rows(const Tensor& x, int64_t count) {
  check_floating(x, "destination_rows", "x");
  SGNN_CHECK(x.dim() >= 1 && count >= 0 && count <= x.size(0), "destination_rows: ", count, " rows of x ",
             shape_str(x.shape()));
  Tensor out = x.narrow_rows(0, count);
  if (count == x.size(0)) return x;
  if (autograd::needs_recording({x})) {
    autograd::record("destination_rows", {x}, out,
                     [shape = x.shape(), dtype = x.dtype(), device = x.device()](const Tensor& grad,
                                                                                 const autograd::NeedsGrad&) {
                       Shape rest = shape;
                       rest[0] = shape[0] - grad.size(0);
                       return std::vector<Tensor>{ops::concat({grad, Tensor::zeros(rest, dtype, device)}, 0)};
                     });
  }
  return out;
}

}  // namespace sgnn::sampling
