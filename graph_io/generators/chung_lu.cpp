#include "graph_io/generators/chung_lu.hpp"

#include <cmath>

#include "core/error.hpp"
#include "graph_io/generators/generator_support.hpp"
#include "graph_io/generators/power_law_weights.hpp"

namespace sgnn::graph_io {

EdgeList generate_chung_lu(const ChungLuOptions& options) {
  const int64_t n = options.num_nodes;
  SGNN_CHECK(n >= 1 && n < (int64_t{1} << 31), "Chung-Lu: num_nodes ", n, " out of range [1, 2^31)");
  SGNN_CHECK(options.max_degree <= 0 || options.max_degree <= static_cast<double>(n - 1), "Chung-Lu: max_degree ",
             options.max_degree, " exceeds the ", n - 1, " other nodes");
  const WeightedSampler sampler(power_law_weights(n, options.exponent, options.average_degree, options.max_degree));
  const double edge_count = std::round(static_cast<double>(n) * options.average_degree / 2.0);
  SGNN_CHECK(edge_count < static_cast<double>(int64_t{1} << 40), "Chung-Lu: ", edge_count, " edges is too many");
  const auto edges_drawn = static_cast<int64_t>(edge_count);
  // Weight rank p is node permutation[p].
  const std::vector<int32_t> relabel = random_permutation(n, options.seed ^ 0x6a09e667f3bcc909ull);

  return draw_edges(n, edges_drawn, options.seed, [&](double first, double second) {
    return std::pair<int64_t, int64_t>{relabel[static_cast<std::size_t>(sampler.pick(first))],
                                       relabel[static_cast<std::size_t>(sampler.pick(second))]};
  });
}

}  // namespace sgnn::graph_io
