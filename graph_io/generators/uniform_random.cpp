#include "graph_io/generators/uniform_random.hpp"

#include <cmath>

#include "core/error.hpp"
#include "graph_io/generators/generator_support.hpp"

namespace sgnn::graph_io {

EdgeList generate_uniform_random(const UniformRandomOptions& options) {
  const int64_t n = options.num_nodes;
  SGNN_CHECK(n >= 2 && n < (int64_t{1} << 31), "uniform random graph: num_nodes ", n, " out of range [2, 2^31)");
  SGNN_CHECK(std::isfinite(options.average_degree) && options.average_degree >= 0 &&
                 options.average_degree <= static_cast<double>(n - 1),
             "uniform random graph: average degree ", options.average_degree, " outside [0, ", n - 1, "]");
  const auto count = static_cast<int64_t>(std::round(static_cast<double>(n) * options.average_degree / 2.0));
  return draw_edges(n, count, options.seed, [n](double first, double second) {
    const int64_t s = scaled_index(first, n);
    const int64_t t = scaled_index(second, n - 1);  // one of the n − 1 others
    return std::pair<int64_t, int64_t>{s, t >= s ? t + 1 : t};
  });
}

}  // namespace sgnn::graph_io
