#include "ops/gspmm.hpp"

#include <limits>
#include <utility>

#include "core/autograd.hpp"
#include "ops/cast.hpp"
#include "ops/determinism.hpp"
#include "ops/elementwise.hpp"
#include "ops/gather_scatter.hpp"
#include "ops/gsddmm.hpp"
#include "ops/message_runners.hpp"
#include "ops/ordered_scatter.hpp"
#include "ops/shape.hpp"
#include "ops/sparse_checks.hpp"
#include "ops/sparse_runners.hpp"

namespace sgnn::ops {

namespace {

constexpr const char* kOp = "gspmm";

BroadcastShape check_gspmm(const Adjacency& adjacency, MessageKind message, ReduceKind reduce, const Tensor& u,
                           const Tensor& e) {
  check_adjacency(adjacency, kOp);
  const std::string_view name = message_kind_name(message);
  if (message_uses_u(message)) {
    SGNN_CHECK(u.defined(), kOp, ": message ", name, " needs u [n_cols, ...], got an undefined tensor");
    check_dense_operand(u, adjacency, adjacency.num_cols(), kOp, "u");
  } else {
    SGNN_CHECK(!u.defined(), kOp, ": message ", name, " reads no u, got u ", shape_str(u.shape()));
  }
  if (message_uses_e(message)) {
    SGNN_CHECK(e.defined(), kOp, ": message ", name, " needs e [nnz, ...], got an undefined tensor");
    check_dense_operand(e, adjacency, adjacency.nnz(), kOp, "e");
  } else {
    SGNN_CHECK(!e.defined(), kOp, ": message ", name, " reads no e, got e ", shape_str(e.shape()));
  }
  SGNN_CHECK(!reduce_keeps_argument(reduce) || adjacency.nnz() < (int64_t{1} << 31), kOp, ": ",
             reduce_kind_name(reduce), " needs fewer than 2^31 entries (its argument is int32), the graph has ",
             adjacency.nnz());
  return broadcast_features(u, e, kOp, "u", "e");
}

// Whether the call has the tuned SpMM's form: u as b [n, heads, features]
// (heads 1: [n, width]) and e as its per-entry or per-head weights (Sum and
// Mean run the tuned SpMM there, Max and Min its max-for-sum twin).
struct TunedForm {
  bool applies = false;
  int64_t heads = 1;
  int64_t features = 1;
};

TunedForm tuned_form(MessageKind message, const Tensor& u, const BroadcastShape& shape) {
  const int64_t width = shape.heads * shape.features;
  if (message == MessageKind::CopyU) return {true, 1, width};
  if (message != MessageKind::UMulE) return {};
  const FeatureLayout& lu = shape.lhs;
  const FeatureLayout& le = shape.rhs;
  const bool u_whole = lu.row_stride == width && u.dim() >= 2;  // u carries every output element
  if (!u_whole || le.feature_stride != 0) return {};
  if (le.head_stride == 0) return {true, 1, width};              // one weight per entry
  if (u.dim() == 3) return {true, shape.heads, shape.features};  // one weight per head
  return {};
}

Tensor gspmm_tuned(const Adjacency& adjacency, MessageKind message, ReduceKind reduce, const Tensor& u,
                   const Tensor& e, const TunedForm& form, const Shape& out_shape) {
  const bool average = reduce == ReduceKind::Mean;
  const int64_t rows = adjacency.num_rows();
  const Shape b_shape = form.heads == 1 ? Shape{u.size(0), form.features} : Shape{u.size(0), form.heads, form.features};
  const Tensor values = message == MessageKind::UMulE
                            ? e.view(form.heads == 1 ? Shape{e.size(0)} : Shape{e.size(0), form.heads})
                            : Tensor();
  Tensor out = detail::run_spmm(adjacency.csr, values, form.heads, form.features, u.view(b_shape), out_shape, nullptr,
                                average);
  if (autograd::needs_recording({u, e})) {
    check_transpose(adjacency, kOp, values.defined());
    autograd::record(
        kOp, {u, e}, out,
        [adjacency, form, average, rows, b_shape, saved_u = u.detach(), saved_e = e.detach(), values = values.detach()](
            const Tensor& grad_out, const autograd::NeedsGrad& needs) {
          Tensor gradient = grad_out.view(form.heads == 1 ? Shape{rows, form.features}
                                                          : Shape{rows, form.heads, form.features});
          if (average) {
            gradient = gradient.clone();
            SGNN_DISPATCH(gradient.device(), scale_by_inverse_row_length, adjacency.csr, gradient);
          }
          std::vector<Tensor> grads(2);
          if (needs[0]) {
            grads[0] = values.defined()
                           ? detail::run_spmm_transposed(adjacency, values, form.heads, form.features, gradient,
                                                         saved_u.shape())
                           : detail::run_spmm(adjacency.transpose, Tensor(), 1, form.features, gradient,
                                              saved_u.shape());
          }
          if (needs[1]) {
            grads[1] = detail::run_sddmm_dot(adjacency, form.heads, form.features, gradient, saved_u.view(b_shape),
                                             values.shape(), saved_e.dtype())
                           .view(saved_e.shape());
          }
          return grads;
        });
  }
  return out;
}

// The gradient of e [nnz, ...] for Sum/Mean messages, from the (mean-scaled) output gradient.
Tensor edge_gradient(const Adjacency& adjacency, const GspmmOperands& operands, const Tensor& gradient) {
  const Tensor& u = operands.u;
  const Tensor& e = operands.e;
  const MessageKind message = operands.message;
  Tensor grad;
  if (message == MessageKind::CopyE || message == MessageKind::UAddE || message == MessageKind::USubE) {
    // Linear in the output gradient: reduce its broadcast axes first, then carry rows onto edges.
    const Shape edge_shape = detail::with_rows(adjacency.num_rows(), detail::feature_shape_of(e));
    grad = edge_rows(adjacency, detail::sum_to_shape(gradient, edge_shape), Target::V);
    if (message == MessageKind::USubE) grad = scale(grad, -1.0f);
  } else {
    // Σ over e's broadcast axes of gradient[row] · u[col]. Where e is one
    // weight per head or per entry and u carries every output element, that
    // is the tuned SDDMM's dot product per head.
    const int64_t width = operands.heads * operands.features;
    const bool dot = operands.e_layout.feature_stride == 0 && operands.u_layout.row_stride == width && u.dim() >= 2;
    grad = dot ? gsddmm(adjacency, BinaryKind::Dot, gradient, u, Target::V, Target::U)
               : gsddmm(adjacency, BinaryKind::Mul, gradient, u, Target::V, Target::U);
    if (dot && u.dim() == 3) grad = grad.view({adjacency.nnz(), operands.heads, 1});
    grad = detail::sum_to_shape(grad.dim() == 1 ? grad.view({adjacency.nnz(), 1}) : grad, e.shape());
    if (message == MessageKind::UDivE) {  // ∂(u / e)/∂e = −u / e²
      grad = gsddmm(adjacency, BinaryKind::Div, gsddmm(adjacency, BinaryKind::Div, grad, e, Target::E, Target::E), e,
                    Target::E, Target::E);
      grad = scale(grad, -1.0f);
    }
  }
  return cast(grad.view(e.shape()), e.dtype());
}

// Max/Min's gradients for u and e (float32, zeroed where nothing wins). By
// default the backend adds each output element's terms at its winner with
// atomics on CUDA, in a varying order where several outputs share a winner.
// Under ops::set_deterministic(true) the backend writes the terms and their
// positions instead (gspmm_extreme_terms) and scatter_sum_in_order adds them
// in the outputs' order: the same bits every run, for a sort of rows · H · F
// keys and 8 bytes an output element per operand.
std::pair<Tensor, Tensor> extreme_gradients(const Csr& csr, const GspmmOperands& operands, const Tensor& winners,
                                            const Tensor& grad_out, const autograd::NeedsGrad& needs) {
  const Tensor& u = operands.u;
  const Tensor& e = operands.e;
  const Device device = grad_out.device();
  if (!deterministic()) {
    Tensor grad_u = needs[0] ? Tensor::zeros(u.shape(), DType::Float32, device) : Tensor();
    Tensor grad_e = needs[1] ? Tensor::zeros(e.shape(), DType::Float32, device) : Tensor();
    SGNN_DISPATCH(device, gspmm_extreme_backward, csr, operands, winners, grad_out, grad_u, grad_e);
    return {grad_u, grad_e};
  }
  ExtremeTermTensors terms;
  const int64_t count = winners.numel();
  const auto allocate = [&](bool needed, const Tensor& operand, Tensor& term, Tensor& target, int64_t& size) {
    if (!needed) return;
    size = operand.numel();
    SGNN_CHECK(count < std::numeric_limits<int32_t>::max() && size < std::numeric_limits<int32_t>::max() - 1, kOp,
               ": the deterministic Max/Min backward sorts its terms in 32 bits: fewer than 2^31 - 1 outputs and "
               "gradient elements; got ", count, " outputs and an operand of ", size, " elements");
    term = Tensor::empty({count}, DType::Float32, device);
    target = Tensor::empty({count}, DType::Int32, device);
  };
  allocate(needs[0], u, terms.u_term, terms.u_target, terms.u_size);
  allocate(needs[1], e, terms.e_term, terms.e_target, terms.e_size);
  SGNN_DISPATCH(device, gspmm_extreme_terms, csr, operands, winners, grad_out, terms);
  // One slot past the end takes the outputs without a winner (a term of 0).
  const auto sum_at = [](const Tensor& term, const Tensor& target, int64_t size, const Tensor& operand) {
    if (!term.defined()) return Tensor();
    return scatter_sum_in_order(term, target, size + 1).narrow_rows(0, size).view(operand.shape());
  };
  return {sum_at(terms.u_term, terms.u_target, terms.u_size, u), sum_at(terms.e_term, terms.e_target, terms.e_size, e)};
}

// `values_only`: Max/Min in the tuned SpMM's form, whose kernel keeps no
// winners (gspmm_extreme_values); the backward finds them with the
// generalized kernel, over the same entries.
Tensor gspmm_general(const Adjacency& adjacency, MessageKind message, ReduceKind reduce, const Tensor& u,
                     const Tensor& e, const BroadcastShape& shape, bool values_only) {
  GspmmOperands operands;
  operands.message = message;
  operands.reduce = reduce;
  operands.heads = shape.heads;
  operands.features = shape.features;
  operands.u = u.detach();  // the backward's copies hold no autograd state
  operands.u_layout = shape.lhs;
  operands.e = e.detach();
  operands.e_layout = shape.rhs;
  const DType dtype = u.defined() ? u.dtype() : e.dtype();
  Tensor argument;
  Tensor out;
  if (values_only) {
    out = Tensor::empty(detail::with_rows(adjacency.num_rows(), shape.feature_shape), dtype, adjacency.device());
    if (out.numel() > 0) SGNN_DISPATCH(out.device(), gspmm_extreme_values, adjacency.csr, operands, out);
  } else {
    out = detail::run_gspmm(adjacency.csr, operands, shape.feature_shape, dtype, argument);
  }
  if (!autograd::needs_recording({u, e})) return out;
  check_transpose(adjacency, kOp, message_uses_u(message) && message_uses_e(message));
  autograd::record(kOp, {u, e}, out,
                   [adjacency, operands, argument, out_shape = out.shape()](const Tensor& grad_out,
                                                                            const autograd::NeedsGrad& needs) {
                     std::vector<Tensor> grads(2);
                     const Tensor& saved_u = operands.u;
                     const Tensor& saved_e = operands.e;
                     if (reduce_keeps_argument(operands.reduce)) {
                       Tensor winners = argument;
                       if (!winners.defined()) {
                         (void)detail::run_gspmm(adjacency.csr, operands, detail::feature_shape_of(grad_out),
                                                 grad_out.dtype(), winners);
                       }
                       const auto [grad_u, grad_e] =
                           extreme_gradients(adjacency.csr, operands, winners, grad_out, needs);
                       if (needs[0]) grads[0] = cast(grad_u, saved_u.dtype());
                       if (needs[1]) grads[1] = cast(grad_e, saved_e.dtype());
                       return grads;
                     }
                     Tensor gradient = grad_out;
                     if (operands.reduce == ReduceKind::Mean) {
                       gradient = grad_out.clone();
                       SGNN_DISPATCH(gradient.device(), scale_by_inverse_row_length, adjacency.csr, gradient);
                     }
                     if (needs[0]) {
                       Tensor grad_u;
                       if (operands.message == MessageKind::UMulE || operands.message == MessageKind::UDivE) {
                         // Σ over the edges out of each source of gradient[row] · ∂m/∂u, on Aᵀ.
                         grad_u = detail::gspmm_on_transpose(adjacency, operands.message, gradient, saved_e);
                       } else {
                         const int64_t width = operands.heads * operands.features;
                         grad_u = detail::run_spmm(adjacency.transpose, Tensor(), 1, width,
                                                   gradient.view({gradient.size(0), width}),
                                                   detail::with_rows(saved_u.size(0), detail::feature_shape_of(gradient)));
                       }
                       grads[0] = cast(detail::sum_to_shape(grad_u, saved_u.shape()), saved_u.dtype());
                     }
                     if (needs[1]) grads[1] = edge_gradient(adjacency, operands, gradient);
                     return grads;
                   });
  return out;
}

}  // namespace

Tensor gspmm(const Adjacency& adjacency, MessageKind message, ReduceKind reduce, const Tensor& u, const Tensor& e) {
  const BroadcastShape shape = check_gspmm(adjacency, message, reduce, u, e);
  const Shape out_shape = detail::with_rows(adjacency.num_rows(), shape.feature_shape);
  // copy_e is the segment reduction of e over A's rows (PyG's segment_csr).
  if (message == MessageKind::CopyE) return segment_reduce(e, adjacency.csr.indptr, reduce);
  const TunedForm form = tuned_form(message, u, shape);
  const bool summed = reduce == ReduceKind::Sum || reduce == ReduceKind::Mean;
  if (form.applies && summed) return gspmm_tuned(adjacency, message, reduce, u, e, form, out_shape);
  return gspmm_general(adjacency, message, reduce, u, e, shape, form.applies);
}

Tensor gspmm(const Adjacency& adjacency, std::string_view message, std::string_view reduce, const Tensor& u,
             const Tensor& e) {
  return gspmm(adjacency, parse_message_kind(message, kOp), parse_reduce_kind(reduce, kOp), u, e);
}

}  // namespace sgnn::ops
