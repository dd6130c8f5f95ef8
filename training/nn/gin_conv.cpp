#include "training/nn/gin_conv.hpp"

#include <utility>

#include "ops/elementwise.hpp"
#include "ops/gspmm.hpp"
#include "training/nn/basic_layers.hpp"
#include "training/nn/linear.hpp"

namespace sgnn::training {

GINConv::GINConv(int64_t in_features, std::shared_ptr<Layer> mlp, bool train_eps, float initial_eps)
    : in_features_(in_features), mlp_(std::move(mlp)), eps_(Tensor::full({1}, initial_eps)) {
  SGNN_CHECK(in_features > 0, "GINConv: in_features must be positive, got ", in_features);
  SGNN_CHECK(mlp_ != nullptr, "GINConv: no MLP given");
  if (train_eps) {
    register_parameter("eps", eps_);
  } else {
    register_buffer("eps", eps_);  // moved with the module, as PyG's buffer
  }
  register_module("mlp", mlp_);
}

Tensor GINConv::forward(const GraphInput& graph, const Tensor& x) {
  check_layer_input(x, in_features_, "GINConv");
  const Adjacency& adjacency = graph.adjacency_in({graph_io::Normalization::None, graph_io::SelfLoops::Remove});
  SGNN_CHECK(x.size(0) == adjacency.num_cols(), "GINConv: x has ", x.size(0), " rows, the graph has ",
             adjacency.num_cols(), " nodes");
  // An MLP that opens with a Linear narrower than x takes its product before
  // the sum: W·((1 + ε)·x_i + Σ x_j) + b = (1 + ε)·(xW)_i + Σ (xW)_j + b,
  // so the sum and the elementwise ops move out < in features per node
  // (DGL's GINConv and SAGEConv apply the linear map first likewise).
  auto* sequence = dynamic_cast<Sequential*>(mlp_.get());
  auto* first = sequence != nullptr && sequence->size() > 0 ? dynamic_cast<Linear*>((*sequence)[0].get()) : nullptr;
  if (first != nullptr && first->weight().size(1) < in_features_) {
    const Tensor projected = first->project(x);
    const Tensor combined = ops::add(ops::add(projected, ops::mul(projected, eps_)),
                                     ops::aggregate(adjacency, projected, ops::ReduceKind::Sum));
    return sequence->forward_from(1, graph, first->bias().defined() ? ops::add(combined, first->bias()) : combined);
  }
  const Tensor own = ops::add(x, ops::mul(x, eps_));  // (1 + ε) · x, ε in float
  return mlp_->forward(graph, ops::add(own, ops::aggregate(adjacency, x, ops::ReduceKind::Sum)));
}

}  // namespace sgnn::training
