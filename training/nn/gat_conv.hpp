// GATConv (Veličković et al. 2018), H heads of F features each:
//   Wh      = x·W                              [N, H, F]   (W [in, H·F], Glorot)
//   e[i←j]  = LeakyReLU_0.2(a_l·Wh_i + a_r·Wh_j)  per edge of A and head
//             (a_l on the target/row side, a_r on the source/column side)
//   α       = edge_softmax(e) over each row, then attention dropout
//             (e and α in one op, ops::attention_softmax: e is never stored)
//   out_i   = Σ_j α[i←j] Wh_j                   (ops::spmm with per-head edge values)
//   concat: [N, H·F]; otherwise the mean over heads [N, F]; plus a bias.
// Uses the adjacency's pattern only (prepare with gat_graph_options(): self
// loops added, no normalisation). In BFloat16 precision W·x, the per-node
// score halves and the output are bfloat16; the scores and the attention
// are float32 (docs/mixed_precision.md); a_l, a_r and the bias stay float32
// masters used in float.
#pragma once

#include <functional>

#include "core/generator.hpp"
#include "training/nn/layer.hpp"

namespace sgnn::training {

struct GATOptions {
  int64_t heads = 1;
  bool concat = true;
  float attention_dropout = 0.0f;  // in [0, 1)
  // Dropout on W·x before aggregation, as in Veličković et al.'s code (PyG's
  // GATConv has none); in [0, 1).
  float projected_dropout = 0.0f;
  float negative_slope = 0.2f;
  bool bias = true;
};

class GATConv : public Layer {
 public:
  // Draws W, a_l, a_r (Glorot) from `generator` now and the attention dropout
  // masks from it during training; `generator` must outlive the layer.
  GATConv(int64_t in_features, int64_t out_features_per_head, Generator& generator, GATOptions options = {});
  Tensor forward(const GraphInput& graph, const Tensor& x) override;
  // The layer on a block of rows (distributed training): `adjacency` is the
  // block [rows, columns], `x` [rows, in] the block's own rows, and
  // `extend_rows` maps a [rows, k] tensor to the [columns, k] rows of the
  // adjacency's columns (a rank's halo exchange), differentiably. Returns the
  // block's output rows; forward() is this on the whole graph with the
  // identity for `extend_rows`.
  Tensor forward_block(const Adjacency& adjacency, const Tensor& x,
                       const std::function<Tensor(const Tensor&)>& extend_rows);
  // The layer on a bipartite adjacency (a sampled block, or rows of the whole
  // graph in layer-wise inference): rows are the destinations, x_destination
  // [rows, in] their own features, x_source [columns, in] the sources'.
  // Self loops are entries of the adjacency like any other (mini-batch GAT
  // samples from a graph that has them).
  Tensor forward(const Adjacency& adjacency, const Tensor& x_source, const Tensor& x_destination);
  int64_t output_features() const;  // H·F when concat, else F

 private:
  // Attention and aggregation from the projections W·x of the rows [rows, H, F] and of the columns [columns, H, F].
  Tensor attend(const Adjacency& adjacency, const Tensor& projected_rows, const Tensor& projected_columns);

  int64_t heads_;
  int64_t features_;
  GATOptions options_;
  Generator* generator_;
  Tensor weight_;
  Tensor attention_row_;     // a_l [H, F]
  Tensor attention_column_;  // a_r [H, F]
  Tensor bias_;
};

}  // namespace sgnn::training
