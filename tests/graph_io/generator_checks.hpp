// Checks shared by the graph generator tests: the same edges at different
// thread counts, degrees, undirected neighbour sets and the power-law
// exponent fitted to a degree sequence.
#pragma once

#include <doctest/doctest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>
#include <vector>

#include "graph_io/edge_list.hpp"

namespace sgnn::testing {

inline bool same_edges(const graph_io::EdgeList& a, const graph_io::EdgeList& b) {
  return a.num_nodes == b.num_nodes && a.source.to_vector<int32_t>() == b.source.to_vector<int32_t>() &&
         a.target.to_vector<int32_t>() == b.target.to_vector<int32_t>();
}

// `generate` run with 1 and with 3 OpenMP threads gives the same edge list.
inline void check_thread_independent(const std::function<graph_io::EdgeList()>& generate) {
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  const graph_io::EdgeList one = generate();
  omp_set_num_threads(3);
  const graph_io::EdgeList three = generate();
  omp_set_num_threads(threads);
  CHECK(same_edges(one, three));
}

// Edge ends per node (both directions, repeats and loops counted).
inline std::vector<int64_t> end_counts(const graph_io::EdgeList& edges, bool sources, bool targets) {
  std::vector<int64_t> count(static_cast<std::size_t>(edges.num_nodes), 0);
  if (sources) {
    for (const int32_t v : edges.source.to_vector<int32_t>()) ++count[static_cast<std::size_t>(v)];
  }
  if (targets) {
    for (const int32_t v : edges.target.to_vector<int32_t>()) ++count[static_cast<std::size_t>(v)];
  }
  return count;
}

// Share of edges whose ends have the same class.
inline double same_class_share(const graph_io::EdgeList& edges, const std::vector<int32_t>& classes) {
  const std::vector<int32_t> source = edges.source.to_vector<int32_t>();
  const std::vector<int32_t> target = edges.target.to_vector<int32_t>();
  int64_t same = 0;
  for (std::size_t k = 0; k < source.size(); ++k) {
    same += classes[static_cast<std::size_t>(source[k])] == classes[static_cast<std::size_t>(target[k])] ? 1 : 0;
  }
  return static_cast<double>(same) / static_cast<double>(source.size());
}

// The distinct neighbours of each node, edges read as undirected, self loops dropped.
inline std::vector<std::set<int64_t>> neighbour_sets(const graph_io::EdgeList& edges) {
  std::vector<std::set<int64_t>> neighbours(static_cast<std::size_t>(edges.num_nodes));
  const std::vector<int32_t> source = edges.source.to_vector<int32_t>();
  const std::vector<int32_t> target = edges.target.to_vector<int32_t>();
  for (std::size_t k = 0; k < source.size(); ++k) {
    if (source[k] == target[k]) continue;
    neighbours[static_cast<std::size_t>(source[k])].insert(target[k]);
    neighbours[static_cast<std::size_t>(target[k])].insert(source[k]);
  }
  return neighbours;
}

// The exponent γ of P(degree = k) ∝ k^-γ implied by the degrees: the degree
// of the node of rank r falls as r^(-1/(γ-1)); the slope is fitted by least
// squares in log-log over ranks [first, last).
inline double fitted_degree_exponent(std::vector<int64_t> degrees, std::size_t first, std::size_t last) {
  std::sort(degrees.begin(), degrees.end(), std::greater<>());
  double sx = 0, sy = 0, sxx = 0, sxy = 0, m = 0;
  for (std::size_t r = first; r < last && degrees[r] > 0; ++r) {
    const double x = std::log(static_cast<double>(r + 1)), y = std::log(static_cast<double>(degrees[r]));
    sx += x;
    sy += y;
    sxx += x * x;
    sxy += x * y;
    m += 1;
  }
  const double slope = (m * sxy - sx * sy) / (m * sxx - sx * sx);
  return 1.0 - 1.0 / slope;
}

}  // namespace sgnn::testing
