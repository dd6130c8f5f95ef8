#include "tests/support/bf16_spmm_checks.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <vector>

#include "core/bfloat16.hpp"
#include "ops/cast.hpp"
#include "ops/spmm.hpp"
#include "tests/support/sparse_graphs.hpp"
#include "tests/support/testing.hpp"

namespace sgnn::testing::bf16 {

namespace {

constexpr double u = kBf16UnitRoundoff;
constexpr double e = kFloatUnitRoundoff;
constexpr double kInfinity = std::numeric_limits<double>::infinity();

double ratio(const Tensor& got, DType dtype, const std::vector<double>& reference, const std::vector<double>& bound) {
  if (!got.defined() || got.dtype() != dtype) return kInfinity;
  return worst_bound_ratio(got.to(Device::cpu()), reference, bound);
}

Tensor leaf(Tensor values) {
  values.set_requires_grad(true);
  return values;
}

// Sign-magnitude bits as a line of integers: adjacent bfloat16s differ by 1, ±0 coincide.
int64_t ordered(uint16_t bits) {
  const int64_t magnitude = bits & 0x7FFF;
  return (bits & 0x8000) != 0 ? -magnitude : magnitude;
}

}  // namespace

double spmm_error(const Adjacency& adjacency, int64_t heads, int64_t features, SpmmWeights weights, uint64_t seed) {
  const Device device = adjacency.device();
  const int64_t nnz = adjacency.nnz();
  const int64_t rows = adjacency.num_rows();
  const int64_t cols = adjacency.num_cols();
  const Shape b_shape = heads == 1 ? Shape{cols, features} : Shape{cols, heads, features};
  const Shape c_shape = heads == 1 ? Shape{rows, features} : Shape{rows, heads, features};
  const Shape v_shape = heads == 1 ? Shape{nnz} : Shape{nnz, heads};
  const Tensor b = leaf(ops::cast(random_tensor(b_shape, seed), DType::BFloat16).to(device));
  Tensor v;
  if (weights == SpmmWeights::Float32) v = leaf(random_tensor(v_shape, seed + 1, 0.25, 2.0, device));
  if (weights == SpmmWeights::BFloat16) {
    v = leaf(ops::cast(random_tensor(v_shape, seed + 1, 0.25, 2.0), DType::BFloat16).to(device));
  }
  const Tensor c = ops::spmm(adjacency, v, b);
  const Tensor upstream = ops::cast(random_tensor(c_shape, seed + 2), DType::BFloat16).to(device);
  c.backward(upstream);

  const EdgeCoordinates edges = edge_coordinates(adjacency);
  const std::vector<double> bd = to_double(b.detach().to(Device::cpu()));
  const std::vector<double> g = to_double(upstream.to(Device::cpu()));
  const std::vector<double> vd = v.defined() ? to_double(v.detach().to(Device::cpu())) : std::vector<double>{};
  const auto width = static_cast<std::size_t>(heads * features);
  const auto f_count = static_cast<std::size_t>(features);
  std::vector<double> c_ref(static_cast<std::size_t>(rows) * width, 0.0), c_sum(c_ref.size(), 0.0);
  std::vector<double> db_ref(static_cast<std::size_t>(cols) * width, 0.0), db_sum(db_ref.size(), 0.0);
  std::vector<double> dv_ref(static_cast<std::size_t>(nnz * heads), 0.0), dv_bound(dv_ref.size(), 0.0);
  std::vector<double> row_entries(static_cast<std::size_t>(rows), 0.0), col_entries(static_cast<std::size_t>(cols), 0.0);
  for (std::size_t k = 0; k < edges.row.size(); ++k) {
    const auto i = static_cast<std::size_t>(edges.row[k]);
    const auto j = static_cast<std::size_t>(edges.column[k]);
    row_entries[i] += 1;
    col_entries[j] += 1;
    for (std::size_t h = 0; h < static_cast<std::size_t>(heads); ++h) {
      const double weight = vd.empty() ? 1.0 : vd[k * static_cast<std::size_t>(heads) + h];
      double dot = 0.0, dot_sum = 0.0;
      for (std::size_t f = 0; f < f_count; ++f) {
        const std::size_t at_i = i * width + h * f_count + f;
        const std::size_t at_j = j * width + h * f_count + f;
        c_ref[at_i] += weight * bd[at_j];
        c_sum[at_i] += std::abs(weight * bd[at_j]);
        db_ref[at_j] += weight * g[at_i];
        db_sum[at_j] += std::abs(weight * g[at_i]);
        dot += g[at_i] * bd[at_j];
        dot_sum += std::abs(g[at_i] * bd[at_j]);
      }
      const std::size_t at_e = k * static_cast<std::size_t>(heads) + h;
      dv_ref[at_e] = dot;
      dv_bound[at_e] = (static_cast<double>(features) + 2) * e * dot_sum +
                       (weights == SpmmWeights::BFloat16 ? u * std::abs(dot) : 0.0);
    }
  }
  std::vector<double> c_bound(c_ref.size()), db_bound(db_ref.size());
  for (std::size_t x = 0; x < c_ref.size(); ++x) {
    c_bound[x] = u * std::abs(c_ref[x]) + (row_entries[x / width] + 2) * e * c_sum[x];
  }
  for (std::size_t x = 0; x < db_ref.size(); ++x) {
    db_bound[x] = u * std::abs(db_ref[x]) + (col_entries[x / width] + 2) * e * db_sum[x];
  }
  double worst = std::max(ratio(c, DType::BFloat16, c_ref, c_bound), ratio(b.grad(), DType::BFloat16, db_ref, db_bound));
  if (v.defined()) worst = std::max(worst, ratio(v.grad(), v.dtype(), dv_ref, dv_bound));
  return worst;
}

double backend_gap(const Adjacency& adjacency, const Tensor& values, int64_t heads, int64_t features, const Tensor& b,
                   const Tensor& got, const Tensor& expected) {
  const int64_t width = heads * features;
  const Shape shape{adjacency.num_rows(), width};
  if (got.dtype() != DType::BFloat16 || expected.dtype() != DType::BFloat16 || got.shape() != shape ||
      expected.shape() != shape) {
    return kInfinity;
  }
  const EdgeCoordinates edges = edge_coordinates(adjacency);
  const std::vector<double> bd = to_double(b.to(Device::cpu()));
  const std::vector<double> vd = values.defined() ? to_double(values.to(Device::cpu())) : std::vector<double>{};
  const auto w = static_cast<std::size_t>(width);
  const auto f_count = static_cast<std::size_t>(features);
  std::vector<double> magnitude(static_cast<std::size_t>(adjacency.num_rows()) * w, 0.0);
  std::vector<double> entries(static_cast<std::size_t>(adjacency.num_rows()), 0.0);
  for (std::size_t k = 0; k < edges.row.size(); ++k) {
    const auto i = static_cast<std::size_t>(edges.row[k]);
    const auto j = static_cast<std::size_t>(edges.column[k]);
    entries[i] += 1;
    for (std::size_t x = 0; x < w; ++x) {
      const double weight = vd.empty() ? 1.0 : vd[k * static_cast<std::size_t>(heads) + x / f_count];
      magnitude[i * w + x] += std::abs(weight * bd[j * w + x]);
    }
  }
  const std::vector<double> g = to_double(got.to(Device::cpu()));
  const std::vector<double> r = to_double(expected.to(Device::cpu()));
  double worst = 0.0;
  for (std::size_t x = 0; x < g.size(); ++x) {
    if (std::isnan(g[x]) || std::isnan(r[x])) return kInfinity;
    const double larger = std::max(std::abs(g[x]), std::abs(r[x]));
    int exponent = 0;
    (void)std::frexp(larger, &exponent);  // larger = m · 2^exponent, m in [0.5, 1)
    const double ulp = larger == 0.0 ? 0.0 : std::ldexp(1.0, exponent - 8);
    const double allowed = ulp + 2 * (entries[x / w] + 2) * e * magnitude[x];
    const double gap = std::abs(g[x] - r[x]);
    if (gap > 0) worst = std::max(worst, allowed > 0 ? gap / allowed : kInfinity);
  }
  return worst;
}

int64_t max_ulp_distance(const Tensor& a, const Tensor& b) {
  constexpr int64_t kFar = std::numeric_limits<int64_t>::max();
  if (a.dtype() != DType::BFloat16 || b.dtype() != DType::BFloat16 || a.shape() != b.shape()) return kFar;
  const std::vector<bfloat16> x = a.to(Device::cpu()).to_vector<bfloat16>();
  const std::vector<bfloat16> y = b.to(Device::cpu()).to_vector<bfloat16>();
  int64_t worst = 0;
  for (std::size_t k = 0; k < x.size(); ++k) {
    if (std::isnan(x[k].to_float()) || std::isnan(y[k].to_float())) return kFar;
    worst = std::max(worst, std::abs(ordered(x[k].bits) - ordered(y[k].bits)));
  }
  return worst;
}

}  // namespace sgnn::testing::bf16
