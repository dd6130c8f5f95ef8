#include "tests/support/bf16_checks.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/autograd.hpp"
#include "ops/activation.hpp"
#include "ops/attention_softmax.hpp"
#include "ops/bias_activation.hpp"
#include "ops/cast.hpp"
#include "ops/edge_softmax.hpp"
#include "ops/elementwise.hpp"
#include "ops/loss.hpp"
#include "ops/matmul.hpp"
#include "ops/reduce.hpp"
#include "ops/sddmm.hpp"
#include "ops/softmax.hpp"
#include "tests/support/sparse_graphs.hpp"
#include "tests/support/testing.hpp"

namespace sgnn::testing::bf16 {

namespace {

constexpr double u = kBf16UnitRoundoff;
constexpr double e = kFloatUnitRoundoff;
constexpr double kInfinity = std::numeric_limits<double>::infinity();

// Host float32 values rounded to bfloat16, moved to `device`, as a leaf that requires gradients.
Tensor bf16_leaf(const Shape& shape, uint64_t seed, double low, double high, Device device) {
  Tensor values = ops::cast(random_tensor(shape, seed, low, high), DType::BFloat16).to(device);
  values.set_requires_grad(true);
  return values;
}

Tensor float_leaf(const Shape& shape, uint64_t seed, double low, double high, Device device) {
  Tensor values = random_tensor(shape, seed, low, high, device);
  values.set_requires_grad(true);
  return values;
}

Tensor bf16_values(const Shape& shape, uint64_t seed, Device device) {
  return ops::cast(random_tensor(shape, seed), DType::BFloat16).to(device);
}

// The worst ratio over several checks; a tensor of the wrong dtype counts as +inf.
double ratio(const Tensor& got, DType dtype, const std::vector<double>& reference, const std::vector<double>& bound) {
  if (!got.defined() || got.dtype() != dtype) return kInfinity;
  return worst_bound_ratio(got.to(Device::cpu()), reference, bound);
}

// C = A·B for row-major doubles (A [m,k], B [k,n]); `magnitude` gets Σ|A||B|.
std::vector<double> product(const std::vector<double>& a, const std::vector<double>& b, int64_t m, int64_t k, int64_t n,
                            std::vector<double>& magnitude) {
  std::vector<double> c(static_cast<std::size_t>(m * n), 0.0);
  magnitude.assign(c.size(), 0.0);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t p = 0; p < k; ++p) {
      const double left = a[static_cast<std::size_t>(i * k + p)];
      for (int64_t j = 0; j < n; ++j) {
        const double right = b[static_cast<std::size_t>(p * n + j)];
        c[static_cast<std::size_t>(i * n + j)] += left * right;
        magnitude[static_cast<std::size_t>(i * n + j)] += std::abs(left * right);
      }
    }
  }
  return c;
}

std::vector<double> transposed(const std::vector<double>& a, int64_t rows, int64_t cols) {
  std::vector<double> out(a.size());
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c)
      out[static_cast<std::size_t>(c * rows + r)] = a[static_cast<std::size_t>(r * cols + c)];
  }
  return out;
}

std::vector<double> scaled(const std::vector<double>& magnitude, double factor) {
  std::vector<double> out(magnitude.size());
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = factor * magnitude[i];
  return out;
}

std::vector<double> relative_bound(const std::vector<double>& reference, double factor) {
  std::vector<double> out(reference.size());
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = factor * std::abs(reference[i]);
  return out;
}

}  // namespace

double cast_error(Device device) {
  double worst = 0.0;
  Tensor x = float_leaf({4096}, 11, -50.0, 50.0, device);
  const Tensor y = ops::cast(x, DType::BFloat16);
  const std::vector<double> exact = to_double(x.to(Device::cpu()));
  worst = std::max(worst, ratio(y, DType::BFloat16, exact, relative_bound(exact, u)));
  // Back to float32: exactly the bfloat16 values.
  const Tensor back = ops::cast(y, DType::Float32);
  worst = std::max(worst, ratio(back, DType::Float32, to_double(y.to(Device::cpu())), std::vector<double>(4096, 0.0)));
  // Gradients: cast back, exact from bfloat16 to float32, rounded the other way.
  const Tensor upstream = bf16_values({4096}, 12, device);
  y.backward(upstream);
  worst = std::max(
      worst, ratio(x.grad(), DType::Float32, to_double(upstream.to(Device::cpu())), std::vector<double>(4096, 0.0)));
  Tensor narrow = bf16_leaf({4096}, 13, -3.0, 3.0, device);
  const Tensor wide = ops::cast(narrow, DType::Float32);
  const Tensor float_upstream = random_tensor({4096}, 14, -1.0, 1.0, device);
  wide.backward(float_upstream);
  const std::vector<double> expected = to_double(float_upstream.to(Device::cpu()));
  worst = std::max(worst, ratio(narrow.grad(), DType::BFloat16, expected, relative_bound(expected, u)));
  return worst;
}

