// CPU reference of the generalized kernels: one output row per iteration
// (OpenMP over rows), the row's entries in CSR order, float arithmetic; a
// bfloat16 output is the float result rounded once.
#include <cmath>
#include <vector>

#include "core/bfloat16.hpp"
#include "ops/gspmm_backend.hpp"
#include "ops/message_math.hpp"
#include "ops/sparse_offsets.hpp"

namespace sgnn::ops {

namespace {

// Reads an operand's element as float (0 where the operand is undefined).
struct OperandReader {
  const float* f32 = nullptr;
  const bfloat16* bf16 = nullptr;
  FeatureLayout layout;

  explicit OperandReader(const Tensor& tensor, const FeatureLayout& operand_layout) : layout(operand_layout) {
    if (!tensor.defined()) return;
    if (tensor.dtype() == DType::BFloat16) bf16 = tensor.data<bfloat16>();
    else f32 = tensor.data<float>();
  }
  float operator()(int64_t item, int64_t head, int64_t feature) const {
    const int64_t at = item * layout.row_stride + head * layout.head_stride + feature * layout.feature_stride;
    if (f32) return f32[at];
    if (bf16) return bf16[at].to_float();
    return 0.0f;
  }
};

template <typename Out>
void gspmm_rows(const Csr& csr, const GspmmOperands& operands, Tensor& out, Tensor& argument) {
  const int32_t* columns = csr.indices.data<int32_t>();
  const int32_t* edge_map = operands.edge_map.defined() ? operands.edge_map.data<int32_t>() : nullptr;
  const OperandReader u(operands.u, operands.u_layout);
  const OperandReader e(operands.e, operands.e_layout);
  const int64_t heads = operands.heads;
  const int64_t features = operands.features;
  const int64_t width = heads * features;
  const bool extreme = reduce_keeps_argument(operands.reduce);
  const float sign = operands.reduce == ReduceKind::Min ? -1.0f : 1.0f;
  Out* output = out.data<Out>();
  int32_t* arguments = extreme ? argument.data<int32_t>() : nullptr;
  with_offsets(csr.indptr, [&](const auto* indptr) {
#pragma omp parallel
    {
      std::vector<float> accumulator(static_cast<size_t>(width));
      std::vector<int64_t> winner(static_cast<size_t>(width));
#pragma omp for schedule(dynamic, 64)
      for (int64_t row = 0; row < csr.num_rows; ++row) {
        std::fill(accumulator.begin(), accumulator.end(), 0.0f);
        std::fill(winner.begin(), winner.end(), int64_t{-1});
        for (int64_t k = indptr[row]; k < indptr[row + 1]; ++k) {
          const int64_t column = columns[k];
          const int64_t edge = edge_map ? int64_t{edge_map[k]} : k;
          for (int64_t h = 0; h < heads; ++h) {
            for (int64_t f = 0; f < features; ++f) {
              const float message = apply_message(operands.message, u(column, h, f), e(edge, h, f));
              const auto i = static_cast<size_t>(h * features + f);
              if (!extreme) {
                accumulator[i] += message;
              } else if (replaces(message, accumulator[i], winner[i] >= 0, sign)) {
                accumulator[i] = message;
                winner[i] = k;
              }
            }
          }
        }
        const int64_t length = indptr[row + 1] - indptr[row];
        const float scale = operands.reduce == ReduceKind::Mean && length > 0 ? 1.0f / static_cast<float>(length) : 1.0f;
        for (int64_t i = 0; i < width; ++i) {
          const auto j = static_cast<size_t>(i);
          output[row * width + i] = store_as<Out>(accumulator[j] * scale);
          if (extreme) arguments[row * width + i] = static_cast<int32_t>(winner[j]);
        }
      }
    }
  });
}

template <typename Out>
void gsddmm_entries(const Csr& csr, const GsddmmOperands& operands, Tensor& out) {
  const int32_t* columns = csr.indices.data<int32_t>();
  const OperandReader lhs(operands.lhs, operands.lhs_layout);
  const OperandReader rhs(operands.rhs, operands.rhs_layout);
  const int64_t heads = operands.heads;
  const int64_t features = operands.features;
  const bool dot = operands.op == BinaryKind::Dot;
  const int64_t width = dot ? heads : heads * features;
  Out* output = out.data<Out>();
  const auto item_of = [](Target target, int64_t row, int64_t column, int64_t entry) {
    return target == Target::U ? column : target == Target::V ? row : entry;
  };
  with_offsets(csr.indptr, [&](const auto* indptr) {
#pragma omp parallel for schedule(dynamic, 64)
    for (int64_t row = 0; row < csr.num_rows; ++row) {
      for (int64_t k = indptr[row]; k < indptr[row + 1]; ++k) {
        const int64_t l = item_of(operands.lhs_target, row, columns[k], k);
        const int64_t r = item_of(operands.rhs_target, row, columns[k], k);
        for (int64_t h = 0; h < heads; ++h) {
          float sum = 0.0f;
          for (int64_t f = 0; f < features; ++f) {
            const float value = apply_binary(operands.op, lhs(l, h, f), rhs(r, h, f));
            if (dot) sum += value;
            else output[k * width + h * features + f] = store_as<Out>(value);
          }
          if (dot) output[k * width + h] = store_as<Out>(sum);
        }
      }
    }
  });
}

}  // namespace

void gspmm_forward(Cpu, const Csr& csr, const GspmmOperands& operands, Tensor& out, Tensor& argument) {
  visit_floating(out.dtype(), [&](auto element) { gspmm_rows<decltype(element)>(csr, operands, out, argument); });
}

void gspmm_extreme_values(Cpu, const Csr& csr, const GspmmOperands& operands, Tensor& out) {
  Tensor argument = Tensor::empty(out.shape(), DType::Int32);
  gspmm_forward(Cpu{}, csr, operands, out, argument);
}

namespace {

// Output element i = (row, head, feature) with winner k: its gradient terms
// for u and e and where they go (flat positions), as both backward forms
// use them.
struct ExtremeTerm {
  int64_t u_at, e_at;
  float u_term, e_term;
};

struct ExtremeTerms {
  const int32_t* columns;
  const int32_t* edge_map;
  OperandReader u, e, gradient;
  MessageKind message;

