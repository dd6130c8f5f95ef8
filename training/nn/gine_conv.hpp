// GINEConv (Hu et al. 2020, "Strategies for Pre-training Graph Neural
// Networks"; PyG's GINEConv): GIN with edge features,
//   out_i = nn((1 + ε) · x_i + Σ_{j → i} ReLU(x_j + W_e · e_ji))
// over the graph's prepared adjacency (row i lists i's in-neighbours j),
// e_ji = GraphInput::edge_features [nnz, F_e] (row k for entry k: prepare
// with GraphOptions::edge_features). W_e is a Linear(F_e, in) when the edge
// width differs from x's (PyG's edge_dim), none when they are equal. ε is
// learnable (initial options.eps; PyG's train_eps=True), or a fixed buffer.
// `nn` is any layer from [N, in] (the gine model: Linear, BatchNorm1d, ReLU,
// Linear, as PyG's GIN examples).
//
// Composed of ops, launches nothing itself:
//   messages   = ops::relu(ops::gsddmm(A, add, x on U, W_e·e on E))  [nnz, in]
//   aggregated = ops::gspmm(A, copy_e, sum, -, messages)   (the segment sum over A's rows)
// The ReLU between the sum and the aggregation keeps g-SpMM's u_add_e from
// fusing them, so the messages are formed: [nnz, in] tensors of
// nnz · in · (4 bytes in float32, 2 in bfloat16) each. Forward holds up to
// three at once (W_e·e, the sum, its ReLU) and keeps the ReLU's output for
// backward; backward forms up to three (the gradients of the messages, of
// the sum, of W_e·e). On a graph of 10^8 entries at in = 64 that is 26 GB a
// tensor in float32: GINE is for graphs whose entries times width fit.
//
// In BFloat16 precision x, the edge features (cast to x's dtype when they
// are not in it) and the messages are bfloat16, ε stays a float32 master.
// x [N, in] with N the adjacency's node count; a graph without edge
// features, or of another width, -> InvalidArgument naming the layer.
#pragma once

#include <memory>

#include "core/generator.hpp"
#include "training/nn/layer.hpp"
#include "training/nn/linear.hpp"

namespace sgnn::training {

struct GINEOptions {
  float eps = 0.0f;        // ε's initial (or fixed) value
  bool train_eps = true;   // ε a parameter (true) or a buffer
};

class GINEConv : public Layer {
 public:
  // in_features, edge_features > 0 (InvalidArgument otherwise); W_e drawn
  // from `generator` when it exists.
  GINEConv(std::shared_ptr<Layer> nn, int64_t in_features, int64_t edge_features, Generator& generator,
           GINEOptions options = {});
  Tensor forward(const GraphInput& graph, const Tensor& x) override;
  const Tensor& eps() const { return eps_; }  // [1] float32
  bool projects_edges() const { return edge_projection_ != nullptr; }

 private:
  int64_t in_features_;
  int64_t edge_features_;
  Tensor eps_;
  std::shared_ptr<Layer> nn_;
  std::shared_ptr<Linear> edge_projection_;  // W_e; null when F_e == in
};

}  // namespace sgnn::training
