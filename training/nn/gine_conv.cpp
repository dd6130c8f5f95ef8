#include "training/nn/gine_conv.hpp"

#include "ops/activation.hpp"
#include "ops/cast.hpp"
#include "ops/elementwise.hpp"
#include "ops/gsddmm.hpp"
#include "ops/gspmm.hpp"

namespace sgnn::training {

GINEConv::GINEConv(std::shared_ptr<Layer> nn, int64_t in_features, int64_t edge_features, Generator& generator,
                   GINEOptions options)
    : in_features_(in_features), edge_features_(edge_features) {
  SGNN_CHECK(nn != nullptr, "GINEConv: no nn (the layer applied after the aggregation)");
  SGNN_CHECK(in_features > 0 && edge_features > 0, "GINEConv: in_features (", in_features, ") and edge_features (",
             edge_features, ") must be positive");
  eps_ = Tensor::full({1}, options.eps);
  if (options.train_eps) {
    register_parameter("eps", eps_);
  } else {
    register_buffer("eps", eps_);
  }
  nn_ = register_module("nn", std::move(nn));
  if (edge_features != in_features) {
    edge_projection_ =
        register_module("edge_projection", std::make_shared<Linear>(edge_features, in_features, generator));
  }
}

Tensor GINEConv::forward(const GraphInput& graph, const Tensor& x) {
  check_layer_input(x, in_features_, "GINEConv");
  const Adjacency& adjacency = graph.graph();
  SGNN_CHECK(adjacency.num_rows() == adjacency.num_cols() && x.size(0) == adjacency.num_cols(), "GINEConv: x has ",
             x.size(0), " rows, the graph is ", adjacency.num_rows(), " x ", adjacency.num_cols(),
             " (must be square with one row per node)");
  const Tensor& edge_features = graph.edge_features;
  SGNN_CHECK(edge_features.defined(),
             "GINEConv: the graph carries no edge features (GraphInput::edge_features); prepare it with "
             "GraphOptions::edge_features from a dataset that has them");
  SGNN_CHECK(edge_features.dim() == 2 && edge_features.size(0) == adjacency.nnz() &&
                 edge_features.size(1) == edge_features_,
             "GINEConv: edge features ", shape_str(edge_features.shape()), ", expected [nnz = ", adjacency.nnz(), ", ",
             edge_features_, "]");
  Tensor edges = ops::cast(edge_features, x.dtype());
  if (edge_projection_ != nullptr) edges = edge_projection_->forward(edges);
  const Tensor messages =
      ops::relu(ops::gsddmm(adjacency, ops::BinaryKind::Add, x, edges, ops::Target::U, ops::Target::E));
  const Tensor aggregated = ops::gspmm(adjacency, ops::MessageKind::CopyE, ops::ReduceKind::Sum, Tensor(), messages);
  const Tensor root = ops::add(x, ops::mul(x, eps_));  // (1 + ε) · x, ε's gradient the sum of x · grad
  return nn_->forward(graph, ops::add(root, aggregated));
}

}  // namespace sgnn::training
