#include "graph_io/generators/generator_support.hpp"

#include <algorithm>
#include <numeric>

#include "core/error.hpp"
#include "core/philox.hpp"

namespace sgnn::graph_io {

EdgeList host_edge_list(int64_t num_nodes, int64_t num_edges) {
  EdgeList edges;
  edges.num_nodes = num_nodes;
  edges.source = Tensor::empty({num_edges}, DType::Int32);
  edges.target = Tensor::empty({num_edges}, DType::Int32);
  return edges;
}

std::vector<int32_t> random_permutation(int64_t n, uint64_t seed) {
  SGNN_CHECK(n >= 0 && n < (int64_t{1} << 31), "random_permutation: size ", n, " out of range [0, 2^31)");
  std::vector<int32_t> permutation(static_cast<std::size_t>(n));
  std::iota(permutation.begin(), permutation.end(), 0);
  const PhiloxStream stream{seed, 0};
  for (int64_t i = n - 1; i > 0; --i) {
    const auto j = static_cast<int64_t>(static_cast<double>(stream.uniform(static_cast<uint64_t>(i))) *
                                        static_cast<double>(i + 1));
    std::swap(permutation[static_cast<std::size_t>(i)], permutation[static_cast<std::size_t>(std::min(j, i))]);
  }
  return permutation;
}

}  // namespace sgnn::graph_io