double matmul_error(Device device, int64_t m, int64_t k, int64_t n) {
  Tensor a = bf16_leaf({m, k}, 21, -1.0, 1.0, device);
  Tensor b = bf16_leaf({k, n}, 22, -1.0, 1.0, device);
  const Tensor c = ops::matmul(a, b);
  const std::vector<double> ad = to_double(a.to(Device::cpu()));
  const std::vector<double> bd = to_double(b.to(Device::cpu()));
  std::vector<double> magnitude;
  const std::vector<double> reference = product(ad, bd, m, k, n, magnitude);
  double worst = ratio(c, DType::BFloat16, reference, scaled(magnitude, u + static_cast<double>(k + 2) * e));

  const Tensor upstream = bf16_values({m, n}, 23, device);
  c.backward(upstream);
  const std::vector<double> g = to_double(upstream.to(Device::cpu()));
  const std::vector<double> grad_a = product(g, transposed(bd, k, n), m, n, k, magnitude);  // dA = dC·Bᵀ
  worst =
      std::max(worst, ratio(a.grad(), DType::BFloat16, grad_a, scaled(magnitude, u + static_cast<double>(n + 2) * e)));
  const std::vector<double> grad_b = product(transposed(ad, m, k), g, k, m, n, magnitude);  // dB = Aᵀ·dC
  worst =
      std::max(worst, ratio(b.grad(), DType::BFloat16, grad_b, scaled(magnitude, u + static_cast<double>(m + 2) * e)));
  return worst;
}

double matmul_weight_error(Device device, int64_t rows, int64_t in, int64_t out) {
  Tensor x = bf16_leaf({rows, in}, 31, -1.0, 1.0, device);
  Tensor weight = float_leaf({in, out}, 32, -1.0, 1.0, device);
  const Tensor copy = ops::cast(weight.detach(), DType::BFloat16);
  const Tensor y = ops::matmul_weight(x, weight, copy);
  const std::vector<double> xd = to_double(x.to(Device::cpu()));
  const std::vector<double> wd = to_double(copy.to(Device::cpu()));
  std::vector<double> magnitude;
  const std::vector<double> reference = product(xd, wd, rows, in, out, magnitude);
  double worst = ratio(y, DType::BFloat16, reference, scaled(magnitude, u + static_cast<double>(in + 2) * e));

  const Tensor upstream = bf16_values({rows, out}, 33, device);
  y.backward(upstream);
  const std::vector<double> g = to_double(upstream.to(Device::cpu()));
  const std::vector<double> grad_x = product(g, transposed(wd, in, out), rows, out, in, magnitude);
  worst = std::max(worst,
                   ratio(x.grad(), DType::BFloat16, grad_x, scaled(magnitude, u + static_cast<double>(out + 2) * e)));
  // The weight gradient is float32 and never passes through bfloat16: float accumulation error only.
  const std::vector<double> grad_w = product(transposed(xd, rows, in), g, in, rows, out, magnitude);
  worst = std::max(worst,
                   ratio(weight.grad(), DType::Float32, grad_w, scaled(magnitude, static_cast<double>(rows + 2) * e)));
  return worst;
}

