#include <algorithm>
#include <type_traits>

#include "ops/cpu/elementwise_map.hpp"
#include "ops/elementwise_math.hpp"

namespace sgnn::ops {

namespace {

constexpr int64_t kRunChunk = 4096;  // elements of one task: a long single row still spreads over threads

// Calls run(out_begin, a_begin, b_begin, a_step, b_step, count) for every
// stretch of the innermost axis of `layout`, in parallel. Along that axis
// each operand moves by 1 or repeats (step 0), never both repeat.
template <typename Run>
void for_each_run(const BroadcastLayout& layout, Run&& run) {
  const int last = layout.axes - 1;
  const int64_t cols = layout.extents[last];
  if (layout.numel == 0 || cols == 0) return;
  const int64_t rows = layout.numel / cols;
  const int64_t chunks = (cols + kRunChunk - 1) / kRunChunk;
  const int64_t a_step = layout.strides[0][last] != 0 ? 1 : 0;
  const int64_t b_step = layout.strides[1][last] != 0 ? 1 : 0;
#pragma omp parallel for if (layout.numel > 65536)
  for (int64_t task = 0; task < rows * chunks; ++task) {
    int64_t row = task / chunks;
    const int64_t begin = (task % chunks) * kRunChunk;
    int64_t a_offset = begin * a_step;
    int64_t b_offset = begin * b_step;
    for (int k = last - 1; k >= 0; --k) {
      const int64_t coordinate = row % layout.extents[k];
      row /= layout.extents[k];
      a_offset += coordinate * layout.strides[0][k];
      b_offset += coordinate * layout.strides[1][k];
    }
    run((task / chunks) * cols + begin, a_offset, b_offset, a_step, b_step, std::min(kRunChunk, cols - begin));
  }
}

// f(i, j, k) for i < count with the two steps known at compile time, so the loop vectorises.
template <typename F>
void stepped_loop(int64_t a_step, int64_t b_step, int64_t count, F&& f) {
  auto loop = [&](auto as, auto bs) {
#pragma omp simd
    for (int64_t i = 0; i < count; ++i) f(i, i * decltype(as)::value, i * decltype(bs)::value);
  };
  using One = std::integral_constant<int64_t, 1>;
  using Zero = std::integral_constant<int64_t, 0>;
  if (a_step != 0 && b_step != 0) {
    loop(One{}, One{});
  } else if (a_step != 0) {
    loop(One{}, Zero{});
  } else {
    loop(Zero{}, One{});
  }
}

template <BinaryOp Op, typename A, typename B, typename Out>
void binary_loop(const BroadcastLayout& layout, const A* x, const B* y, Out* z) {
  for_each_run(layout, [&](int64_t out, int64_t a, int64_t b, int64_t a_step, int64_t b_step, int64_t count) {
    const A* xr = x + a;
    const B* yr = y + b;
    Out* zr = z + out;
    stepped_loop(a_step, b_step, count, [&](int64_t i, int64_t j, int64_t k) {
      zr[i] = store_as<Out>(binary_value(Op, load_float(xr[j]), load_float(yr[k])));
    });
  });
}

// Calls f(std::integral_constant<BinaryOp, op>{}): the op is a compile-time
// constant inside the loops.
template <typename F>
void visit_op(BinaryOp op, F&& f) {
  switch (op) {
    case BinaryOp::Add: return f(std::integral_constant<BinaryOp, BinaryOp::Add>{});
    case BinaryOp::Sub: return f(std::integral_constant<BinaryOp, BinaryOp::Sub>{});
    case BinaryOp::Mul: return f(std::integral_constant<BinaryOp, BinaryOp::Mul>{});
    case BinaryOp::Div: return f(std::integral_constant<BinaryOp, BinaryOp::Div>{});
    case BinaryOp::Maximum: return f(std::integral_constant<BinaryOp, BinaryOp::Maximum>{});
    case BinaryOp::Minimum: return f(std::integral_constant<BinaryOp, BinaryOp::Minimum>{});
  }
}

}  // namespace

void binary_forward(Cpu, BinaryOp op, const Tensor& a, const Tensor& b, const BroadcastLayout& layout, Tensor& out) {
  if (layout.numel == 0) return;
  visit_operand_types(a, b, out, [&](auto a_element, auto b_element, auto out_element) {
    using A = decltype(a_element);
    using B = decltype(b_element);
    using Out = decltype(out_element);
    visit_op(op, [&](auto constant) {
      binary_loop<decltype(constant)::value>(layout, a.data<A>(), b.data<B>(), out.data<Out>());
    });
  });
}

void binary_backward(Cpu, BinaryOp op, int operand, const Tensor& grad, const Tensor& a, const Tensor& b,
                     const BroadcastLayout& layout, Tensor& out) {
  if (layout.numel == 0) return;
  visit_operand_types(a, b, out, [&](auto a_element, auto b_element, auto out_element) {
    using A = decltype(a_element);
    using B = decltype(b_element);
    using Out = decltype(out_element);
    const A* x = a.data<A>();
    const B* y = b.data<B>();
    const A* g = grad.data<A>();  // the output, and so its gradient, has a's dtype
    Out* z = out.data<Out>();
    for_each_run(layout, [&](int64_t begin, int64_t a_offset, int64_t b_offset, int64_t a_step, int64_t b_step,
                             int64_t count) {
      stepped_loop(a_step, b_step, count, [&](int64_t i, int64_t j, int64_t k) {
        z[begin + i] = store_as<Out>(binary_gradient(op, operand, load_float(x[a_offset + j]),
                                                     load_float(y[b_offset + k]), load_float(g[begin + i])));
      });
    });
  });
}

void scale_forward(Cpu, const Tensor& x, float factor, Tensor& out) {
  map_elements(x, out, [=](float value) { return value * factor; });
}

}  // namespace sgnn::ops
