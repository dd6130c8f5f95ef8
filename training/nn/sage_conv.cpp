#include "training/nn/sage_conv.hpp"

#include "ops/activation.hpp"
#include "ops/elementwise.hpp"
#include "ops/gspmm.hpp"
#include "ops/matmul.hpp"
#include "sampling/destination_rows.hpp"
#include "training/nn/init.hpp"
#include "training/nn/linear.hpp"

namespace sgnn::training {

SAGEAggregator parse_sage_aggregator(const std::string& text) {
  if (text == "mean") return SAGEAggregator::Mean;
  if (text == "max-pool") return SAGEAggregator::MaxPool;
  throw InvalidArgument("SAGEConv: unknown aggregator \"" + text + "\" (mean or max-pool)");
}

const char* sage_aggregator_name(SAGEAggregator aggregator) {
  return aggregator == SAGEAggregator::MaxPool ? "max-pool" : "mean";
}

SAGEConv::SAGEConv(int64_t in_features, int64_t out_features, Generator& generator, SAGEOptions options)
    : aggregator_(options.aggregator) {
  SGNN_CHECK(in_features > 0 && out_features > 0, "SAGEConv: sizes must be positive, got ", in_features, " -> ",
             out_features);
  weight_neighbours_ = glorot_uniform({in_features, out_features}, in_features, out_features, generator);
  weight_root_ = glorot_uniform({in_features, out_features}, in_features, out_features, generator);
  register_parameter("weight_neighbours", weight_neighbours_);
  register_parameter("weight_root", weight_root_);
  if (options.bias) {
    bias_ = Tensor::zeros({out_features});
    register_parameter("bias", bias_);
  }
  if (aggregator_ == SAGEAggregator::MaxPool) {
    pool_weight_ = glorot_uniform({in_features, in_features}, in_features, in_features, generator);
    pool_bias_ = Tensor::zeros({in_features});
    register_parameter("pool_weight", pool_weight_);
    register_parameter("pool_bias", pool_bias_);
  }
}

Tensor SAGEConv::forward(const Adjacency& adjacency, const Tensor& x_source, const Tensor& x_destination) {
  check_layer_input(x_source, in_features(), "SAGEConv");
  check_layer_input(x_destination, in_features(), "SAGEConv");
  SGNN_CHECK(x_source.size(0) == adjacency.num_cols() && x_destination.size(0) == adjacency.num_rows(),
             "SAGEConv: x_source has ", x_source.size(0), " rows and x_destination ", x_destination.size(0),
             " for an adjacency of ", adjacency.num_rows(), " destinations and ", adjacency.num_cols(), " sources");
  const auto times = [this](const Tensor& x, const Tensor& weight) {
    return ops::matmul_weight(x, weight, compute_copy(weight));
  };
  Tensor neighbours;
  if (aggregator_ == SAGEAggregator::MaxPool) {
    const Tensor pooled = ops::relu(ops::add(times(x_source, pool_weight_), pool_bias_));
    neighbours = times(ops::aggregate(adjacency, pooled, ops::ReduceKind::Max), weight_neighbours_);
  } else if (out_features() < in_features() && adjacency.num_cols() <= adjacency.num_rows()) {
    neighbours = ops::aggregate(adjacency, times(x_source, weight_neighbours_), ops::ReduceKind::Mean);
  } else {
    neighbours = times(ops::aggregate(adjacency, x_source, ops::ReduceKind::Mean), weight_neighbours_);
  }
  const Tensor out = ops::add(neighbours, times(x_destination, weight_root_));
  return bias_.defined() ? ops::add(out, bias_) : out;
}

Tensor SAGEConv::forward(const sampling::Block& block, const Tensor& x_source) {
  check_layer_input(x_source, in_features(), "SAGEConv");
  SGNN_CHECK(x_source.size(0) == block.num_sources(), "SAGEConv: x_source has ", x_source.size(0),
             " rows, the block ", block.num_sources(), " sources");
  return forward(block.adjacency, x_source, sampling::destination_rows(x_source, block.num_destinations()));
}

Tensor SAGEConv::forward(const GraphInput& graph, const Tensor& x) {
  const Adjacency& adjacency =
      graph.adjacency_in({graph_io::Normalization::None, graph_io::SelfLoops::Remove});
  return forward(adjacency, x, x);
}

}  // namespace sgnn::training