double elementwise_error(Device device, int64_t rows, int64_t n) {
  double worst = 0.0;
  const std::size_t count = static_cast<std::size_t>(rows * n);
  for (const bool multiply : {false, true}) {
    Tensor a = bf16_leaf({rows, n}, multiply ? 41 : 42, -4.0, 4.0, device);
    Tensor b = float_leaf({n}, multiply ? 43 : 44, -4.0, 4.0, device);
    const Tensor out = multiply ? ops::mul(a, b) : ops::add(a, b);
    const std::vector<double> ad = to_double(a.to(Device::cpu()));
    const std::vector<double> bd = to_double(b.to(Device::cpu()));
    std::vector<double> reference(count);
    for (std::size_t i = 0; i < count; ++i) {
      const double other = bd[i % static_cast<std::size_t>(n)];
      reference[i] = multiply ? ad[i] * other : ad[i] + other;
    }
    worst = std::max(worst, ratio(out, DType::BFloat16, reference, relative_bound(reference, u + 2 * e)));

    const Tensor upstream = bf16_values({rows, n}, multiply ? 45 : 46, device);
    out.backward(upstream);
    const std::vector<double> g = to_double(upstream.to(Device::cpu()));
    std::vector<double> grad_a(count);
    std::vector<double> grad_b(static_cast<std::size_t>(n), 0.0);
    std::vector<double> grad_b_magnitude(static_cast<std::size_t>(n), 0.0);
    for (std::size_t i = 0; i < count; ++i) {
      const std::size_t column = i % static_cast<std::size_t>(n);
      grad_a[i] = multiply ? g[i] * bd[column] : g[i];
      const double term = multiply ? g[i] * ad[i] : g[i];
      grad_b[column] += term;
      grad_b_magnitude[column] += std::abs(term);
    }
    worst = std::max(worst, ratio(a.grad(), DType::BFloat16, grad_a, relative_bound(grad_a, u + 2 * e)));
    worst = std::max(
        worst, ratio(b.grad(), DType::Float32, grad_b, scaled(grad_b_magnitude, static_cast<double>(rows + 2) * e)));
  }
  return worst;
}

double activation_error(Device device) {
  double worst = 0.0;
  constexpr double kAlpha = 1.0;
  constexpr double kSlope = 0.2;
  for (int kind = 0; kind < 3; ++kind) {
    Tensor x = bf16_leaf({5000}, 51 + static_cast<uint64_t>(kind), -4.0, 4.0, device);
    const Tensor y = kind == 0   ? ops::relu(x)
                     : kind == 1 ? ops::elu(x, static_cast<float>(kAlpha))
                                 : ops::leaky_relu(x, static_cast<float>(kSlope));
    const std::vector<double> xd = to_double(x.to(Device::cpu()));
    std::vector<double> reference(xd.size());
    for (std::size_t i = 0; i < xd.size(); ++i) {
      const double v = xd[i];
      reference[i] = v > 0.0 ? v : kind == 0 ? 0.0 : kind == 1 ? kAlpha * std::expm1(v) : kSlope * v;
    }
    worst = std::max(worst, ratio(y, DType::BFloat16, reference, relative_bound(reference, u + 8 * e)));
    const Tensor upstream = bf16_values({5000}, 54 + static_cast<uint64_t>(kind), device);
    y.backward(upstream);
    // From the stored (bfloat16) output, as the op computes it.
    const std::vector<double> yd = to_double(y.to(Device::cpu()));
    const std::vector<double> g = to_double(upstream.to(Device::cpu()));
    std::vector<double> gradient(xd.size());
    for (std::size_t i = 0; i < xd.size(); ++i) {
      gradient[i] = yd[i] > 0.0 ? g[i] : kind == 0 ? 0.0 : kind == 1 ? g[i] * (yd[i] + kAlpha) : g[i] * kSlope;
    }
    worst = std::max(worst, ratio(x.grad(), DType::BFloat16, gradient, relative_bound(gradient, u + 8 * e)));
  }
  return worst;
}

double bias_activation_error(Device device, int64_t rows, int64_t n) {
  double worst = 0.0;
  const std::size_t count = static_cast<std::size_t>(rows * n);
  for (const ops::FusedActivation activation : {ops::FusedActivation::Relu, ops::FusedActivation::Elu}) {
    const bool elu = activation == ops::FusedActivation::Elu;
    Tensor x = bf16_leaf({rows, n}, elu ? 61 : 62, -3.0, 3.0, device);
    Tensor bias = float_leaf({n}, elu ? 63 : 64, -1.0, 1.0, device);
    const Tensor y = ops::bias_activation(x, bias, activation, 1.0f);
    const std::vector<double> xd = to_double(x.to(Device::cpu()));
    const std::vector<double> bd = to_double(bias.to(Device::cpu()));
    std::vector<double> reference(count);
    for (std::size_t i = 0; i < count; ++i) {
      const double z = xd[i] + bd[i % static_cast<std::size_t>(n)];
      reference[i] = z > 0.0 ? z : elu ? std::expm1(z) : 0.0;
    }
    worst = std::max(worst, ratio(y, DType::BFloat16, reference, relative_bound(reference, u + 8 * e)));

    const Tensor upstream = bf16_values({rows, n}, elu ? 65 : 66, device);
    y.backward(upstream);
    const std::vector<double> yd = to_double(y.to(Device::cpu()));
    const std::vector<double> g = to_double(upstream.to(Device::cpu()));
    std::vector<double> grad_x(count);
    std::vector<double> grad_bias(static_cast<std::size_t>(n), 0.0);
    std::vector<double> magnitude(static_cast<std::size_t>(n), 0.0);
    for (std::size_t i = 0; i < count; ++i) {
      grad_x[i] = yd[i] > 0.0 ? g[i] : elu ? g[i] * (yd[i] + 1.0) : 0.0;
      grad_bias[i % static_cast<std::size_t>(n)] += grad_x[i];
      magnitude[i % static_cast<std::size_t>(n)] += std::abs(grad_x[i]);
    }
    worst = std::max(worst, ratio(x.grad(), DType::BFloat16, grad_x, relative_bound(grad_x, u + 8 * e)));
    worst = std::max(
        worst, ratio(bias.grad(), DType::Float32, grad_bias, scaled(magnitude, static_cast<double>(rows + 2) * e)));
  }
  return worst;
}

