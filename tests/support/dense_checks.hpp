// References and BF16 checks for the dense elementwise, math and
// normalisation ops, on any device: the CPU tier runs them on the host
// (tests/ops/), the GPU tier on a CUDA device (tests/gpu/), with the same
// bounds.
//
// References are float64 computations written independently of the ops
// (NumPy broadcasting by explicit indices, two-pass statistics). The BF16
// checks draw inputs on the host, round them to bfloat16 (so the reference
// sees exactly the values the op sees), run the op and its backward on
// `device`, and return the worst ratio of an element's error to its bound
// (<= 1: every element within its bound), with
//   u = 2^-8   bfloat16's unit roundoff: one rounding of a stored result,
//   e = 2^-24  float's unit roundoff: each float operation.
#pragma once

#include <cstdint>
#include <vector>

#include "core/tensor.hpp"
#include "ops/activation_backend.hpp"
#include "ops/elementwise_backend.hpp"
#include "ops/math_backend.hpp"

namespace sgnn::testing {

inline constexpr ops::BinaryOp kBinaryOps[] = {ops::BinaryOp::Add, ops::BinaryOp::Sub,     ops::BinaryOp::Mul,
                                               ops::BinaryOp::Div, ops::BinaryOp::Maximum, ops::BinaryOp::Minimum};

// Uniform float32 values in [−4, 4) with magnitude at least 0.25 (divisors;
// signs mixed), rounded to `dtype`, on the host.
Tensor nonzero_operand(const Shape& shape, uint64_t seed, DType dtype = DType::Float32);

// For each element of the broadcast output of shapes a and b (row-major),
// the flat index it reads in a and in b.
struct BroadcastReference {
  Shape shape;
  std::vector<int64_t> a_index, b_index;
};
BroadcastReference broadcast_reference(const Shape& a, const Shape& b);

// a op b in float64, and ∂(a op b)/∂a, ∂(a op b)/∂b (a tie of maximum or
// minimum gives each 1/2).
double binary_reference(ops::BinaryOp op, double a, double b);
double binary_partial(ops::BinaryOp op, int operand, double a, double b);

// The public op of each BinaryOp (ops::add for Add, ...).
Tensor apply_binary(ops::BinaryOp op, const Tensor& a, const Tensor& b);

// f(x) and f'(x) in float64, for the math functions and the activations.
double math_reference(ops::MathFunction function, ops::MathParameters parameters, double x);
double math_derivative(ops::MathFunction function, ops::MathParameters parameters, double x);
double activation_reference(ops::Activation kind, double x);
double activation_derivative(ops::Activation kind, double x);

// A normalisation in float64 on x [rows, columns] (row-major): batch norm
// (`layer` false: each column normalised over the rows) or layer norm (each
// row over its columns). Statistics from x (batch norm training, layer norm)
// or, for batch norm in evaluation, from `running_mean`/`running_var` (then
// non-empty); weight and bias empty for none. Gradients of Σ g ⊙ y. The
// magnitudes bound float evaluation: an element's float error is at most
// (group size + 16)·e times its magnitude (group: the values one statistic
// sums over), plus one rounding of a bfloat16 result.
struct NormalizationReference {
  std::vector<double> y, grad_x, grad_weight, grad_bias;
  std::vector<double> y_magnitude, grad_x_magnitude, grad_weight_magnitude, grad_bias_magnitude;
  std::vector<double> mean, variance, unbiased_variance;  // per group (biased variance normalises)
  int64_t group_size = 0;
};
NormalizationReference normalization_reference(const std::vector<double>& x, int64_t rows, int64_t columns,
                                               bool layer, const std::vector<double>& running_mean,
                                               const std::vector<double>& running_var,
                                               const std::vector<double>& weight, const std::vector<double>& bias,
                                               const std::vector<double>& g, double eps);

namespace bf16 {

// a op b with a of `a_dtype` and b of `b_dtype` (at least one bfloat16), any
// broadcast: the output (a's dtype) within u_out·|ref| + 4e·|ref|; each
// gradient (its input's dtype) within u_grad·|ref| + (count + 4)·e·Σ|terms|,
// count being the number of output elements summed into it (1 when not
// repeated), u_x = u for a bfloat16 result and 0 for float32.
double binary_error(Device device, ops::BinaryOp op, const Shape& a, DType a_dtype, const Shape& b, DType b_dtype);
// A math function on bfloat16 x [37, 19] drawn from [low, high), or sigmoid
// or tanh on [−6, 6): y within (u + 16e)·|ref| (a float evaluation of a few
// ulps, then one rounding); the gradient within (u + 16e)·|ref| of the
// float64 derivative at the bfloat16 value the op saves (x, or the output y
// for exp, sqrt, sigmoid and tanh), times a bfloat16 upstream gradient.
double math_error(Device device, ops::MathFunction function, ops::MathParameters parameters, double low, double high);
double activation_error(Device device, ops::Activation kind);
// batch_norm (training or evaluation) or layer_norm of bfloat16 x [rows,
// columns] (values offset per column, so the mean is large against the
// spread) with float32 weight and bias, and a bfloat16 upstream gradient:
// y and grad_x (bfloat16) within u·|ref| + (group + 16)·e·magnitude, the
// float32 weight and bias gradients within (rows + 16)·e·magnitude, with the
// magnitudes of NormalizationReference; batch norm's running mean within
// (rows + 16)·e·(|ref| + |mean|), its variance within (rows + 16)·e·(|ref| +
// |mean|·σ). A bfloat16 statistic or gradient of weight or bias breaks them
// by orders of magnitude.
double normalization_error(Device device, bool layer, bool training, int64_t rows, int64_t columns);

}  // namespace bf16

}  // namespace sgnn::testing
