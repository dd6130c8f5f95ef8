#include "training/nn/layer.hpp"

#include "ops/gather_scatter.hpp"
#include "ops/spmm.hpp"

namespace sgnn::training {

const Adjacency& GraphInput::graph() const {
  SGNN_CHECK(adjacency != nullptr, "GraphInput: no adjacency given (the layer needs the graph)");
  return *adjacency;
}

const Adjacency& GraphInput::adjacency_in(const graph_io::AdjacencyForm& form) const {
  if (forms == nullptr) {
    SGNN_CHECK(form.self_loops == graph_io::SelfLoops::Keep && form.normalization == graph_io::Normalization::None,
               "GraphInput: a layer asks for another form of the adjacency (normalisation or self loops), but this "
               "input holds only the prepared adjacency: build it from the graph, GraphInput(graph)");
    return graph();
  }
  return forms->is_prepared(form) ? graph() : forms->get(form);
}

Tensor Layer::forward_rows(const GraphInput& graph, const Tensor& x, const Tensor& rows) {
  return ops::gather_rows(forward(graph, x), rows);
}

Tensor GraphInput::aggregate(const Tensor& x) const {
  if (weighted_spmm) return weighted_spmm(x);
  return ops::spmm(graph(), x);
}

}  // namespace sgnn::training