double softmax_error(Device device, int64_t rows, int64_t cols) {
  double worst = 0.0;
  constexpr double kMagnitude = 6.0;
  const double accumulation = static_cast<double>(cols + 8) * e;
  for (const bool log : {false, true}) {
    Tensor x = bf16_leaf({rows, cols}, log ? 71 : 72, -kMagnitude, kMagnitude, device);
    const Tensor y = log ? ops::log_softmax(x) : ops::softmax(x);
    const std::vector<double> xd = to_double(x.to(Device::cpu()));
    std::vector<double> reference(xd.size());
    std::vector<double> bound(xd.size());
    for (int64_t r = 0; r < rows; ++r) {
      const double* row = xd.data() + r * cols;
      const double maximum = *std::max_element(row, row + cols);
      double total = 0.0;
      for (int64_t c = 0; c < cols; ++c) total += std::exp(row[c] - maximum);
      for (int64_t c = 0; c < cols; ++c) {
        const std::size_t i = static_cast<std::size_t>(r * cols + c);
        reference[i] = log ? row[c] - maximum - std::log(total) : std::exp(row[c] - maximum) / total;
        bound[i] = log ? u * std::abs(reference[i]) + accumulation * (std::abs(reference[i]) + 2 * kMagnitude)
                       : (u + accumulation * (1 + 2 * kMagnitude)) * std::abs(reference[i]);
      }
    }
    worst = std::max(worst, ratio(y, DType::BFloat16, reference, bound));

    const Tensor upstream = bf16_values({rows, cols}, log ? 73 : 74, device);
    y.backward(upstream);
    const std::vector<double> yd = to_double(y.to(Device::cpu()));
    const std::vector<double> g = to_double(upstream.to(Device::cpu()));
    std::vector<double> gradient(xd.size());
    for (int64_t r = 0; r < rows; ++r) {
      double dot = 0.0;
      double dot_magnitude = 0.0;
      for (int64_t c = 0; c < cols; ++c) {
        const std::size_t i = static_cast<std::size_t>(r * cols + c);
        dot += log ? g[i] : g[i] * yd[i];
        dot_magnitude += std::abs(log ? g[i] : g[i] * yd[i]);
      }
      for (int64_t c = 0; c < cols; ++c) {
        const std::size_t i = static_cast<std::size_t>(r * cols + c);
        gradient[i] = log ? g[i] - std::exp(yd[i]) * dot : yd[i] * (g[i] - dot);
        const double scale = log ? std::abs(g[i]) + std::exp(yd[i]) * dot_magnitude * (1 + std::abs(yd[i]))
                                 : std::abs(yd[i]) * (std::abs(g[i]) + dot_magnitude);
        bound[i] = u * std::abs(gradient[i]) + accumulation * scale;
      }
    }
    worst = std::max(worst, ratio(x.grad(), DType::BFloat16, gradient, bound));
  }
  return worst;
}

