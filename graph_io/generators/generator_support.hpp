// What the graph generators share: their output edge list, a seeded node
// relabelling and 48-bit uniforms, both from Philox streams (the same on any
// machine and at any thread count).
#pragma once

#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "core/philox.hpp"
#include "graph_io/edge_list.hpp"

namespace sgnn::graph_io {

// A host edge list on num_nodes nodes with room for num_edges edges (int32
// source and target, not initialised): the generators fill it in parallel.
EdgeList host_edge_list(int64_t num_nodes, int64_t num_edges);

// A permutation of [0, n) from a Fisher–Yates shuffle driven by Philox
// stream (seed, 0): generators relabel nodes with it so that structure (hubs,
// communities) is not clustered at small ids. Throws InvalidArgument unless
// 0 <= n < 2^31.
std::vector<int32_t> random_permutation(int64_t n, uint64_t seed);

// Two uniform doubles in [0, 1) with 48 random bits each, from block `index`
// of `stream` (one Philox call). PhiloxStream's 24-bit floats alone cannot
// reach every id beyond 2^24 nodes, and would quantise the probability of a
// low-weight node among millions.
inline void uniform_pair(const PhiloxStream& stream, uint64_t index, double& first, double& second) {
  float lanes[4];
  stream.uniform4(index, lanes);
  constexpr double kLow = 1.0 / 16777216.0;  // 2^-24
  first = static_cast<double>(lanes[0]) + static_cast<double>(lanes[1]) * kLow;
  second = static_cast<double>(lanes[2]) + static_cast<double>(lanes[3]) * kLow;
}

// A standard normal value from the uniforms 2·index and 2·index + 1 of
// `stream` (Box–Muller; 1 − u is in (0, 1], so the log is finite).
inline double standard_normal(const PhiloxStream& stream, uint64_t index) {
  constexpr double kTwoPi = 6.283185307179586;
  const double u1 = 1.0 - static_cast<double>(stream.uniform(2 * index));
  const double u2 = static_cast<double>(stream.uniform(2 * index + 1));
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(kTwoPi * u2);
}

// floor(uniform · count), kept below count (uniform in [0, 1)).
inline int64_t scaled_index(double uniform, int64_t count) {
  const auto index = static_cast<int64_t>(uniform * static_cast<double>(count));
  return index < count - 1 ? index : count - 1;
}

// num_edges edges drawn independently, in parallel: edge e is
// ends(first, second), a std::pair<int64_t, int64_t> (source, target) of the
// uniform_pair of block e of Philox stream (seed, 1).
template <typename Ends>
EdgeList draw_edges(int64_t num_nodes, int64_t num_edges, uint64_t seed, const Ends& ends) {
  EdgeList edges = host_edge_list(num_nodes, num_edges);
  int32_t* source = edges.source.data<int32_t>();
  int32_t* target = edges.target.data<int32_t>();
  const PhiloxStream stream{seed, 1};
#pragma omp parallel for schedule(static)
  for (int64_t e = 0; e < num_edges; ++e) {
    double first = 0.0, second = 0.0;
    uniform_pair(stream, static_cast<uint64_t>(e), first, second);
    const auto [from, to] = ends(first, second);
    source[e] = static_cast<int32_t>(from);
    target[e] = static_cast<int32_t>(to);
  }
  return edges;
}

}  // namespace sgnn::graph_io
