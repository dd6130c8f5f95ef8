// The original sequential adjacency preparation (std::stable_sort and
// counting sorts), kept as the reference the Thrust builder is tested against.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

#include "graph_io/prepare.hpp"

namespace sgnn::graph_io::reference {

namespace detail_reference {

struct Entry {
  int32_t row;
  int32_t col;
  float weight;
};

template <typename Offset>
inline Tensor offsets_tensor(const std::vector<int64_t>& offsets) {
  std::vector<Offset> narrow(offsets.begin(), offsets.end());
  return Tensor::from_vector(narrow, {static_cast<int64_t>(offsets.size())});
}

inline Tensor make_offsets(const std::vector<int64_t>& offsets, int64_t nnz) {
  return csr_offset_dtype(nnz) == DType::Int32 ? offsets_tensor<int32_t>(offsets) : offsets_tensor<int64_t>(offsets);
}

// Rows by decreasing length, ties by row id: the SpMM row swizzle.
inline Tensor make_row_order(const std::vector<int64_t>& offsets) {
  const std::size_t rows = offsets.size() - 1;
  std::vector<int32_t> order(rows);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
    return offsets[static_cast<std::size_t>(a) + 1] - offsets[static_cast<std::size_t>(a)] >
           offsets[static_cast<std::size_t>(b) + 1] - offsets[static_cast<std::size_t>(b)];
  });
  return Tensor::from_vector(order, {static_cast<int64_t>(rows)});
}

inline Csr make_csr(int64_t rows, int64_t cols, const std::vector<int64_t>& offsets, const std::vector<int32_t>& columns) {
  Csr csr;
  csr.num_rows = rows;
  csr.num_cols = cols;
  csr.nnz = static_cast<int64_t>(columns.size());
  csr.indptr = make_offsets(offsets, csr.nnz);
  csr.indices = Tensor::from_vector(columns, {csr.nnz});
  csr.row_order = make_row_order(offsets);
  return csr;
}

}  // namespace detail_reference

using namespace detail_reference;

