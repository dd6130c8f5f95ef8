#include "graph_io/generators/bipartite.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "graph_io/generators/generator_support.hpp"
#include "graph_io/generators/power_law_weights.hpp"

namespace sgnn::graph_io {

namespace {

template <typename Offset>
std::vector<Offset> host_offsets(const Tensor& indptr) {
  return indptr.to(Device::cpu()).to_vector<Offset>();
}

// Rows [first, first + count) of `csr` whose entries all lie in rows of that
// range and columns [column_first, column_first + num_cols): the rows keep
// their entries (the entries before row `first` must be none, those after the
// range none), columns are shifted by −column_first, and the row order keeps
// the rows of the range in the same relative order.
template <typename Offset>
Csr row_block(const Csr& csr, int64_t first, int64_t count, int64_t column_first, int64_t num_cols) {
  const std::vector<Offset> indptr = host_offsets<Offset>(csr.indptr);
  SGNN_CHECK(indptr[static_cast<std::size_t>(first)] == 0 && indptr[static_cast<std::size_t>(first + count)] == csr.nnz,
             "bipartite adjacency: entries outside the target x source block");
  std::vector<int32_t> indices = csr.indices.to(Device::cpu()).to_vector<int32_t>();
  for (int32_t& column : indices) column = static_cast<int32_t>(column - column_first);
  std::vector<int32_t> order;
  order.reserve(static_cast<std::size_t>(count));
  for (const int32_t row : csr.row_order.to(Device::cpu()).to_vector<int32_t>()) {
    if (row >= first && row < first + count) order.push_back(static_cast<int32_t>(row - first));
  }
  Csr block;
  block.num_rows = count;
  block.num_cols = num_cols;
  block.nnz = csr.nnz;
  block.indptr =
      Tensor::from_vector(std::vector<Offset>(indptr.begin() + first, indptr.begin() + first + count + 1), {count + 1});
  block.indices = Tensor::from_vector(indices, {csr.nnz});
  block.row_order = Tensor::from_vector(order, {count});
  return block;
}

Csr row_block(const Csr& csr, int64_t first, int64_t count, int64_t column_first, int64_t num_cols) {
  return csr.indptr.dtype() == DType::Int32 ? row_block<int32_t>(csr, first, count, column_first, num_cols)
                                            : row_block<int64_t>(csr, first, count, column_first, num_cols);
}

}  // namespace

EdgeList generate_bipartite(const BipartiteOptions& options) {
  const int64_t s = options.num_sources, t = options.num_targets;
  SGNN_CHECK(s >= 1 && t >= 1 && s + t < (int64_t{1} << 31), "bipartite graph: ", s, " sources and ", t,
             " targets: each side needs a node and together fewer than 2^31");
  SGNN_CHECK(options.num_edges >= 0 &&
                 static_cast<double>(options.num_edges) <= static_cast<double>(s) * static_cast<double>(t),
             "bipartite graph: num_edges ", options.num_edges, " outside [0, sources x targets = ", s * t, "]");
  // Popularity weights: only their ratios matter; the cap keeps a target's
  // expected degree within the sources there are.
  const double average = std::max(1e-9, static_cast<double>(options.num_edges) / static_cast<double>(t));
  const WeightedSampler popularity(power_law_weights(t, options.exponent, average, static_cast<double>(s)));
  const std::vector<int32_t> relabel = random_permutation(t, options.seed ^ 0x3c6ef372fe94f82bull);
  return draw_edges(s + t, options.num_edges, options.seed, [&](double first, double second) {
    return std::pair<int64_t, int64_t>{scaled_index(first, s),
                                       s + relabel[static_cast<std::size_t>(popularity.pick(second))]};
  });
}

Adjacency prepare_bipartite_adjacency(const EdgeList& edges, int64_t num_sources, const PrepareOptions& options) {
  edges.validate_shapes();
  const int64_t n = edges.num_nodes;
  SGNN_CHECK(num_sources >= 1 && num_sources < n, "bipartite adjacency: num_sources ", num_sources,
             " must leave both sides a node (the graph has ", n, " nodes)");
  SGNN_CHECK(
      !options.symmetrize && options.self_loops != SelfLoops::Add && options.normalization != Normalization::Symmetric,
      "bipartite adjacency: a rectangular matrix takes no symmetrisation, added self loops or symmetric "
      "normalisation (use Normalization::Row or None)");
  const std::vector<int32_t> source = edges.source.to(Device::cpu()).to_vector<int32_t>();
  const std::vector<int32_t> target = edges.target.to(Device::cpu()).to_vector<int32_t>();
  for (std::size_t k = 0; k < source.size(); ++k) {
    SGNN_CHECK(source[k] >= 0 && source[k] < num_sources && target[k] >= num_sources && target[k] < n,
               "bipartite adjacency: edge ", k, " goes ", source[k], " -> ", target[k], ", not from a source [0, ",
               num_sources, ") to a target [", num_sources, ", ", n, ")");
  }
  const Adjacency square = prepare_adjacency(edges, options).to(Device::cpu());
  const int64_t num_targets = n - num_sources;
  Adjacency block;
  block.csr = row_block(square.csr, num_sources, num_targets, 0, num_sources);
  block.transpose = row_block(square.transpose, 0, num_sources, num_sources, num_targets);
  block.transpose_to_csr = square.transpose_to_csr;
  block.values = square.values;
  block.transpose_values = square.transpose_values;
  return block.to(options.device);
}

}  // namespace sgnn::graph_io