double loss_error(Device device, int64_t rows, int64_t classes) {
  constexpr double kMagnitude = 5.0;
  Tensor logits = bf16_leaf({rows, classes}, 81, -kMagnitude, kMagnitude, device);
  const Tensor labels = random_indices({rows}, 82, 0, classes, DType::Int32);
  const Tensor index = random_indices({rows / 2 + 1}, 83, 0, rows, DType::Int32);  // repeats likely
  const Tensor loss = ops::cross_entropy(logits, labels.to(device), index.to(device));
  if (loss.dtype() != DType::Float32) return kInfinity;
  const std::vector<double> x = to_double(logits.to(Device::cpu()));
  const std::vector<int32_t> label = labels.to_vector<int32_t>();
  const std::vector<int32_t> selected = index.to_vector<int32_t>();
  const auto count = static_cast<double>(selected.size());
  std::vector<double> lse(static_cast<std::size_t>(rows));
  for (int64_t r = 0; r < rows; ++r) {
    const double* row = x.data() + r * classes;
    const double maximum = *std::max_element(row, row + classes);
    double total = 0.0;
    for (int64_t c = 0; c < classes; ++c) total += std::exp(row[c] - maximum);
    lse[static_cast<std::size_t>(r)] = maximum + std::log(total);
  }
  double reference = 0.0;
  std::vector<double> multiplicity(static_cast<std::size_t>(rows), 0.0);
  for (const int32_t r : selected) {
    const auto row = static_cast<std::size_t>(r);
    reference += (lse[row] - x[row * static_cast<std::size_t>(classes) + static_cast<std::size_t>(label[row])]) / count;
    multiplicity[row] += 1.0;
  }
  const double loss_bound =
      static_cast<double>(classes + static_cast<int64_t>(selected.size()) + 8) * e * (std::abs(reference) + kMagnitude);
  double worst = ratio(loss, DType::Float32, {reference}, {loss_bound});

  loss.backward();
  std::vector<double> gradient(x.size());
  std::vector<double> bound(x.size());
  for (int64_t r = 0; r < rows; ++r) {
    const double weight = multiplicity[static_cast<std::size_t>(r)] / count;
    for (int64_t c = 0; c < classes; ++c) {
      const std::size_t i = static_cast<std::size_t>(r * classes + c);
      const double probability = std::exp(x[i] - lse[static_cast<std::size_t>(r)]);
      gradient[i] = weight * probability - (c == label[static_cast<std::size_t>(r)] ? weight : 0.0);
      bound[i] = u * std::abs(gradient[i]) +
                 static_cast<double>(classes + 8) * e * (1 + 2 * kMagnitude) * (std::abs(gradient[i]) + weight);
    }
  }
  worst = std::max(worst, ratio(logits.grad(), DType::BFloat16, gradient, bound));
  return worst;
}

double reduce_error(Device device, int64_t outer, int64_t extent, int64_t inner) {
  double worst = 0.0;
  for (const bool average : {false, true}) {
    Tensor x = bf16_leaf({outer, extent, inner}, average ? 91 : 92, -2.0, 2.0, device);
    const Tensor y = average ? ops::mean(x, 1) : ops::sum(x, 1);
    const std::vector<double> xd = to_double(x.to(Device::cpu()));
    const std::size_t outputs = static_cast<std::size_t>(outer * inner);
    std::vector<double> reference(outputs, 0.0);
    std::vector<double> magnitude(outputs, 0.0);
    const double factor = average ? 1.0 / static_cast<double>(extent) : 1.0;
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t k = 0; k < extent; ++k) {
        for (int64_t i = 0; i < inner; ++i) {
          const double v = xd[static_cast<std::size_t>((o * extent + k) * inner + i)];
          reference[static_cast<std::size_t>(o * inner + i)] += factor * v;
          magnitude[static_cast<std::size_t>(o * inner + i)] += factor * std::abs(v);
        }
      }
    }
    std::vector<double> bound(outputs);
    for (std::size_t i = 0; i < outputs; ++i) {
      bound[i] = u * std::abs(reference[i]) + static_cast<double>(extent + 3) * e * magnitude[i];
    }
    worst = std::max(worst, ratio(y, DType::BFloat16, reference, bound));

    const Tensor upstream = bf16_values({outer, inner}, average ? 93 : 94, device);
    y.backward(upstream);
    const std::vector<double> g = to_double(upstream.to(Device::cpu()));
    std::vector<double> gradient(xd.size());
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t k = 0; k < extent; ++k) {
        for (int64_t i = 0; i < inner; ++i) {
          gradient[static_cast<std::size_t>((o * extent + k) * inner + i)] =
              factor * g[static_cast<std::size_t>(o * inner + i)];
        }
      }
    }
    worst = std::max(worst, ratio(x.grad(), DType::BFloat16, gradient, relative_bound(gradient, u + 2 * e)));
  }
  return worst;
}

