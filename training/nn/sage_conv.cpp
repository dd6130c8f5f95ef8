#include "training/nn/sage_conv.hpp"

#include "ops/elementwise.hpp"
#include "ops/matmul.hpp"
#include "ops/spmm.hpp"
#include "sampling/destination_rows.hpp"
#include "training/nn/init.hpp"
#include "training/nn/linear.hpp"

namespace sgnn::training {

SAGEConv::SAGEConv(int64_t in_features, int64_t out_features, Generator& generator, bool bias) {
  SGNN_CHECK(in_features > 0 && out_features > 0, "SAGEConv: sizes must be positive, got ", in_features, " -> ",
             out_features);
  weight_neighbours_ = glorot_uniform({in_features, out_features}, in_features, out_features, generator);
  weight_root_ = glorot_uniform({in_features, out_features}, in_features, out_features, generator);
  register_parameter("weight_neighbours", weight_neighbours_);
  register_parameter("weight_root", weight_root_);
  if (bias) {
    bias_ = Tensor::zeros({out_features});
    register_parameter("bias", bias_);
  }
}

Tensor SAGEConv::forward(const Adjacency& adjacency, const Tensor& x_source, const Tensor& x_destination) {
  check_layer_input(x_source, in_features(), "SAGEConv");
  check_layer_input(x_destination, in_features(), "SAGEConv");
  SGNN_CHECK(x_source.size(0) == adjacency.num_cols() && x_destination.size(0) == adjacency.num_rows(),
             "SAGEConv: x_source has ", x_source.size(0), " rows and x_destination ", x_destination.size(0),
             " for an adjacency of ", adjacency.num_rows(), " destinations and ", adjacency.num_cols(), " sources");
  SGNN_CHECK(adjacency.has_values(), "SAGEConv: the adjacency carries no mean weights (values = 1 / row length: a "
                                     "sampled block, or a graph prepared with Normalization::Row)");
  const Tensor neighbour_mean = ops::spmm(adjacency, x_source);  // the mean aggregation: values are 1 / row length
  Tensor out = ops::add(ops::matmul_weight(neighbour_mean, weight_neighbours_, compute_copy(weight_neighbours_)),
                        ops::matmul_weight(x_destination, weight_root_, compute_copy(weight_root_)));
  return bias_.defined() ? ops::add(out, bias_) : out;
}

Tensor SAGEConv::forward(const sampling::Block& block, const Tensor& x_source) {
  check_layer_input(x_source, in_features(), "SAGEConv");
  SGNN_CHECK(x_source.size(0) == block.num_sources(), "SAGEConv: x_source has ", x_source.size(0),
             " rows, the block ", block.num_sources(), " sources");
  return forward(block.adjacency, x_source, sampling::destination_rows(x_source, block.num_destinations()));
}

Tensor SAGEConv::forward(const GraphInput& graph, const Tensor& x) { return forward(graph.graph(), x, x); }

}  // namespace sgnn::training
