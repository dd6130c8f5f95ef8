#include "graph_io/uniform_random.hpp"

#include <cmath>

#include "core/error.hpp"
#include "graph_io/generator_random.hpp"

namespace sgnn::graph_io {

EdgeList generate_uniform_random(const UniformRandomOptions& options) {
  const int64_t n = options.num_nodes;
  SGNN_CHECK(n >= 2 && n < (int64_t{1} << 31), "uniform random graph: num_nodes ", n, " out of range [2, 2^31)");
  SGNN_CHECK(std::isfinite(options.average_degree) && options.average_degree >= 0 &&
                 options.average_degree <= static_cast<double>(n - 1),
             "uniform random graph: average degree ", options.average_degree, " outside [0, ", n - 1, "]");
  const auto count = static_cast<int64_t>(std::round(static_cast<double>(n) * options.average_degree / 2.0));
  EdgeList edges;
  edges.num_nodes = n;
  edges.source = Tensor::empty({count}, DType::Int32);
  edges.target = Tensor::empty({count}, DType::Int32);
  int32_t* source = edges.source.data<int32_t>();
  int32_t* target = edges.target.data<int32_t>();
  const PhiloxStream stream{options.seed, 1};
#pragma omp parallel for schedule(static)
  for (int64_t e = 0; e < count; ++e) {
    double first = 0.0, second = 0.0;
    uniform_pair(stream, static_cast<uint64_t>(e), first, second);
    const int64_t s = scaled_index(first, n);
    int64_t t = scaled_index(second, n - 1);  // one of the n − 1 others
    if (t >= s) ++t;
    source[e] = static_cast<int32_t>(s);
    target[e] = static_cast<int32_t>(t);
  }
  return edges;
}

}  // namespace sgnn::graph_io
