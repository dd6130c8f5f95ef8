// Layer: a Module with a forward pass over node features on a graph. Every
// layer takes the same arguments so layers stack in a Sequential: layers that
// ignore the graph (Linear, Dropout, activations) simply do not read it.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "core/adjacency.hpp"
#include "graph_io/graph.hpp"
#include "training/nn/module.hpp"

namespace sgnn::training {

// What a layer sees of the graph. `adjacency` is the prepared Adjacency of a
// graph_io::Graph (its values are the fixed GCN weights when the graph was
// prepared with gcn_graph_options()); it must outlive the forward call.
struct GraphInput {
  GraphInput() = default;
  explicit GraphInput(const Adjacency& graph_adjacency) : adjacency(&graph_adjacency) {}
  // The graph's prepared adjacency and its other forms (graph.forms).
  explicit GraphInput(const graph_io::Graph& graph)
      : adjacency(&graph.adjacency), forms(graph.forms), edge_features(graph.edge_features) {}

  const Adjacency* adjacency = nullptr;
  // The other forms of the graph's adjacency, derived on request
  // (graph_io/adjacency_variants.hpp); null for a GraphInput of a bare adjacency.
  std::shared_ptr<graph_io::AdjacencyVariants> forms;
  // [nnz, F_e] on the adjacency's device, row k the features of entry k of
  // `adjacency` (graph_io::Graph::edge_features; the experiment gives them
  // in the activation dtype); undefined when the graph carries none.
  Tensor edge_features;
  // The fixed-weight aggregation A·X used by GCNConv, taking and returning x's
  // dtype (float32 or bfloat16). Empty: ops::spmm, which runs CSR or HRPB as
  // adjacency.spmm_format says; another kernel is plugged in here without
  // touching the layers.
  std::function<Tensor(const Tensor&)> weighted_spmm;
  // A short name of the aggregation kernel in use, for reports ("csr").
  std::string spmm_name = "csr";

  const Adjacency& graph() const;    // InvalidArgument when adjacency is null
  // The adjacency in the form a layer asks for: graph() when it is the
  // prepared form, else the derived one (once per graph, cached). A
  // GraphInput of a bare adjacency has only graph(): asking another form is
  // an InvalidArgument saying to build the input from its graph_io::Graph.
  const Adjacency& adjacency_in(const graph_io::AdjacencyForm& form) const;
  Tensor aggregate(const Tensor& x) const;  // weighted_spmm(x) or ops::spmm(graph(), x)
};

class Layer : public Module {
 public:
  // x: [N, in] on the parameters' device, of the module's activation dtype
  // (float32, or bfloat16 in BFloat16 precision) -> [N, out], the same dtype.
  virtual Tensor forward(const GraphInput& graph, const Tensor& x) = 0;
  // Rows `rows` (int32 [R], node ids in [0, N)) of forward(graph, x): [R, out],
  // for a loss that reads only those (the trainer's training split). This
  // default computes every row and gathers them (ops::gather_rows).
  virtual Tensor forward_rows(const GraphInput& graph, const Tensor& x, const Tensor& rows);
  // True where forward_rows computes only the rows asked for, so that it is
  // cheaper than forward: the layer's output rows do not depend on each
  // other once its input is fixed (SGConv's linear map of a kept
  // propagation). The trainer then asks its model for the loss's rows only.
  virtual bool forward_rows_is_cheaper() const { return false; }
};

}  // namespace sgnn::training
