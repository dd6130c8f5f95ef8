#include "ops/shape.hpp"

#include "core/autograd.hpp"
#include "ops/shape_backend.hpp"

namespace sgnn::ops {

namespace {

// Moves the blocks between `whole` [outer, Σ width_j] and `pieces` (each
// [outer, width_j]) in either direction.
void move_blocks(std::vector<Tensor>& pieces, Tensor& whole, int64_t outer, bool into_whole) {
  if (outer == 0 || whole.numel() == 0) return;
  const int64_t total_width = whole.numel() / outer;
  int64_t offset = 0;
  for (Tensor& piece : pieces) {
    const int64_t width = piece.numel() / outer;
    if (into_whole) {
      SGNN_DISPATCH(whole.device(), copy_block, piece, whole, BlockCopy{0, width, offset, total_width, outer, width});
    } else {
      SGNN_DISPATCH(whole.device(), copy_block, whole, piece, BlockCopy{offset, total_width, 0, width, outer, width});
    }
    offset += width;
  }
}

}  // namespace

Tensor reshape(const Tensor& x, const Shape& shape) {
  check_defined(x, "reshape", "x");
  Tensor y = x.view(shape);  // detached: y gets its own autograd node below
  if (autograd::needs_recording({x})) {
    autograd::record("reshape", {x}, y, [x_shape = x.shape()](const Tensor& grad, const autograd::NeedsGrad&) {
      return std::vector<Tensor>{grad.view(x_shape)};
    });
  }
  return y;
}

Tensor concat(const std::vector<Tensor>& xs, int64_t axis) {
  SGNN_CHECK(!xs.empty(), "concat: needs at least one tensor");
  const Tensor& first = xs.front();
  check_floating(first, "concat", "xs[0]");
  const int64_t rank = first.dim();
  const int64_t resolved = axis < 0 ? axis + rank : axis;
  SGNN_CHECK(resolved >= 0 && resolved < rank, "concat: axis ", axis, " out of range for tensors of shape ",
             shape_str(first.shape()));
  const auto axis_index = static_cast<std::size_t>(resolved);
  Shape out_shape = first.shape();
  out_shape[axis_index] = 0;
  for (std::size_t j = 0; j < xs.size(); ++j) {
    const Tensor& x = xs[j];
    check_dtype(x, first.dtype(), "concat", "xs[j]");
    check_same_device(first, x, "concat");
    bool compatible = x.dim() == rank;
    for (int64_t i = 0; compatible && i < rank; ++i) {
      compatible = i == resolved || x.shape()[static_cast<std::size_t>(i)] == first.shape()[static_cast<std::size_t>(i)];
    }
    SGNN_CHECK(compatible, "concat: xs[", j, "] has shape ", shape_str(x.shape()), ", xs[0] has ",
               shape_str(first.shape()), "; all extents but axis ", resolved, " must match");
    out_shape[axis_index] += x.shape()[axis_index];
  }
  int64_t outer = 1;
  for (std::size_t i = 0; i < axis_index; ++i) outer *= out_shape[i];

  Tensor out = Tensor::empty(out_shape, first.dtype(), first.device());
  std::vector<Tensor> inputs = xs;
  move_blocks(inputs, out, outer, true);
  bool any_requires_grad = false;
  for (const Tensor& x : xs) any_requires_grad = any_requires_grad || autograd::needs_recording({x});
  if (any_requires_grad) {
    std::vector<Shape> shapes;
    for (const Tensor& x : xs) shapes.push_back(x.shape());
    autograd::record("concat", xs, out,
                     [shapes, outer](const Tensor& grad, const autograd::NeedsGrad&) {
                       std::vector<Tensor> pieces;
                       for (const Shape& shape : shapes) {
                         pieces.push_back(Tensor::empty(shape, grad.dtype(), grad.device()));
                       }
                       Tensor whole = grad;
                       move_blocks(pieces, whole, outer, false);
                       return pieces;
                     });
  }
  return out;
}

}  // namespace sgnn::ops