  ExtremeTerms(const Csr& csr, const GspmmOperands& operands, const Tensor& grad_out)
      : columns(csr.indices.data<int32_t>()),
        edge_map(operands.edge_map.defined() ? operands.edge_map.data<int32_t>() : nullptr),
        u(operands.u, operands.u_layout),
        e(operands.e, operands.e_layout),
        gradient(grad_out, FeatureLayout{operands.heads * operands.features, operands.features, 1}),
        message(operands.message) {}

  ExtremeTerm operator()(int64_t row, int64_t head, int64_t feature, int32_t k) const {
    const int64_t column = columns[k];
    const int64_t edge = edge_map ? int64_t{edge_map[k]} : int64_t{k};
    const float g = gradient(row, head, feature);
    const float u_value = u(column, head, feature);
    const float e_value = e(edge, head, feature);
    const FeatureLayout& lu = u.layout;
    const FeatureLayout& le = e.layout;
    return {column * lu.row_stride + head * lu.head_stride + feature * lu.feature_stride,
            edge * le.row_stride + head * le.head_stride + feature * le.feature_stride,
            g * message_gradient_u(message, u_value, e_value), g * message_gradient_e(message, u_value, e_value)};
  }
};

}  // namespace

void gspmm_extreme_backward(Cpu, const Csr& csr, const GspmmOperands& operands, const Tensor& argument,
                            const Tensor& grad_out, Tensor& grad_u, Tensor& grad_e) {
  const ExtremeTerms terms(csr, operands, grad_out);
  const int32_t* arguments = argument.data<int32_t>();
  float* into_u = grad_u.defined() ? grad_u.data<float>() : nullptr;
  float* into_e = grad_e.defined() ? grad_e.data<float>() : nullptr;
  // Serial: outputs of different rows may route to one source row.
  for (int64_t row = 0; row < csr.num_rows; ++row) {
    for (int64_t h = 0; h < operands.heads; ++h) {
      for (int64_t f = 0; f < operands.features; ++f) {
        const int32_t k = arguments[(row * operands.heads + h) * operands.features + f];
        if (k < 0) continue;
        const ExtremeTerm term = terms(row, h, f, k);
        if (into_u) into_u[term.u_at] += term.u_term;
        if (into_e) into_e[term.e_at] += term.e_term;
      }
    }
  }
}

void gspmm_extreme_terms(Cpu, const Csr& csr, const GspmmOperands& operands, const Tensor& argument,
                         const Tensor& grad_out, ExtremeTermTensors& out) {
  const ExtremeTerms terms(csr, operands, grad_out);
  const int32_t* arguments = argument.data<int32_t>();
  const int64_t width = operands.heads * operands.features;
  float* u_term = out.u_term.defined() ? out.u_term.data<float>() : nullptr;
  int32_t* u_target = out.u_target.defined() ? out.u_target.data<int32_t>() : nullptr;
  float* e_term = out.e_term.defined() ? out.e_term.data<float>() : nullptr;
  int32_t* e_target = out.e_target.defined() ? out.e_target.data<int32_t>() : nullptr;
#pragma omp parallel for if (argument.numel() > 65536)
  for (int64_t i = 0; i < argument.numel(); ++i) {
    const int32_t k = arguments[i];
    const ExtremeTerm term = k < 0 ? ExtremeTerm{out.u_size, out.e_size, 0.0f, 0.0f}
                                   : terms(i / width, (i / operands.features) % operands.heads, i % operands.features, k);
    if (u_target) {
      u_term[i] = term.u_term;
      u_target[i] = static_cast<int32_t>(term.u_at);
    }
    if (e_target) {
      e_term[i] = term.e_term;
      e_target[i] = static_cast<int32_t>(term.e_at);
    }
  }
}

void scale_by_inverse_row_length(Cpu, const Csr& csr, Tensor& x) {
  const int64_t width = csr.num_rows == 0 ? 0 : x.numel() / csr.num_rows;
  visit_floating(x.dtype(), [&](auto element) {
    using T = decltype(element);
    T* data = x.data<T>();
    with_offsets(csr.indptr, [&](const auto* indptr) {
#pragma omp parallel for if (x.numel() > 65536)
      for (int64_t row = 0; row < csr.num_rows; ++row) {
        const int64_t length = indptr[row + 1] - indptr[row];
        if (length == 0) continue;
        const float scale = 1.0f / static_cast<float>(length);
        for (int64_t i = row * width; i < (row + 1) * width; ++i) data[i] = store_as<T>(load_float(data[i]) * scale);
      }
    });
  });
}

void gsddmm_forward(Cpu, const Csr& csr, const GsddmmOperands& operands, Tensor& out) {
  visit_floating(out.dtype(), [&](auto element) { gsddmm_entries<decltype(element)>(csr, operands, out); });
}

}  // namespace sgnn::ops