double edge_softmax_error(const Adjacency& adjacency, int64_t heads) {
  constexpr double kMagnitude = 5.0;
  const Device device = adjacency.device();
  const int64_t nnz = adjacency.nnz();
  Tensor scores = bf16_leaf({nnz, heads}, 101, -kMagnitude, kMagnitude, device);
  const Tensor out = ops::edge_softmax(adjacency, scores);
  const EdgeCoordinates edges = edge_coordinates(adjacency);
  const std::vector<double> s = to_double(scores.to(Device::cpu()));
  const Tensor upstream = bf16_values({nnz, heads}, 102, device);
  out.backward(upstream);
  const std::vector<double> a = to_double(out.to(Device::cpu()));
  const std::vector<double> g = to_double(upstream.to(Device::cpu()));
  std::vector<double> reference(s.size());
  std::vector<double> bound(s.size());
  std::vector<double> gradient(s.size());
  std::vector<double> gradient_bound(s.size());
  const auto heads_count = static_cast<std::size_t>(heads);
  std::size_t begin = 0;
  while (begin < edges.row.size()) {
    std::size_t end = begin;
    while (end < edges.row.size() && edges.row[end] == edges.row[begin]) ++end;
    const double accumulation = static_cast<double>(end - begin + 8) * 4 * e;
    for (std::size_t h = 0; h < heads_count; ++h) {
      const auto at = [&](std::size_t entry) { return entry * heads_count + h; };
      double maximum = -kInfinity;
      for (std::size_t k = begin; k < end; ++k) maximum = std::max(maximum, s[at(k)]);
      double sum = 0.0;
      for (std::size_t k = begin; k < end; ++k) sum += std::exp(s[at(k)] - maximum);
      double weighted = 0.0;
      double weighted_magnitude = 0.0;
      for (std::size_t k = begin; k < end; ++k) {
        weighted += a[at(k)] * g[at(k)];
        weighted_magnitude += std::abs(a[at(k)] * g[at(k)]);
      }
      for (std::size_t k = begin; k < end; ++k) {
        reference[at(k)] = std::exp(s[at(k)] - maximum) / sum;
        bound[at(k)] = (u + accumulation * (1 + 2 * kMagnitude)) * reference[at(k)];
        // From the stored (bfloat16) output, as the op computes it.
        gradient[at(k)] = a[at(k)] * (g[at(k)] - weighted);
        gradient_bound[at(k)] = u * std::abs(gradient[at(k)]) +
                                accumulation * std::abs(a[at(k)]) * (std::abs(g[at(k)]) + weighted_magnitude);
      }
    }
    begin = end;
  }
  return std::max(ratio(out, DType::BFloat16, reference, bound),
                  ratio(scores.grad(), DType::BFloat16, gradient, gradient_bound));
}

namespace {

// The row and column entry counts of A, per entry's row / column lookups.
struct LineCounts {
  std::vector<double> row;
  std::vector<double> column;
};
LineCounts line_counts(const Adjacency& adjacency, const EdgeCoordinates& edges) {
  LineCounts counts{std::vector<double>(static_cast<std::size_t>(adjacency.num_rows()), 0.0),
                    std::vector<double>(static_cast<std::size_t>(adjacency.num_cols()), 0.0)};
  for (std::size_t k = 0; k < edges.row.size(); ++k) {
    counts.row[static_cast<std::size_t>(edges.row[k])] += 1.0;
    counts.column[static_cast<std::size_t>(edges.column[k])] += 1.0;
  }
  return counts;
}

// Per element of a [lines, width] gradient: u·|ref| + (count(line) + 3)·e·magnitude.
std::vector<double> gradient_bound(const std::vector<double>& reference, const std::vector<double>& magnitude,
                                   const std::vector<double>& counts, std::size_t width) {
  std::vector<double> bound(reference.size());
  for (std::size_t i = 0; i < bound.size(); ++i) {
    bound[i] = u * std::abs(reference[i]) + (counts[i / width] + 3) * e * magnitude[i];
  }
  return bound;
}

}  // namespace

