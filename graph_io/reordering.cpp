#include "graph_io/reordering.hpp"

#include <boost/graph/compressed_sparse_row_graph.hpp>
#include <boost/graph/cuthill_mckee_ordering.hpp>
#include <boost/property_map/property_map.hpp>

#include <algorithm>
#include <numeric>

namespace sgnn::graph_io {

namespace {

using CsrGraph = boost::compressed_sparse_row_graph<boost::directedS>;

// Undirected simple graph (both directions, no loops, no repeats) as a Boost CSR graph.
CsrGraph undirected_graph(const EdgeList& edges) {
  const std::vector<int32_t> sources = edges.source.defined() ? edges.source.to_vector<int32_t>() : std::vector<int32_t>{};
  const std::vector<int32_t> targets = edges.target.defined() ? edges.target.to_vector<int32_t>() : std::vector<int32_t>{};
  std::vector<std::pair<int32_t, int32_t>> pairs;
  pairs.reserve(2 * sources.size());
  for (std::size_t k = 0; k < sources.size(); ++k) {
    if (sources[k] == targets[k]) continue;
    pairs.emplace_back(sources[k], targets[k]);
    pairs.emplace_back(targets[k], sources[k]);
  }
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  return CsrGraph(boost::edges_are_sorted, pairs.begin(), pairs.end(), static_cast<std::size_t>(edges.num_nodes));
}

std::vector<int32_t> rcm_order(const EdgeList& edges) {
  const CsrGraph graph = undirected_graph(edges);
  const std::size_t n = static_cast<std::size_t>(edges.num_nodes);
  std::vector<std::size_t> order(n);
  std::vector<boost::default_color_type> colors(n);
  // Writing Cuthill–McKee's order through a reverse iterator gives the reverse order (RCM).
  boost::cuthill_mckee_ordering(graph, order.rbegin(),
                                boost::make_iterator_property_map(colors.begin(), boost::get(boost::vertex_index, graph)),
                                boost::make_out_degree_map(graph));
  return {order.begin(), order.end()};
}

std::vector<int32_t> degree_order(const EdgeList& edges) {
  const std::size_t n = static_cast<std::size_t>(edges.num_nodes);
  std::vector<int64_t> degree(n, 0);
  if (edges.num_edges() > 0) {
    for (const int32_t s : edges.source.to_vector<int32_t>()) ++degree[static_cast<std::size_t>(s)];
    for (const int32_t t : edges.target.to_vector<int32_t>()) ++degree[static_cast<std::size_t>(t)];
  }
  std::vector<int32_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
    return degree[static_cast<std::size_t>(a)] > degree[static_cast<std::size_t>(b)];
  });
  return order;
}

// rows[new] = rows_of_input[node_order[new]] for a host [N, ...] tensor.
Tensor gather_rows(const Tensor& input, const std::vector<int32_t>& order) {
  if (!input.defined()) return input;
  const Tensor host = input.to(Device::cpu());
  Tensor output = Tensor::empty(host.shape(), host.dtype());
  const std::size_t row_bytes = host.nbytes() / std::max<std::size_t>(1, order.size());
  const auto* from = static_cast<const char*>(host.raw_data());
  auto* to = static_cast<char*>(output.raw_data());
#pragma omp parallel for schedule(static)
  for (std::size_t i = 0; i < order.size(); ++i) {
    std::copy_n(from + static_cast<std::size_t>(order[i]) * row_bytes, row_bytes, to + i * row_bytes);
  }
  return output;
}

// ids[k] -> inverse[ids[k]] for an int32 id tensor.
Tensor rename_ids(const Tensor& ids, const std::vector<int32_t>& inverse) {
  if (!ids.defined()) return ids;
  std::vector<int32_t> values = ids.to_vector<int32_t>();
  for (int32_t& v : values) {
    SGNN_CHECK(v >= 0 && static_cast<std::size_t>(v) < inverse.size(), "reorder_dataset: node id ", v,
               " outside [0, ", inverse.size(), ")");
    v = inverse[static_cast<std::size_t>(v)];
  }
  return Tensor::from_vector(values, ids.shape());
}

}  // namespace

Reordering parse_reordering(std::string_view text) {
  if (text == "none") return Reordering::None;
  if (text == "rcm") return Reordering::Rcm;
  if (text == "degree") return Reordering::Degree;
  throw InvalidArgument(detail::concat("unknown reordering \"", text, "\" (none, rcm or degree)"));
}

const char* reordering_name(Reordering reordering) {
  switch (reordering) {
    case Reordering::None: return "none";
    case Reordering::Rcm: return "rcm";
    case Reordering::Degree: return "degree";
  }
  return "unknown";
}

Tensor compute_node_order(const EdgeList& edges, Reordering reordering) {
  edges.validate();
  std::vector<int32_t> order;
  switch (reordering) {
    case Reordering::None:
      order.resize(static_cast<std::size_t>(edges.num_nodes));
      std::iota(order.begin(), order.end(), 0);
      break;
    case Reordering::Rcm: order = rcm_order(edges); break;
    case Reordering::Degree: order = degree_order(edges); break;
  }
  return Tensor::from_vector(order, {edges.num_nodes});
}

std::vector<int32_t> invert_node_order(const Tensor& node_order, int64_t num_nodes) {
  check_dtype(node_order, DType::Int32, "reorder", "node_order");
  SGNN_CHECK(node_order.shape() == Shape{num_nodes}, "node_order has shape ", shape_str(node_order.shape()),
             ", expected [", num_nodes, "]");
  const std::vector<int32_t> order = node_order.to_vector<int32_t>();
  std::vector<int32_t> inverse(order.size(), -1);
  for (std::size_t i = 0; i < order.size(); ++i) {
    const int32_t old = order[i];
    SGNN_CHECK(old >= 0 && old < num_nodes && inverse[static_cast<std::size_t>(old)] < 0,
               "node_order is not a permutation of [0, ", num_nodes, ") (entry ", i, " = ", old, ")");
    inverse[static_cast<std::size_t>(old)] = static_cast<int32_t>(i);
  }
  return inverse;
}

Dataset reorder_dataset(const Dataset& dataset, const Tensor& node_order) {
  const std::vector<int32_t> inverse = invert_node_order(node_order, dataset.num_nodes());
  const std::vector<int32_t> order = node_order.to_vector<int32_t>();
  Dataset out = dataset;
  out.edges.source = rename_ids(dataset.edges.source, inverse);
  out.edges.target = rename_ids(dataset.edges.target, inverse);
  out.features = gather_rows(dataset.features, order);
  out.labels = gather_rows(dataset.labels, order);
  out.train_index = rename_ids(dataset.train_index, inverse);
  out.valid_index = rename_ids(dataset.valid_index, inverse);
  out.test_index = rename_ids(dataset.test_index, inverse);
  return out;
}

}  // namespace sgnn::graph_io
