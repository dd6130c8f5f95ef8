#include "tests/support/dense_checks.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

#include "ops/activation.hpp"
#include "ops/cast.hpp"
#include "ops/elementwise.hpp"
#include "ops/math.hpp"
#include "ops/normalization.hpp"
#include "tests/support/testing.hpp"

namespace sgnn::testing {

namespace {

constexpr double u = kBf16UnitRoundoff;
constexpr double e = kFloatUnitRoundoff;
constexpr double kInfinity = std::numeric_limits<double>::infinity();

// Flat index into `shape` of the output coordinates `coordinates` (aligned at the last axis), an extent of 1 repeating.
int64_t operand_index(const Shape& shape, const Shape& coordinates) {
  const std::size_t missing = coordinates.size() - shape.size();
  int64_t index = 0;
  for (std::size_t axis = 0; axis < shape.size(); ++axis) {
    index = index * shape[axis] + (shape[axis] == 1 ? 0 : coordinates[missing + axis]);
  }
  return index;
}

// Host values of `shape` rounded to `dtype`, moved to `device`, as a leaf that requires gradients.
Tensor leaf(const Shape& shape, uint64_t seed, double low, double high, DType dtype, Device device) {
  Tensor values = ops::cast(random_tensor(shape, seed, low, high), dtype).to(device);
  values.set_requires_grad(true);
  return values;
}

double ratio(const Tensor& got, DType dtype, const std::vector<double>& reference, const std::vector<double>& bound) {
  if (!got.defined() || got.dtype() != dtype) return kInfinity;
  return worst_bound_ratio(got.to(Device::cpu()), reference, bound);
}

std::vector<double> relative_bound(const std::vector<double>& reference, double factor) {
  std::vector<double> bound(reference.size());
  for (std::size_t i = 0; i < reference.size(); ++i) bound[i] = factor * std::abs(reference[i]);
  return bound;
}

double roundoff(DType dtype) { return dtype == DType::BFloat16 ? u : 0.0; }

}  // namespace

Tensor nonzero_operand(const Shape& shape, uint64_t seed, DType dtype) {
  std::vector<float> values = random_tensor(shape, seed, -4.0, 4.0).to_vector<float>();
  for (float& v : values) {
    if (std::abs(v) < 0.25f) v = v < 0.0f ? -0.25f : 0.25f;
  }
  return ops::cast(Tensor::from_vector(values, shape), dtype);
}

BroadcastReference broadcast_reference(const Shape& a, const Shape& b) {
  BroadcastReference out;
  const std::size_t rank = std::max(a.size(), b.size());
  for (std::size_t axis = 0; axis < rank; ++axis) {
    const int64_t ea = axis + a.size() < rank ? 1 : a[axis + a.size() - rank];
    const int64_t eb = axis + b.size() < rank ? 1 : b[axis + b.size() - rank];
    out.shape.push_back(std::max(ea, eb) == 1 ? std::min(ea, eb) : std::max(ea, eb));
  }
  const int64_t count = shape_numel(out.shape);
  Shape coordinates(rank, 0);
  for (int64_t i = 0; i < count; ++i) {
    int64_t rest = i;
    for (std::size_t axis = rank; axis-- > 0;) {
      coordinates[axis] = rest % out.shape[axis];
      rest /= out.shape[axis];
    }
    out.a_index.push_back(operand_index(a, coordinates));
    out.b_index.push_back(operand_index(b, coordinates));
  }
  return out;
}

double binary_reference(ops::BinaryOp op, double a, double b) {
  switch (op) {
    case ops::BinaryOp::Add: return a + b;
    case ops::BinaryOp::Sub: return a - b;
    case ops::BinaryOp::Mul: return a * b;
    case ops::BinaryOp::Div: return a / b;
    case ops::BinaryOp::Maximum: return std::max(a, b);
    case ops::BinaryOp::Minimum: return std::min(a, b);
  }
  return 0.0;
}

double binary_partial(ops::BinaryOp op, int operand, double a, double b) {
  switch (op) {
    case ops::BinaryOp::Add: return 1.0;
    case ops::BinaryOp::Sub: return operand == 0 ? 1.0 : -1.0;
    case ops::BinaryOp::Mul: return operand == 0 ? b : a;
    case ops::BinaryOp::Div: return operand == 0 ? 1.0 / b : -a / (b * b);
    case ops::BinaryOp::Maximum:
    case ops::BinaryOp::Minimum: {
      if (a == b) return 0.5;
      const double selected = binary_reference(op, a, b);
      return (operand == 0 ? a : b) == selected ? 1.0 : 0.0;
    }
  }
  return 0.0;
}

Tensor apply_binary(ops::BinaryOp op, const Tensor& a, const Tensor& b) {
  switch (op) {
    case ops::BinaryOp::Add: return ops::add(a, b);
    case ops::BinaryOp::Sub: return ops::sub(a, b);
    case ops::BinaryOp::Mul: return ops::mul(a, b);
    case ops::BinaryOp::Div: return ops::div(a, b);
    case ops::BinaryOp::Maximum: return ops::maximum(a, b);
    case ops::BinaryOp::Minimum: return ops::minimum(a, b);
  }
  return {};
}

double math_reference(ops::MathFunction function, ops::MathParameters parameters, double x) {
  switch (function) {
    case ops::MathFunction::Exp: return std::exp(x);
    case ops::MathFunction::Log: return std::log(x);
    case ops::MathFunction::Sqrt: return std::sqrt(x);
    case ops::MathFunction::Pow: return std::pow(x, static_cast<double>(parameters.first));
    case ops::MathFunction::Clamp:
      return std::min(std::max(x, static_cast<double>(parameters.first)), static_cast<double>(parameters.second));
    case ops::MathFunction::Neg: return -x;
    case ops::MathFunction::Abs: return std::abs(x);
    case ops::MathFunction::Square: return x * x;
  }
  return 0.0;
}

double math_derivative(ops::MathFunction function, ops::MathParameters parameters, double x) {
  const double p = parameters.first;
  switch (function) {
    case ops::MathFunction::Exp: return std::exp(x);
    case ops::MathFunction::Log: return 1.0 / x;
    case ops::MathFunction::Sqrt: return 0.5 / std::sqrt(x);
    case ops::MathFunction::Pow: return p == 0.0 ? 0.0 : p * std::pow(x, p - 1.0);
    case ops::MathFunction::Clamp:
      return x >= static_cast<double>(parameters.first) && x <= static_cast<double>(parameters.second) ? 1.0 : 0.0;
    case ops::MathFunction::Neg: return -1.0;
    case ops::MathFunction::Abs: return x > 0.0 ? 1.0 : x < 0.0 ? -1.0 : 0.0;
    case ops::MathFunction::Square: return 2.0 * x;
  }
  return 0.0;
}

double activation_reference(ops::Activation kind, double x) {
  switch (kind) {
    case ops::Activation::Relu: return x > 0.0 ? x : 0.0;
    case ops::Activation::Elu: return x > 0.0 ? x : std::expm1(x);
    case ops::Activation::LeakyRelu: return x > 0.0 ? x : 0.01 * x;
    case ops::Activation::Sigmoid: return 1.0 / (1.0 + std::exp(-x));
    case ops::Activation::Tanh: return std::tanh(x);
  }
  return 0.0;
}

double activation_derivative(ops::Activation kind, double x) {
  switch (kind) {
    case ops::Activation::Relu: return x > 0.0 ? 1.0 : 0.0;
    case ops::Activation::Elu: return x > 0.0 ? 1.0 : std::exp(x);
    case ops::Activation::LeakyRelu: return x > 0.0 ? 1.0 : 0.01;
    case ops::Activation::Sigmoid: {
      const double s = 1.0 / (1.0 + std::exp(-x));
      return s * (1.0 - s);
    }
    case ops::Activation::Tanh: return 1.0 - std::tanh(x) * std::tanh(x);
  }
  return 0.0;
}

NormalizationReference normalization_reference(const std::vector<double>& x, int64_t rows, int64_t columns,
                                               bool layer, const std::vector<double>& running_mean,
                                               const std::vector<double>& running_var,
                                               const std::vector<double>& weight, const std::vector<double>& bias,
                                               const std::vector<double>& g, double eps) {
  NormalizationReference out;
  const int64_t groups = layer ? rows : columns;
  const int64_t size = layer ? columns : rows;
  out.group_size = size;
  const bool from_batch = layer || running_mean.empty();
  auto index = [&](int64_t group, int64_t k) { return static_cast<std::size_t>(layer ? group * columns + k : k * columns + group); };
  auto parameter = [&](const std::vector<double>& p, int64_t group, int64_t k, double fallback) {
    return p.empty() ? fallback : p[static_cast<std::size_t>(layer ? k : group)];
  };
  const std::size_t count = x.size();
  out.y.assign(count, 0.0);
  out.grad_x.assign(count, 0.0);
  out.y_magnitude.assign(count, 0.0);
  out.grad_x_magnitude.assign(count, 0.0);
  const std::size_t features = static_cast<std::size_t>(columns);
  out.grad_weight.assign(features, 0.0);
  out.grad_bias.assign(features, 0.0);
  out.grad_weight_magnitude.assign(features, 0.0);
  out.grad_bias_magnitude.assign(features, 0.0);
  for (int64_t group = 0; group < groups; ++group) {
    double mean = 0.0, variance = 0.0;
    if (from_batch) {
      for (int64_t k = 0; k < size; ++k) mean += x[index(group, k)];
      mean /= static_cast<double>(size);
      for (int64_t k = 0; k < size; ++k) variance += (x[index(group, k)] - mean) * (x[index(group, k)] - mean);
      out.unbiased_variance.push_back(size > 1 ? variance / static_cast<double>(size - 1) : 0.0);
      variance /= static_cast<double>(size);
    } else {
      mean = running_mean[static_cast<std::size_t>(group)];
      variance = running_var[static_cast<std::size_t>(group)];
      out.unbiased_variance.push_back(variance);
    }
    out.mean.push_back(mean);
    out.variance.push_back(variance);
    const double s = 1.0 / std::sqrt(variance + eps);
    // Means over the group of the upstream gradient as the input gradient sees it (w·g for layer norm).
    double mean_grad = 0.0, mean_product = 0.0, mean_abs_grad = 0.0, mean_abs_product = 0.0;
    for (int64_t k = 0; k < size; ++k) {
      const std::size_t i = index(group, k);
      const double xhat = (x[i] - mean) * s;
      const double grad = layer ? parameter(weight, group, k, 1.0) * g[i] : g[i];
      mean_grad += grad;
      mean_product += grad * xhat;
      mean_abs_grad += std::abs(grad);
      mean_abs_product += std::abs(grad * xhat);
    }
    const double inverse_size = size > 0 ? 1.0 / static_cast<double>(size) : 0.0;
    mean_grad *= inverse_size;
    mean_product *= inverse_size;
    mean_abs_grad *= inverse_size;
    mean_abs_product *= inverse_size;
    for (int64_t k = 0; k < size; ++k) {
      const std::size_t i = index(group, k);
      const double w = parameter(weight, group, k, 1.0);
      const double b = parameter(bias, group, k, 0.0);
      const double xhat = (x[i] - mean) * s;
      // How far an error of the statistics (relative, and of the mean against its magnitude) moves x̂.
      const double spread = 1.0 + std::abs(mean) * s + std::abs(xhat);
      out.y[i] = xhat * w + b;
      out.y_magnitude[i] = std::abs(w) * spread + std::abs(b);
      if (layer) {
        out.grad_x[i] = s * (w * g[i] - mean_grad - xhat * mean_product);
        out.grad_x_magnitude[i] =
            s * spread * (std::abs(w * g[i]) + mean_abs_grad + (1.0 + std::abs(xhat)) * mean_abs_product);
      } else if (from_batch) {
        out.grad_x[i] = w * s * (g[i] - mean_grad - xhat * mean_product);
        out.grad_x_magnitude[i] =
            std::abs(w) * s * spread * (std::abs(g[i]) + mean_abs_grad + (1.0 + std::abs(xhat)) * mean_abs_product);
      } else {
        out.grad_x[i] = w * s * g[i];
        out.grad_x_magnitude[i] = std::abs(w) * s * spread * std::abs(g[i]);
      }
      const std::size_t feature = static_cast<std::size_t>(layer ? k : group);
      out.grad_weight[feature] += g[i] * xhat;
      out.grad_weight_magnitude[feature] += std::abs(g[i]) * spread;
      out.grad_bias[feature] += g[i];
      out.grad_bias_magnitude[feature] += std::abs(g[i]);
    }
  }
  return out;
}

namespace bf16 {

double binary_error(Device device, ops::BinaryOp op, const Shape& a_shape, DType a_dtype, const Shape& b_shape,
                    DType b_dtype) {
  Tensor a = leaf(a_shape, 51, -4.0, 4.0, a_dtype, device);
  Tensor b = nonzero_operand(b_shape, 52, b_dtype).to(device);
  b.set_requires_grad(true);
  const Tensor out = apply_binary(op, a, b);
  const BroadcastReference map = broadcast_reference(a_shape, b_shape);
  const std::vector<double> ad = to_double(a.to(Device::cpu()));
  const std::vector<double> bd = to_double(b.to(Device::cpu()));
  std::vector<double> reference(map.a_index.size());
  for (std::size_t i = 0; i < reference.size(); ++i) {
    reference[i] = binary_reference(op, ad[static_cast<std::size_t>(map.a_index[i])],
                                    bd[static_cast<std::size_t>(map.b_index[i])]);
  }
  double worst = ratio(out, a_dtype, reference, relative_bound(reference, roundoff(a_dtype) + 4 * e));

  const Tensor upstream = ops::cast(random_tensor(map.shape, 54), a_dtype).to(device);
  out.backward(upstream);
  const std::vector<double> g = to_double(upstream.to(Device::cpu()));
  const Tensor* operands[2] = {&a, &b};
  const std::vector<int64_t>* indices[2] = {&map.a_index, &map.b_index};
  for (int operand = 0; operand < 2; ++operand) {
    const std::size_t size = static_cast<std::size_t>(operands[operand]->numel());
    std::vector<double> gradient(size, 0.0), magnitude(size, 0.0), count(size, 0.0);
    for (std::size_t i = 0; i < g.size(); ++i) {
      const auto j = static_cast<std::size_t>((*indices[operand])[i]);
      const double term = g[i] * binary_partial(op, operand, ad[static_cast<std::size_t>(map.a_index[i])],
                                                bd[static_cast<std::size_t>(map.b_index[i])]);
      gradient[j] += term;
      magnitude[j] += std::abs(term);
      count[j] += 1.0;
    }
    const DType dtype = operands[operand]->dtype();
    std::vector<double> bound(size);
    for (std::size_t j = 0; j < size; ++j) {
      bound[j] = roundoff(dtype) * std::abs(gradient[j]) + (count[j] + 4.0) * e * magnitude[j];
    }
    worst = std::max(worst, ratio(operands[operand]->grad(), dtype, gradient, bound));
  }
  return worst;
}

namespace {

// f'(x) written in terms of the value the op saves (x, or y for the functions that save their output).
double derivative_at_saved(ops::MathFunction function, ops::MathParameters parameters, double saved) {
  if (function == ops::MathFunction::Exp) return saved;
  if (function == ops::MathFunction::Sqrt) return 0.5 / saved;
  return math_derivative(function, parameters, saved);
}

double unary_error(Device device, double low, double high, const std::function<Tensor(const Tensor&)>& f,
                   const std::function<double(double)>& value, const std::function<double(double, double)>& derivative) {
  const Shape shape{37, 19};
  Tensor x = leaf(shape, 61, low, high, DType::BFloat16, device);
  const Tensor y = f(x);
  const std::vector<double> xd = to_double(x.to(Device::cpu()));
  const std::vector<double> yd = to_double(y.to(Device::cpu()));
  std::vector<double> reference(xd.size());
  for (std::size_t i = 0; i < xd.size(); ++i) reference[i] = value(xd[i]);
  double worst = ratio(y, DType::BFloat16, reference, relative_bound(reference, u + 16 * e));
  const Tensor upstream = ops::cast(random_tensor(shape, 62), DType::BFloat16).to(device);
  y.backward(upstream);
  const std::vector<double> g = to_double(upstream.to(Device::cpu()));
  std::vector<double> gradient(xd.size());
  for (std::size_t i = 0; i < xd.size(); ++i) gradient[i] = g[i] * derivative(xd[i], yd[i]);
  return std::max(worst, ratio(x.grad(), DType::BFloat16, gradient, relative_bound(gradient, u + 16 * e)));
}

}  // namespace

double math_error(Device device, ops::MathFunction function, ops::MathParameters parameters, double low, double high) {
  auto f = [&](const Tensor& x) {
    switch (function) {
      case ops::MathFunction::Exp: return ops::exp(x);
      case ops::MathFunction::Log: return ops::log(x);
      case ops::MathFunction::Sqrt: return ops::sqrt(x);
      case ops::MathFunction::Pow: return ops::pow(x, parameters.first);
      case ops::MathFunction::Clamp: return ops::clamp(x, parameters.first, parameters.second);
      case ops::MathFunction::Neg: return ops::neg(x);
      case ops::MathFunction::Abs: return ops::abs(x);
      case ops::MathFunction::Square: return ops::square(x);
    }
    return Tensor();
  };
  const bool saves_output = function == ops::MathFunction::Exp || function == ops::MathFunction::Sqrt;
  return unary_error(
      device, low, high, f, [&](double x) { return math_reference(function, parameters, x); },
      [&](double x, double y) { return derivative_at_saved(function, parameters, saves_output ? y : x); });
}

double activation_error(Device device, ops::Activation kind) {
  auto f = [&](const Tensor& x) { return kind == ops::Activation::Sigmoid ? ops::sigmoid(x) : ops::tanh(x); };
  return unary_error(
      device, -6.0, 6.0, f, [&](double x) { return activation_reference(kind, x); },
      [&](double, double y) { return kind == ops::Activation::Sigmoid ? y * (1.0 - y) : 1.0 - y * y; });
}

double normalization_error(Device device, bool layer, bool training, int64_t rows, int64_t columns) {
  // Columns offset by 2..6 against a spread of ±1: the mean is large against the deviation.
  std::vector<float> values = random_tensor({rows, columns}, 71).to_vector<float>();
  for (std::size_t i = 0; i < values.size(); ++i) values[i] += 2.0f + static_cast<float>(i % static_cast<std::size_t>(columns) % 5);
  Tensor x = ops::cast(Tensor::from_vector(values, {rows, columns}), DType::BFloat16).to(device);
  x.set_requires_grad(true);
  Tensor weight = leaf({columns}, 72, 0.5, 1.5, DType::Float32, device);
  Tensor bias = leaf({columns}, 73, -1.0, 1.0, DType::Float32, device);
  const Tensor running_mean0 = random_tensor({columns}, 74, 2.0, 6.0);
  const Tensor running_var0 = random_tensor({columns}, 75, 0.1, 0.5);
  const ops::RunningStatistics running{running_mean0.to(device).clone(), running_var0.to(device).clone(), Tensor()};
  const Tensor y = layer ? ops::layer_norm(x, weight, bias) : ops::batch_norm(x, weight, bias, running, training);
  const Tensor upstream = ops::cast(random_tensor({rows, columns}, 76), DType::BFloat16).to(device);
  y.backward(upstream);

  const std::vector<double> running_mean = layer || training ? std::vector<double>{} : to_double(running_mean0);
  const std::vector<double> running_var = layer || training ? std::vector<double>{} : to_double(running_var0);
  const NormalizationReference reference =
      normalization_reference(to_double(x.to(Device::cpu())), rows, columns, layer, running_mean, running_var,
                              to_double(weight.to(Device::cpu())), to_double(bias.to(Device::cpu())),
                              to_double(upstream.to(Device::cpu())), 1e-5);
  const double group = static_cast<double>(reference.group_size) + 16.0;
  auto bound = [&](const std::vector<double>& ref, const std::vector<double>& magnitude, double rounding, double n) {
    std::vector<double> out(ref.size());
    for (std::size_t i = 0; i < ref.size(); ++i) out[i] = rounding * std::abs(ref[i]) + n * e * magnitude[i];
    return out;
  };
  double worst = ratio(y, DType::BFloat16, reference.y, bound(reference.y, reference.y_magnitude, u, group));
  worst = std::max(worst, ratio(x.grad(), DType::BFloat16, reference.grad_x,
                                bound(reference.grad_x, reference.grad_x_magnitude, u, group)));
  const double summed = static_cast<double>(rows) + 16.0;
  worst = std::max(worst, ratio(weight.grad(), DType::Float32, reference.grad_weight,
                                bound(reference.grad_weight, reference.grad_weight_magnitude, 0.0, summed * group)));
  worst = std::max(worst, ratio(bias.grad(), DType::Float32, reference.grad_bias,
                                bound(reference.grad_bias, reference.grad_bias_magnitude, 0.0, summed)));
  if (!layer && training) {
    const std::vector<double> mean0 = to_double(running_mean0), var0 = to_double(running_var0);
    std::vector<double> expected_mean, expected_var, mean_bound, var_bound;
    for (std::size_t c = 0; c < mean0.size(); ++c) {
      expected_mean.push_back(0.9 * mean0[c] + 0.1 * reference.mean[c]);
      expected_var.push_back(0.9 * var0[c] + 0.1 * reference.unbiased_variance[c]);
      mean_bound.push_back(summed * e * (std::abs(expected_mean.back()) + std::abs(reference.mean[c])));
      var_bound.push_back(summed * e *
                          (expected_var.back() + std::abs(reference.mean[c]) * std::sqrt(reference.variance[c])));
    }
    worst = std::max(worst, ratio(running.mean, DType::Float32, expected_mean, mean_bound));
    worst = std::max(worst, ratio(running.variance, DType::Float32, expected_var, var_bound));
  }
  return worst;
}

}  // namespace bf16

}  // namespace sgnn::testing