double sddmm_dot_error(const Adjacency& adjacency, int64_t heads, int64_t features) {
  const Device device = adjacency.device();
  const Shape x_shape = heads == 1 ? Shape{adjacency.num_rows(), features}
                                   : Shape{adjacency.num_rows(), heads, features};
  const Shape y_shape = heads == 1 ? Shape{adjacency.num_cols(), features}
                                   : Shape{adjacency.num_cols(), heads, features};
  Tensor x = bf16_leaf(x_shape, 201, -2.0, 2.0, device);
  Tensor y = bf16_leaf(y_shape, 202, -2.0, 2.0, device);
  const Tensor out = ops::sddmm_dot(adjacency, x, y);
  const Tensor upstream = random_tensor(out.shape(), 203, -1.0, 1.0, device);
  out.backward(upstream);
  const EdgeCoordinates edges = edge_coordinates(adjacency);
  const LineCounts counts = line_counts(adjacency, edges);
  const std::vector<double> a = to_double(x.to(Device::cpu()));
  const std::vector<double> b = to_double(y.to(Device::cpu()));
  const std::vector<double> g = to_double(upstream.to(Device::cpu()));
  const auto h_count = static_cast<std::size_t>(heads);
  const auto f_count = static_cast<std::size_t>(features);
  const std::size_t width = h_count * f_count;
  std::vector<double> reference(g.size(), 0.0), bound(g.size(), 0.0);
  std::vector<double> dx(a.size(), 0.0), dx_magnitude(a.size(), 0.0);
  std::vector<double> dy(b.size(), 0.0), dy_magnitude(b.size(), 0.0);
  for (std::size_t k = 0; k < edges.row.size(); ++k) {
    const std::size_t row = static_cast<std::size_t>(edges.row[k]) * width;
    const std::size_t col = static_cast<std::size_t>(edges.column[k]) * width;
    for (std::size_t h = 0; h < h_count; ++h) {
      double dot = 0.0;
      double magnitude = 0.0;
      const double weight = g[k * h_count + h];
      for (std::size_t f = h * f_count; f < (h + 1) * f_count; ++f) {
        dot += a[row + f] * b[col + f];
        magnitude += std::abs(a[row + f] * b[col + f]);
        dx[row + f] += weight * b[col + f];
        dx_magnitude[row + f] += std::abs(weight * b[col + f]);
        dy[col + f] += weight * a[row + f];
        dy_magnitude[col + f] += std::abs(weight * a[row + f]);
      }
      reference[k * h_count + h] = dot;
      bound[k * h_count + h] = static_cast<double>(features + 2) * e * magnitude;
    }
  }
  return std::max({ratio(out, DType::Float32, reference, bound),
                   ratio(x.grad(), DType::BFloat16, dx, gradient_bound(dx, dx_magnitude, counts.row, width)),
                   ratio(y.grad(), DType::BFloat16, dy, gradient_bound(dy, dy_magnitude, counts.column, width))});
}

double sddmm_add_error(const Adjacency& adjacency, int64_t heads) {
  const Device device = adjacency.device();
  Tensor x = bf16_leaf({adjacency.num_rows(), heads}, 211, -3.0, 3.0, device);
  Tensor y = bf16_leaf({adjacency.num_cols(), heads}, 212, -3.0, 3.0, device);
  const Tensor out = ops::sddmm_add(adjacency, x, y);
  const Tensor upstream = random_tensor(out.shape(), 213, -1.0, 1.0, device);
  out.backward(upstream);
  const EdgeCoordinates edges = edge_coordinates(adjacency);
  const LineCounts counts = line_counts(adjacency, edges);
  const std::vector<double> a = to_double(x.to(Device::cpu()));
  const std::vector<double> b = to_double(y.to(Device::cpu()));
  const std::vector<double> g = to_double(upstream.to(Device::cpu()));
  const auto h_count = static_cast<std::size_t>(heads);
  std::vector<double> reference(g.size());
  std::vector<double> dx(a.size(), 0.0), dx_magnitude(a.size(), 0.0);
  std::vector<double> dy(b.size(), 0.0), dy_magnitude(b.size(), 0.0);
  for (std::size_t k = 0; k < edges.row.size(); ++k) {
    const std::size_t row = static_cast<std::size_t>(edges.row[k]) * h_count;
    const std::size_t col = static_cast<std::size_t>(edges.column[k]) * h_count;
    for (std::size_t h = 0; h < h_count; ++h) {
      const double weight = g[k * h_count + h];
      reference[k * h_count + h] = a[row + h] + b[col + h];
      dx[row + h] += weight;
      dx_magnitude[row + h] += std::abs(weight);
      dy[col + h] += weight;
      dy_magnitude[col + h] += std::abs(weight);
    }
  }
  return std::max({ratio(out, DType::Float32, reference, relative_bound(reference, e)),
                   ratio(x.grad(), DType::BFloat16, dx, gradient_bound(dx, dx_magnitude, counts.row, h_count)),
                   ratio(y.grad(), DType::BFloat16, dy, gradient_bound(dy, dy_magnitude, counts.column, h_count))});
}


