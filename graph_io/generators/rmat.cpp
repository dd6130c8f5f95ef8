#include <bit>

#include "core/philox.hpp"
#include "graph_io/generators/generator_support.hpp"
#include "graph_io/generators/generators.hpp"

namespace sgnn::graph_io {

std::vector<int32_t> rmat_node_permutation(const RmatOptions& options) {
  SGNN_CHECK(options.num_nodes >= 1 && options.num_nodes < (int64_t{1} << 31), "R-MAT: num_nodes ",
             options.num_nodes, " out of range [1, 2^31)");
  return random_permutation(options.num_nodes, options.seed ^ 0x9e3779b97f4a7c15ull);
}

EdgeList generate_rmat(const RmatOptions& options) {
  SGNN_CHECK(options.num_nodes >= 1 && options.num_nodes < (int64_t{1} << 31), "R-MAT: num_nodes ",
             options.num_nodes, " out of range [1, 2^31)");
  SGNN_CHECK(options.num_edges >= 0, "R-MAT: negative num_edges ", options.num_edges);
  SGNN_CHECK(options.a >= 0 && options.b >= 0 && options.c >= 0 && options.a + options.b + options.c <= 1.0,
             "R-MAT: probabilities a=", options.a, " b=", options.b, " c=", options.c,
             " must be non-negative with a + b + c <= 1");
  const int levels = static_cast<int>(std::bit_width(static_cast<uint64_t>(options.num_nodes - 1)));
  const auto ab = static_cast<float>(options.a + options.b);
  const auto a_share = static_cast<float>(options.a / std::max(options.a + options.b, 1e-12));
  const auto c_share = static_cast<float>(options.c / std::max(1.0 - options.a - options.b, 1e-12));

  EdgeList edges = host_edge_list(options.num_nodes, options.num_edges);
  int32_t* source = edges.source.data<int32_t>();
  int32_t* target = edges.target.data<int32_t>();
  const std::vector<int32_t> relabel = rmat_node_permutation(options);
  // Two uniforms per level (row half, then column half given the row half).
  const PhiloxStream stream{options.seed, 1};
  const uint64_t draws_per_edge = 2 * static_cast<uint64_t>(levels);
#pragma omp parallel for schedule(static)
  for (int64_t e = 0; e < options.num_edges; ++e) {
    uint64_t row = 0;
    uint64_t col = 0;
    const uint64_t base = static_cast<uint64_t>(e) * draws_per_edge;
    for (int level = 0; level < levels; ++level) {
      const bool lower = stream.uniform(base + 2 * static_cast<uint64_t>(level)) >= ab;
      const float share = lower ? c_share : a_share;
      const bool right = stream.uniform(base + 2 * static_cast<uint64_t>(level) + 1) >= share;
      row = (row << 1) | static_cast<uint64_t>(lower);
      col = (col << 1) | static_cast<uint64_t>(right);
    }
    const uint64_t n = static_cast<uint64_t>(options.num_nodes);
    source[e] = relabel[static_cast<std::size_t>(row % n)];
    target[e] = relabel[static_cast<std::size_t>(col % n)];
  }
  return edges;
}

}  // namespace sgnn::graph_io