// The straightforward sequential preparation the Thrust builder must match exactly.
inline Adjacency reference_prepare_adjacency(const EdgeList& edges, const PrepareOptions& options) {
  edges.validate();
  const int64_t n = edges.num_nodes;
  const bool weighted = edges.weight.defined();
  std::vector<Entry> entries;
  if (edges.num_edges() > 0) {
    const std::vector<int32_t> sources = edges.source.to_vector<int32_t>();
    const std::vector<int32_t> targets = edges.target.to_vector<int32_t>();
    const std::vector<float> weights =
        weighted ? edges.weight.to_vector<float>() : std::vector<float>(sources.size(), 1.0f);
    entries.reserve(sources.size() * (options.symmetrize ? 2 : 1));
    for (std::size_t k = 0; k < sources.size(); ++k) entries.push_back({targets[k], sources[k], weights[k]});
    if (options.symmetrize) {
      for (std::size_t k = 0; k < sources.size(); ++k) entries.push_back({sources[k], targets[k], weights[k]});
    }
  }
  if (options.self_loops == SelfLoops::Remove) {
    std::erase_if(entries, [](const Entry& e) { return e.row == e.col; });
  }
  auto by_position = [](const Entry& a, const Entry& b) { return a.row != b.row ? a.row < b.row : a.col < b.col; };
  std::stable_sort(entries.begin(), entries.end(), by_position);

  // Merge or drop repeated positions (an unweighted graph just drops them).
  std::vector<Entry> unique;
  unique.reserve(entries.size());
  for (const Entry& e : entries) {
    if (!unique.empty() && unique.back().row == e.row && unique.back().col == e.col) {
      if (weighted && options.duplicates == Duplicates::Merge) unique.back().weight += e.weight;
      continue;
    }
    unique.push_back(e);
  }
  if (options.self_loops == SelfLoops::Add) {
    std::vector<char> has_loop(static_cast<std::size_t>(n), 0);
    for (const Entry& e : unique) {
      if (e.row == e.col) has_loop[static_cast<std::size_t>(e.row)] = 1;
    }
    for (int32_t node = 0; node < n; ++node) {
      if (!has_loop[static_cast<std::size_t>(node)]) unique.push_back({node, node, 1.0f});
    }
    std::stable_sort(unique.begin(), unique.end(), by_position);
  }

  const int64_t nnz = static_cast<int64_t>(unique.size());
  std::vector<int64_t> offsets(static_cast<std::size_t>(n) + 1, 0);
  std::vector<int32_t> columns(unique.size());
  std::vector<float> values(unique.size());
  for (std::size_t k = 0; k < unique.size(); ++k) {
    ++offsets[static_cast<std::size_t>(unique[k].row) + 1];
    columns[k] = unique[k].col;
    values[k] = unique[k].weight;
  }
  std::partial_sum(offsets.begin(), offsets.end(), offsets.begin());

  if (options.normalization != Normalization::None) {
    std::vector<double> degree(static_cast<std::size_t>(n), 0.0);
    for (const Entry& e : unique) degree[static_cast<std::size_t>(e.row)] += static_cast<double>(e.weight);
    auto inverse_sqrt = [](double d) { return d > 0.0 ? 1.0 / std::sqrt(d) : 0.0; };
    for (std::size_t k = 0; k < unique.size(); ++k) {
      const double d_row = degree[static_cast<std::size_t>(unique[k].row)];
      const double d_col = degree[static_cast<std::size_t>(unique[k].col)];
      const double w = static_cast<double>(unique[k].weight);
      values[k] = static_cast<float>(options.normalization == Normalization::Symmetric
                                         ? w * inverse_sqrt(d_row) * inverse_sqrt(d_col)
                                         : (d_row > 0.0 ? w / d_row : 0.0));
    }
  }

  // Transpose by a stable counting sort on the column: within a column of
  // Aᵀ's rows the entries stay ordered by A's row, i.e. sorted.
  std::vector<int64_t> transpose_offsets(static_cast<std::size_t>(n) + 1, 0);
  for (const int32_t c : columns) ++transpose_offsets[static_cast<std::size_t>(c) + 1];
  std::partial_sum(transpose_offsets.begin(), transpose_offsets.end(), transpose_offsets.begin());
  std::vector<int64_t> cursor(transpose_offsets.begin(), transpose_offsets.end() - 1);
  std::vector<int32_t> transpose_columns(unique.size());
  std::vector<int64_t> transpose_to_csr(unique.size());
  for (std::size_t k = 0; k < unique.size(); ++k) {
    const int64_t slot = cursor[static_cast<std::size_t>(columns[k])]++;
    transpose_columns[static_cast<std::size_t>(slot)] = unique[k].row;
    transpose_to_csr[static_cast<std::size_t>(slot)] = static_cast<int64_t>(k);
  }

  Adjacency adjacency;
  adjacency.csr = make_csr(n, n, offsets, columns);
  adjacency.transpose = make_csr(n, n, transpose_offsets, transpose_columns);
  if (options.edge_map) adjacency.transpose_to_csr = make_offsets(transpose_to_csr, nnz);
  if (keeps_symmetric_scale(options, weighted)) {
    // D^-1/2 per node, its float64 bits in an int64 tensor (Adjacency::symmetric_scale).
    std::vector<double> degree(static_cast<std::size_t>(n), 0.0);
    for (const Entry& e : unique) degree[static_cast<std::size_t>(e.row)] += static_cast<double>(e.weight);
    std::vector<int64_t> bits(static_cast<std::size_t>(n));
    for (std::size_t i = 0; i < bits.size(); ++i) {
      const double scale = degree[i] > 0.0 ? 1.0 / std::sqrt(degree[i]) : 0.0;
      std::memcpy(&bits[i], &scale, sizeof scale);
    }
    adjacency.symmetric_scale = Tensor::from_vector(bits, {n});
  } else if (weighted || options.normalization != Normalization::None) {
    std::vector<float> transpose_values(unique.size());
    for (std::size_t k = 0; k < unique.size(); ++k) {
      transpose_values[k] = values[static_cast<std::size_t>(transpose_to_csr[k])];
    }
    adjacency.values = Tensor::from_vector(values, {nnz});
    adjacency.transpose_values = Tensor::from_vector(transpose_values, {nnz});
  }
  return adjacency.to(options.device);
}

}  // namespace sgnn::graph_io::reference