double attention_softmax_error(const Adjacency& adjacency, int64_t heads) {
  constexpr double kMagnitude = 2.5;  // |x|, |y| ≤ 2.5: scores within ±5
  constexpr float kSlope = 0.2f;
  const Device device = adjacency.device();
  Tensor x = bf16_leaf({adjacency.num_rows(), heads}, 221, -kMagnitude, kMagnitude, device);
  Tensor y = bf16_leaf({adjacency.num_cols(), heads}, 222, -kMagnitude, kMagnitude, device);
  const Tensor out = ops::attention_softmax(adjacency, x, y, kSlope);
  const Tensor upstream = bf16_values(out.shape(), 223, device);
  out.backward(upstream);
  const EdgeCoordinates edges = edge_coordinates(adjacency);
  const LineCounts counts = line_counts(adjacency, edges);
  const std::vector<double> xd = to_double(x.to(Device::cpu()));
  const std::vector<double> yd = to_double(y.to(Device::cpu()));
  const std::vector<double> a = to_double(out.to(Device::cpu()));
  const std::vector<double> g = to_double(upstream.to(Device::cpu()));
  const auto h_count = static_cast<std::size_t>(heads);
  std::vector<double> reference(g.size()), bound(g.size());
  // The sums' gradient per entry, and per node the sum of its entries', their
  // magnitudes and the slack each entry's stored (bfloat16) value may carry.
  std::vector<double> dx(xd.size(), 0.0), dx_magnitude(xd.size(), 0.0), dx_slack(xd.size(), 0.0);
  std::vector<double> dy(yd.size(), 0.0), dy_magnitude(yd.size(), 0.0), dy_slack(yd.size(), 0.0);
  std::size_t begin = 0;
  while (begin < edges.row.size()) {
    std::size_t end = begin;
    while (end < edges.row.size() && edges.row[end] == edges.row[begin]) ++end;
    const double accumulation = static_cast<double>(end - begin + 8) * 4 * e;
    const auto row = static_cast<std::size_t>(edges.row[begin]);
    for (std::size_t h = 0; h < h_count; ++h) {
      const auto at = [&](std::size_t entry) { return entry * h_count + h; };
      const auto sum_of = [&](std::size_t entry) {
        return xd[row * h_count + h] + yd[static_cast<std::size_t>(edges.column[entry]) * h_count + h];
      };
      const auto slope_of = [&](std::size_t entry) { return sum_of(entry) > 0 ? 1.0 : double{kSlope}; };
      double maximum = -kInfinity;
      for (std::size_t k = begin; k < end; ++k) maximum = std::max(maximum, slope_of(k) * sum_of(k));
      double total = 0.0;
      double weighted = 0.0;
      double weighted_magnitude = 0.0;
      for (std::size_t k = begin; k < end; ++k) {
        total += std::exp(slope_of(k) * sum_of(k) - maximum);
        weighted += a[at(k)] * g[at(k)];  // from the stored (bfloat16) attention, as the op computes it
        weighted_magnitude += std::abs(a[at(k)] * g[at(k)]);
      }
      for (std::size_t k = begin; k < end; ++k) {
        reference[at(k)] = std::exp(slope_of(k) * sum_of(k) - maximum) / total;
        bound[at(k)] = (u + accumulation * (1 + 4 * kMagnitude)) * reference[at(k)];
        const double gradient = slope_of(k) * a[at(k)] * (g[at(k)] - weighted);
        // Float arithmetic, then one rounding to bfloat16 where the op stores it.
        const double slack = (1 + u) * (accumulation * std::abs(a[at(k)]) * (std::abs(g[at(k)]) + weighted_magnitude) +
                                         (u + e) * std::abs(gradient));
        const std::size_t column = static_cast<std::size_t>(edges.column[k]) * h_count + h;
        dx[row * h_count + h] += gradient;
        dx_magnitude[row * h_count + h] += std::abs(gradient);
        dx_slack[row * h_count + h] += slack;
        dy[column] += gradient;
        dy_magnitude[column] += std::abs(gradient);
        dy_slack[column] += slack;
      }
    }
    begin = end;
  }
  // A node's gradient: the float sum of its entries' stored values, rounded once.
  const auto node_bound = [&](const std::vector<double>& sum, const std::vector<double>& magnitude,
                              const std::vector<double>& slack, const std::vector<double>& line_counts) {
    std::vector<double> per_node(sum.size());
    for (std::size_t i = 0; i < sum.size(); ++i) {
      per_node[i] = u * std::abs(sum[i]) + (1 + 2 * u) * slack[i] +
                    (line_counts[i / h_count] + 3) * e * (magnitude[i] + slack[i]);
    }
    return per_node;
  };
  return std::max({ratio(out, DType::BFloat16, reference, bound),
                   ratio(x.grad(), DType::BFloat16, dx, node_bound(dx, dx_magnitude, dx_slack, counts.row)),
                   ratio(y.grad(), DType::BFloat16, dy, node_bound(dy, dy_magnitude, dy_slack, counts.column))});
}

}  // namespace sgnn::testing::bf16
