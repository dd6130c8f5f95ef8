#include "tests/support/message_references.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "ops/cast.hpp"
#include "tests/support/sparse_graphs.hpp"
#include "tests/support/testing.hpp"

namespace sgnn::testing {

namespace {

// (heads, features) of a shape past its first axis: () -> (1, 1), (D) -> (1, D), (H, D).
std::pair<int64_t, int64_t> extents(const Shape& shape) {
  if (shape.size() <= 1) return {1, 1};
  if (shape.size() == 2) return {1, shape[1]};
  return {shape[1], shape[2]};
}

double message_of(ops::MessageKind kind, double u, double e) {
  switch (kind) {
    case ops::MessageKind::CopyU: return u;
    case ops::MessageKind::CopyE: return e;
    case ops::MessageKind::UMulE: return u * e;
    case ops::MessageKind::UAddE: return u + e;
    case ops::MessageKind::USubE: return u - e;
    case ops::MessageKind::UDivE: return u / e;
  }
  return 0.0;
}

double binary_of(ops::BinaryKind kind, double l, double r) {
  switch (kind) {
    case ops::BinaryKind::Add: return l + r;
    case ops::BinaryKind::Sub: return l - r;
    case ops::BinaryKind::Div: return l / r;
    case ops::BinaryKind::CopyLhs: return l;
    case ops::BinaryKind::CopyRhs: return r;
    default: return l * r;
  }
}

}  // namespace

double HostValues::at(int64_t item, int64_t head, int64_t feature) const {
  const auto [heads, features] = extents(shape);
  const int64_t h = heads == 1 ? 0 : head;
  const int64_t f = features == 1 ? 0 : feature;
  return data[static_cast<std::size_t>((item * heads + h) * features + f)];
}

HostValues host_values(const Tensor& tensor) {
  if (!tensor.defined()) return {};
  return {to_double(tensor.to(Device::cpu())), tensor.shape()};
}

ReferenceResult reference_gspmm(const Adjacency& adjacency, ops::MessageKind message, ops::ReduceKind reduce,
                                const HostValues& u, const HostValues& e) {
  const auto [u_heads, u_features] = u.present() ? extents(u.shape) : std::pair<int64_t, int64_t>{1, 1};
  const auto [e_heads, e_features] = e.present() ? extents(e.shape) : std::pair<int64_t, int64_t>{1, 1};
  ReferenceResult result;
  result.heads = std::max(u_heads, e_heads);
  result.features = std::max(u_features, e_features);
  const int64_t width = result.heads * result.features;
  const auto rows = static_cast<std::size_t>(adjacency.num_rows());
  result.values.assign(rows * static_cast<std::size_t>(width), 0.0);
  result.winners.assign(result.values.size(), -1);
  std::vector<int64_t> counts(rows, 0);
  const EdgeCoordinates edges = edge_coordinates(adjacency);
  const double sign = reduce == ops::ReduceKind::Min ? -1.0 : 1.0;
  for (std::size_t k = 0; k < edges.row.size(); ++k) {
    const auto row = static_cast<std::size_t>(edges.row[k]);
    ++counts[row];
    for (int64_t h = 0; h < result.heads; ++h) {
      for (int64_t f = 0; f < result.features; ++f) {
        const double value = message_of(message, u.present() ? u.at(edges.column[k], h, f) : 0.0,
                                        e.present() ? e.at(static_cast<int64_t>(k), h, f) : 0.0);
        const std::size_t i = row * static_cast<std::size_t>(width) + static_cast<std::size_t>(h * result.features + f);
        if (reduce == ops::ReduceKind::Sum || reduce == ops::ReduceKind::Mean) {
          result.values[i] += value;
        } else if (result.winners[i] < 0 || sign * value > sign * result.values[i]) {
          result.values[i] = value;
          result.winners[i] = static_cast<int64_t>(k);
        }
      }
    }
  }
  if (reduce == ops::ReduceKind::Mean) {
    for (std::size_t i = 0; i < result.values.size(); ++i) {
      const int64_t count = counts[i / static_cast<std::size_t>(width)];
      if (count > 0) result.values[i] /= static_cast<double>(count);
    }
  }
  return result;
}

std::vector<double> reference_gsddmm(const Adjacency& adjacency, ops::BinaryKind op, const HostValues& lhs,
                                     ops::Target lhs_target, const HostValues& rhs, ops::Target rhs_target) {
  const auto [l_heads, l_features] = lhs.present() ? extents(lhs.shape) : std::pair<int64_t, int64_t>{1, 1};
  const auto [r_heads, r_features] = rhs.present() ? extents(rhs.shape) : std::pair<int64_t, int64_t>{1, 1};
  const int64_t heads = std::max(l_heads, r_heads);
  const int64_t features = std::max(l_features, r_features);
  const bool dot = op == ops::BinaryKind::Dot;
  const EdgeCoordinates edges = edge_coordinates(adjacency);
  std::vector<double> out;
  const auto item = [&](ops::Target target, std::size_t k) {
    return target == ops::Target::U ? edges.column[k] : target == ops::Target::V ? edges.row[k] : static_cast<int64_t>(k);
  };
  for (std::size_t k = 0; k < edges.row.size(); ++k) {
    for (int64_t h = 0; h < heads; ++h) {
      double sum = 0.0;
      for (int64_t f = 0; f < features; ++f) {
        const double value = binary_of(op, lhs.present() ? lhs.at(item(lhs_target, k), h, f) : 0.0,
                                       rhs.present() ? rhs.at(item(rhs_target, k), h, f) : 0.0);
        if (dot) sum += value;
        else out.push_back(value);
      }
      if (dot) out.push_back(sum);
    }
  }
  return out;
}

Shape with_rows(int64_t rows, const Shape& features) {
  Shape shape{rows};
  shape.insert(shape.end(), features.begin(), features.end());
  return shape;
}

Tensor away_from_zero(const Shape& shape, uint64_t seed) {
  Tensor x = random_tensor(shape, seed, 0.5, 1.5);
  std::vector<float> values = x.to_vector<float>();
  for (std::size_t i = 0; i < values.size(); i += 3) values[i] = -values[i];
  return Tensor::from_vector(values, shape);
}

Adjacency adjacency_from_entries(int64_t nodes, const std::vector<int64_t>& rows, const std::vector<int64_t>& columns) {
  const std::size_t count = rows.size();
  // A's order: entries sorted by row, stably (duplicates keep their order).
  std::vector<std::size_t> order(count);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return rows[a] < rows[b]; });
  // Aᵀ's order: A's entries sorted by column, stably.
  std::vector<std::size_t> by_column(count);
  std::iota(by_column.begin(), by_column.end(), std::size_t{0});
  std::stable_sort(by_column.begin(), by_column.end(),
                   [&](std::size_t a, std::size_t b) { return columns[order[a]] < columns[order[b]]; });
  const auto csr_of = [&](const std::vector<int64_t>& major, const std::vector<int64_t>& minor,
                          const std::vector<std::size_t>& entries) {
    std::vector<int32_t> indptr(static_cast<std::size_t>(nodes) + 1, 0);
    std::vector<int32_t> indices;
    for (std::size_t position : entries) {
      ++indptr[static_cast<std::size_t>(major[position]) + 1];
      indices.push_back(static_cast<int32_t>(minor[position]));
    }
    std::partial_sum(indptr.begin(), indptr.end(), indptr.begin());
    Csr csr;
    csr.num_rows = nodes;
    csr.num_cols = nodes;
    csr.nnz = static_cast<int64_t>(count);
    csr.indptr = Tensor::from_vector(indptr, {nodes + 1});
    csr.indices = Tensor::from_vector(indices, {csr.nnz});
    return csr;
  };
  std::vector<std::size_t> transposed_entries(count);
  for (std::size_t k = 0; k < count; ++k) transposed_entries[k] = order[by_column[k]];
  Adjacency adjacency;
  adjacency.csr = csr_of(rows, columns, order);
  adjacency.transpose = csr_of(columns, rows, transposed_entries);
  std::vector<int32_t> map(count);
  for (std::size_t k = 0; k < count; ++k) map[k] = static_cast<int32_t>(by_column[k]);
  adjacency.transpose_to_csr = Tensor::from_vector(map, {static_cast<int64_t>(count)});
  return adjacency;
}

}  // namespace sgnn::testing
