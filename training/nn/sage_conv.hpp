// SAGEConv (Hamilton et al. 2017) with mean aggregation and a root weight,
// PyG's SAGEConv defaults:
//   out_i = W_neighbours · mean_{j in N(i)} x_j + W_root · x_i + b
// on a bipartite adjacency from sources to destinations whose values are
// the mean weights 1 / (row length): a sampled Block (sampling/block.hpp),
// rows of the whole graph (sampling::neighbourhood_rows, layer-wise
// inference) or a full graph prepared with graph_io::Normalization::Row
// (forward(GraphInput, x): every node is a destination). An empty row
// aggregates to 0. The mean is taken first and the weight applied after
// (destinations are the fewer rows in a block), both weights [in, out]
// (Glorot uniform), the bias [out] zeros. In BFloat16 precision x and the
// result are bfloat16 and the products use the weights' bfloat16 copies
// (ops::matmul_weight); the bias stays float32.
#pragma once

#include "core/generator.hpp"
#include "sampling/block.hpp"
#include "training/nn/layer.hpp"

namespace sgnn::training {

class SAGEConv : public Layer {
 public:
  // in, out > 0 (InvalidArgument otherwise); draws the weights from `generator`.
  SAGEConv(int64_t in_features, int64_t out_features, Generator& generator, bool bias = true);
  // x_source [num_cols, in], x_destination [num_rows, in] -> [num_rows, out].
  Tensor forward(const Adjacency& adjacency, const Tensor& x_source, const Tensor& x_destination);
  // A block's destinations are its first sources: x_source [num_sources, in].
  Tensor forward(const sampling::Block& block, const Tensor& x_source);
  // Full graph: x [N, in] is both sides.
  Tensor forward(const GraphInput& graph, const Tensor& x) override;
  int64_t in_features() const { return weight_root_.size(0); }
  int64_t out_features() const { return weight_root_.size(1); }

 private:
  Tensor weight_neighbours_;
  Tensor weight_root_;
  Tensor bias_;
};

}  // namespace sgnn::training
