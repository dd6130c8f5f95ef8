// Dense float64 matrices for the layers' references: a tensor or the
// prepared adjacency as rows of doubles, their product, and back to a flat
// list for testing::relative_error.
#pragma once

#include <vector>

#include "core/adjacency.hpp"
#include "tests/support/sparse_graphs.hpp"
#include "tests/support/testing.hpp"

namespace sgnn::testing {

using Matrix = std::vector<std::vector<double>>;

inline Matrix to_matrix(const Tensor& t) {
  const std::vector<double> flat = to_double(t);
  const auto rows = static_cast<std::size_t>(t.size(0));
  const std::size_t columns = flat.size() / rows;
  Matrix m(rows, std::vector<double>(columns));
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t j = 0; j < columns; ++j) m[i][j] = flat[i * columns + j];
  return m;
}

inline Matrix multiply(const Matrix& a, const Matrix& b) {
  Matrix c(a.size(), std::vector<double>(b[0].size(), 0.0));
  for (std::size_t i = 0; i < a.size(); ++i)
    for (std::size_t k = 0; k < b.size(); ++k)
      for (std::size_t j = 0; j < b[0].size(); ++j) c[i][j] += a[i][k] * b[k][j];
  return c;
}

inline std::vector<double> flatten(const Matrix& m) {
  std::vector<double> out;
  for (const auto& row : m) out.insert(out.end(), row.begin(), row.end());
  return out;
}

// Dense A (its values, or 1 where it has none) from the adjacency.
inline Matrix dense_adjacency(const Adjacency& adjacency) {
  const EdgeCoordinates coordinates = edge_coordinates(adjacency);
  const std::vector<double> values = adjacency.has_values()
                                         ? to_double(adjacency.values)
                                         : std::vector<double>(coordinates.row.size(), 1.0);
  Matrix a(static_cast<std::size_t>(adjacency.num_rows()),
           std::vector<double>(static_cast<std::size_t>(adjacency.num_cols()), 0.0));
  for (std::size_t e = 0; e < values.size(); ++e) {
    a[static_cast<std::size_t>(coordinates.row[e])][static_cast<std::size_t>(coordinates.column[e])] += values[e];
  }
  return a;
}

}  // namespace sgnn::testing
