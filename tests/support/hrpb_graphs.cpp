#include "tests/support/hrpb_graphs.hpp"

#include <cmath>
#include <random>

#include "graph_io/generators/generators.hpp"
#include "graph_io/graph.hpp"
#include "graph_io/prepare.hpp"
#include "tests/support/testing.hpp"

namespace sgnn::testing {

Adjacency weighted_graph(int64_t n, const std::vector<int32_t>& source, const std::vector<int32_t>& target,
                         uint64_t seed) {
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<float> weight(0.1f, 1.0f);
  std::vector<float> weights(source.size());
  for (float& w : weights) w = weight(random);
  const int64_t count = static_cast<int64_t>(source.size());
  graph_io::EdgeList edges;
  edges.num_nodes = n;
  edges.source = Tensor::from_vector(source, {count});
  edges.target = Tensor::from_vector(target, {count});
  edges.weight = Tensor::from_vector(weights, {count});
  return graph_io::prepare_adjacency(edges, {});
}

namespace {

Adjacency random_graph(int64_t n, int64_t edges, uint64_t seed) {
  std::mt19937_64 random(seed);
  std::uniform_int_distribution<int32_t> node(0, static_cast<int32_t>(n - 1));
  std::vector<int32_t> source, target;
  for (int64_t k = 0; k < edges; ++k) {
    source.push_back(node(random));
    target.push_back(node(random));
  }
  return weighted_graph(n, source, target, seed + 1);
}

Adjacency banded_graph(int32_t n, int32_t half_width) {
  std::vector<int32_t> source, target;
  for (int32_t i = 0; i < n; ++i) {
    for (int32_t j = std::max(0, i - half_width); j <= std::min(n - 1, i + half_width); ++j) {
      source.push_back(j);
      target.push_back(i);
    }
  }
  return weighted_graph(n, source, target, 11);
}

Adjacency rmat_gcn_graph() {
  graph_io::RmatOptions options;
  options.num_nodes = 1000;
  options.num_edges = 8000;
  options.seed = 3;
  return graph_io::prepare_adjacency(graph_io::generate_rmat(options), graph_io::gcn_graph_options().prepare);
}

// Rows 0..15 and 64..79 only: panels 1, 2, 3 and 5.. are empty; 100 rows.
Adjacency empty_panels_graph() {
  std::vector<int32_t> source, target;
  for (int32_t r : {0, 5, 15, 64, 70, 79}) {
    for (int32_t c : {1, 33, 98, r}) {
      source.push_back(c);
      target.push_back(r);
    }
  }
  return weighted_graph(100, source, target, 12);
}

// Rows 16..31 hit every one of 40 columns: one fully dense panel.
Adjacency dense_panel_graph() {
  std::vector<int32_t> source, target;
  for (int32_t r = 16; r < 32; ++r) {
    for (int32_t c = 0; c < 40; ++c) {
      source.push_back(c);
      target.push_back(r);
    }
  }
  source.push_back(3);
  target.push_back(39);
  return weighted_graph(40, source, target, 13);
}

// Every one of 130 rows hits column 7, plus a diagonal.
Adjacency one_column_graph() {
  std::vector<int32_t> source, target;
  for (int32_t r = 0; r < 130; ++r) {
    source.push_back(7);
    target.push_back(r);
    if (r != 7) {
      source.push_back(r);
      target.push_back(r);
    }
  }
  return weighted_graph(130, source, target, 14);
}

// Row 0 hits all 3000 columns; every other row one column: one heavy panel.
Adjacency hub_row_graph() {
  std::vector<int32_t> source, target;
  for (int32_t c = 0; c < 3000; ++c) {
    source.push_back(c);
    target.push_back(0);
    source.push_back((c * 7) % 3000);
    target.push_back(c);
  }
  return weighted_graph(3000, source, target, 15);
}

}  // namespace

std::vector<NamedGraph> hrpb_test_graphs() {
  return {
      {"random 300 nodes 3000 edges", random_graph(300, 3000, 21)},
      {"banded 200 nodes half-width 3", banded_graph(200, 3)},
      {"power-law R-MAT 1000 nodes (GCN-normalised)", rmat_gcn_graph()},
      {"empty panels, 100 rows", empty_panels_graph()},
      {"a full dense panel", dense_panel_graph()},
      {"one column hit by every row", one_column_graph()},
      {"a hub row of 3000 columns", hub_row_graph()},
      {"no edges, 37 nodes", weighted_graph(37, {}, {}, 16)},
      {"one node with a self loop", weighted_graph(1, {0}, {0}, 17)},
  };
}

namespace {

// C = A·B in float64, or |A|·|B| when `absolute`.
std::vector<double> float64_spmm(const Csr& csr, const Tensor& values, const Tensor& b, bool absolute) {
  const Csr host = csr.to(Device::cpu());
  std::vector<int64_t> indptr;
  if (host.indptr.dtype() == DType::Int32) {
    for (const int32_t x : host.indptr.to_vector<int32_t>()) indptr.push_back(x);
  } else {
    indptr = host.indptr.to_vector<int64_t>();
  }
  const std::vector<int32_t> indices = host.indices.to_vector<int32_t>();
  const std::vector<float> weights = values.defined() ? values.to_vector<float>() : std::vector<float>();
  const std::vector<float> dense = b.to_vector<float>();
  const int64_t width = b.size(1);
  std::vector<double> c(static_cast<std::size_t>(csr.num_rows * width), 0.0);
  for (int64_t r = 0; r < csr.num_rows; ++r) {
    for (int64_t e = indptr[static_cast<std::size_t>(r)]; e < indptr[static_cast<std::size_t>(r) + 1]; ++e) {
      const auto k = static_cast<std::size_t>(e);
      const double w = weights.empty() ? 1.0 : double{weights[k]};
      for (int64_t j = 0; j < width; ++j) {
        const double x = dense[static_cast<std::size_t>(indices[k] * width + j)];
        c[static_cast<std::size_t>(r * width + j)] += absolute ? std::abs(w * x) : w * x;
      }
    }
  }
  return c;
}

}  // namespace

std::vector<double> reference_spmm(const Csr& csr, const Tensor& values, const Tensor& b) {
  return float64_spmm(csr, values, b, false);
}

std::vector<double> bf16_spmm_bound(const Csr& csr, const Tensor& values, const Tensor& b) {
  const std::vector<double> c = float64_spmm(csr, values, b, false);
  std::vector<double> bound = float64_spmm(csr, values, b, true);
  const std::vector<int64_t> row_nnz = csr.to(Device::cpu()).row_lengths();
  const int64_t width = b.size(1);
  for (std::size_t i = 0; i < bound.size(); ++i) {
    const double k = static_cast<double>(row_nnz[i / static_cast<std::size_t>(width)]);
    bound[i] = kBf16UnitRoundoff * std::abs(c[i]) + 1.01 * (kBf16UnitRoundoff + k * std::ldexp(1.0, -22)) * bound[i];
  }
  return bound;
}

}  // namespace sgnn::testing
