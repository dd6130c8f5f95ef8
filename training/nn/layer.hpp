// Layer: a Module with a forward pass over node features on a graph. Every
// layer takes the same arguments so layers stack in a Sequential: layers that
// ignore the graph (Linear, Dropout, activations) simply do not read it.
#pragma once

#include <functional>
#include <string>

#include "core/adjacency.hpp"
#include "training/nn/module.hpp"

namespace sgnn::training {

// What a layer sees of the graph. `adjacency` is the prepared Adjacency of a
// graph_io::Graph (its values are the fixed GCN weights when the graph was
// prepared with gcn_graph_options()); it must outlive the forward call.
struct GraphInput {
  GraphInput() = default;
  explicit GraphInput(const Adjacency& graph_adjacency) : adjacency(&graph_adjacency) {}

  const Adjacency* adjacency = nullptr;
  // The fixed-weight aggregation A·X used by GCNConv, taking and returning x's
  // dtype (float32 or bfloat16). Empty: ops::spmm, which runs CSR or HRPB as
  // adjacency.spmm_format says; another kernel is plugged in here without
  // touching the layers.
  std::function<Tensor(const Tensor&)> weighted_spmm;
  // A short name of the aggregation kernel in use, for reports ("csr").
  std::string spmm_name = "csr";

  const Adjacency& graph() const;    // InvalidArgument when adjacency is null
  Tensor aggregate(const Tensor& x) const;  // weighted_spmm(x) or ops::spmm(graph(), x)
};

class Layer : public Module {
 public:
  // x: [N, in] on the parameters' device, of the module's activation dtype
  // (float32, or bfloat16 in BFloat16 precision) -> [N, out], the same dtype.
  virtual Tensor forward(const GraphInput& graph, const Tensor& x) = 0;
};

}  // namespace sgnn::training
