#include "graph_io/generators/hub.hpp"

#include <cmath>

#include "core/error.hpp"
#include "graph_io/generators/generator_support.hpp"
#include "graph_io/generators/uniform_random.hpp"

namespace sgnn::graph_io {

int64_t hub_node(const HubOptions& options) { return options.num_nodes / 2; }

EdgeList generate_hub(const HubOptions& options) {
  const int64_t n = options.num_nodes;
  SGNN_CHECK(n >= 3 && n < (int64_t{1} << 31), "hub graph: num_nodes ", n, " out of range [3, 2^31)");
  SGNN_CHECK(options.hub_degree >= 0 && options.hub_degree <= n - 1, "hub graph: hub_degree ", options.hub_degree,
             " outside [0, ", n - 1, "] (the hub's neighbours are distinct other nodes)");
  SGNN_CHECK(std::isfinite(options.average_degree) && options.average_degree >= 0 &&
                 options.average_degree <= static_cast<double>(n - 2),
             "hub graph: average_degree ", options.average_degree, " of the other nodes outside [0, ", n - 2, "]");
  const int64_t hub = hub_node(options);
  // The others: ids [0, n − 1) of the background graph, shifted past the hub.
  const EdgeList others = generate_uniform_random({n - 1, options.average_degree, options.seed});
  const std::vector<int32_t> chosen = random_permutation(n - 1, options.seed ^ 0xbb67ae8584caa73bull);
  const int64_t background = others.num_edges();
  const int64_t total = background + options.hub_degree;

  EdgeList edges = host_edge_list(n, total);
  int32_t* source = edges.source.data<int32_t>();
  int32_t* target = edges.target.data<int32_t>();
  const int32_t* other_source = others.source.data<int32_t>();
  const int32_t* other_target = others.target.data<int32_t>();
  const auto skip_hub = [hub](int32_t id) { return static_cast<int32_t>(id >= hub ? id + 1 : id); };
#pragma omp parallel for schedule(static)
  for (int64_t e = 0; e < background; ++e) {
    source[e] = skip_hub(other_source[e]);
    target[e] = skip_hub(other_target[e]);
  }
#pragma omp parallel for schedule(static)
  for (int64_t k = 0; k < options.hub_degree; ++k) {
    source[background + k] = skip_hub(chosen[static_cast<std::size_t>(k)]);
    target[background + k] = static_cast<int32_t>(hub);
  }
  return edges;
}

}  // namespace sgnn::graph_io
