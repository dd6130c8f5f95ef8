#include "ops/gather_scatter.hpp"

#include <string>

#include "core/autograd.hpp"
#include "ops/determinism.hpp"
#include "ops/gather_scatter_backend.hpp"
#include "ops/index_plan.hpp"
#include "ops/ordered_scatter.hpp"

namespace sgnn::ops {

namespace {

constexpr int64_t kInt32Rows = int64_t{1} << 31;

// A values tensor: float32 or bfloat16 with an axis 0 to index.
void check_values(const Tensor& values, const char* op, const char* argument) {
  check_floating(values, op, argument);
  SGNN_CHECK(values.dim() >= 1, op, ": argument '", argument, "' must have at least one axis (rows), got shape ",
             shape_str(values.shape()));
}

// An index or offsets tensor beside the values: same device.
void check_beside(const Tensor& values, const Tensor& index, const char* op, const char* argument) {
  check_defined(index, op, argument);
  SGNN_CHECK(index.device() == values.device(), op, ": argument '", argument, "' is on ", index.device().str(),
             " but the values are on ", values.device().str(), "; move it with .to(device)");
}

Shape with_rows(Shape shape, int64_t rows) {
  shape[0] = rows;
  return shape;
}

std::string shape_text(const char* name, const Tensor& tensor) {
  return std::string(name) + " of shape " + shape_str(tensor.shape());
}

// A CSR over the positions of a segment reduction (only its offsets are read).
Segments segments_of(const Tensor& offsets, int64_t positions, const Tensor& row_map = Tensor()) {
  Segments segments;
  segments.csr.num_rows = offsets.numel() - 1;
  segments.csr.nnz = positions;
  segments.csr.indptr = offsets;
  segments.row_map = row_map;
  return segments;
}

// The reduction over checked segments, recorded for autograd. For Max and
// Min the winning rows are kept as int32 [S, width].
Tensor reduce_segments(const char* op, const Segments& segments, ReduceKind reduce, const Tensor& src) {
  SGNN_CHECK(!reduce_keeps_argument(reduce) || src.size(0) < kInt32Rows, op, ": ", reduce_kind_name(reduce),
             " keeps the winning row as int32, and src has ", src.size(0), " rows (at most 2^31 - 1)");
  Tensor out = Tensor::empty(with_rows(src.shape(), segments.csr.num_rows), src.dtype(), src.device());
  const int64_t width = shape_numel(Shape(src.shape().begin() + 1, src.shape().end()));
  Tensor argument = reduce_keeps_argument(reduce)
                        ? Tensor::empty({segments.csr.num_rows, width}, DType::Int32, src.device())
                        : Tensor();
  SGNN_DISPATCH(src.device(), segment_reduce_forward, segments, reduce, src, out, argument);
  if (autograd::needs_recording({src})) {
    autograd::record(op, {src}, out,
                     [segments, reduce, argument, shape = src.shape(), dtype = src.dtype()](
                         const Tensor& grad_out, const autograd::NeedsGrad&) {
                       Tensor grad_src = Tensor::empty(shape, dtype, grad_out.device());
                       if (reduce_keeps_argument(reduce)) {
                         SGNN_DISPATCH(grad_out.device(), segment_argument_backward, argument, grad_out, grad_src);
                       } else {
                         SGNN_DISPATCH(grad_out.device(), segment_reduce_backward, segments, reduce, grad_out,
                                       grad_src);
                       }
                       return std::vector<Tensor>{grad_src};
                     });
  }
  return out;
}

// Σ of src's rows over the segments of a sorted index, in edge order.
Tensor sum_sorted(const Tensor& src, const SortedIndex& sorted, int64_t num_outputs) {
  Tensor out = Tensor::empty(with_rows(src.shape(), num_outputs), src.dtype(), src.device());
  Tensor no_argument;
  SGNN_DISPATCH(src.device(), segment_reduce_forward, segments_of(sorted.offsets, src.size(0), sorted.order),
                ReduceKind::Sum, src, out, no_argument);
  return out;
}

// Σ of src's rows by index into num_outputs rows, not recorded: atomics for
// float32 on CUDA outside deterministic mode, else the sorted path.
Tensor scatter_sum(const Tensor& src, const Tensor& index, int64_t num_outputs, const char* op) {
#ifdef SGNN_WITH_CUDA
  if (src.device().is_cuda() && src.dtype() == DType::Float32 && !deterministic()) {
    Tensor out = Tensor::empty(with_rows(src.shape(), num_outputs), src.dtype(), src.device());
    scatter_sum_atomic(Cuda{}, src, index, out);
    return out;
  }
#endif
  return sum_sorted(src, sorted_index(index, num_outputs, op), num_outputs);
}

Tensor gather_rows_unrecorded(const Tensor& x, const Tensor& index) {
  Shape shape = x.shape();
  shape[0] = index.numel();
  Tensor out = Tensor::empty(shape, x.dtype(), x.device());
  SGNN_DISPATCH(x.device(), gather_rows_forward, x, index, out);
  return out;
}

}  // namespace

Tensor scatter_sum_in_order(const Tensor& src, const Tensor& index, int64_t num_outputs) {
  SGNN_CHECK(index.dtype() == DType::Int32 && index.numel() == src.size(0) && num_outputs < kInt32Rows,
             "scatter_sum_in_order: index int32 [", src.size(0), "] and fewer than 2^31 outputs, got ",
             dtype_name(index.dtype()), " ", shape_str(index.shape()), " and ", num_outputs);
  return sum_sorted(src, sorted_index_uncached(index, num_outputs), num_outputs);
}

Tensor gather_rows(const Tensor& x, const Tensor& index) {
  constexpr const char* kOp = "gather_rows";
  check_values(x, kOp, "x");
  check_beside(x, index, kOp, "index");
  check_index_values(index, x.size(0), kOp, "index", shape_text("x", x));
  Tensor out = gather_rows_unrecorded(x, index);
  if (autograd::needs_recording({x})) {
    autograd::record(kOp, {x}, out, [index, rows = x.size(0)](const Tensor& grad_out, const autograd::NeedsGrad&) {
      return std::vector<Tensor>{scatter_sum(grad_out, index, rows, "gather_rows backward")};
    });
  }
  return out;
}

Tensor scatter(const Tensor& src, const Tensor& index, int64_t num_outputs, ReduceKind reduce) {
  constexpr const char* kOp = "scatter";
  check_values(src, kOp, "src");
  check_beside(src, index, kOp, "index");
  SGNN_CHECK(num_outputs >= 0 && num_outputs < kInt32Rows, kOp, ": num_outputs must be in [0, 2^31), got ",
             num_outputs);
  SGNN_CHECK(index.dim() == 1 && index.numel() == src.size(0), kOp, ": argument 'index' must be [E] with E = ",
             src.size(0), " (the rows of src, shape ", shape_str(src.shape()), "), got shape ",
             shape_str(index.shape()));
  check_index_values(index, num_outputs, kOp, "index", "num_outputs = " + std::to_string(num_outputs));
  if (reduce != ReduceKind::Sum) {
    const SortedIndex sorted = sorted_index(index, num_outputs, kOp);
    return reduce_segments(kOp, segments_of(sorted.offsets, src.size(0), sorted.order), reduce, src);
  }
  Tensor out = scatter_sum(src, index, num_outputs, kOp);
  if (autograd::needs_recording({src})) {
    autograd::record(kOp, {src}, out, [index](const Tensor& grad_out, const autograd::NeedsGrad&) {
      return std::vector<Tensor>{gather_rows_unrecorded(grad_out, index)};
    });
  }
  return out;
}

Tensor segment_reduce(const Tensor& src, const Tensor& offsets, ReduceKind reduce) {
  constexpr const char* kOp = "segment_reduce";
  check_values(src, kOp, "src");
  check_beside(src, offsets, kOp, "offsets");
  check_offsets_values(offsets, src.size(0), kOp, "offsets", shape_text("the rows of src", src));
  SGNN_CHECK(offsets.numel() - 1 < kInt32Rows, kOp, ": ", offsets.numel() - 1,
             " segments; at most 2^31 - 1 are supported");
  return reduce_segments(kOp, segments_of(offsets, src.size(0)), reduce, src);
}

}  // namespace sgnn::ops
