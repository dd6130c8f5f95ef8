// SAGEConv (Hamilton et al. 2017), PyG's SAGEConv with a root weight:
//   mean      out_i = W_neighbours · mean_{j in N(i)} x_j + W_root · x_i + b
//   max-pool  out_i = W_neighbours · max_{j in N(i)} ReLU(W_pool · x_j + b_pool)
//                     + W_root · x_i + b
//             (PyG's SAGEConv(project=True, aggr="max"), the paper's pooling
//             aggregator; max per feature)
// The aggregation is ops::aggregate over the adjacency's pattern (its
// stored values are not read): a sampled Block (sampling/block.hpp), rows
// of the whole graph (sampling::neighbourhood_rows, layer-wise inference),
// or a full graph, where forward(GraphInput, x) aggregates over
// graph.adjacency_in({Normalization::None, SelfLoops::Remove}) (prepare the
// graph so, as the sage model does, and nothing is derived). A row without entries aggregates to 0. Mean on a square
// adjacency with out < in applies W_neighbours first (mean is linear), so
// the aggregation moves min(in, out) features per edge; otherwise (a
// block's fewer destinations, max-pool) the aggregation comes first.
// Weights [in, out] (W_pool [in, in]) Glorot uniform, biases zeros. In
// BFloat16 precision x and the result are bfloat16 and the products use the
// weights' bfloat16 copies (ops::matmul_weight); the biases stay float32.
#pragma once

#include <string>

#include "core/generator.hpp"
#include "sampling/block.hpp"
#include "training/nn/layer.hpp"

namespace sgnn::training {

enum class SAGEAggregator : unsigned char { Mean, MaxPool };
// "mean" | "max-pool" (InvalidArgument otherwise), and back.
SAGEAggregator parse_sage_aggregator(const std::string& text);
const char* sage_aggregator_name(SAGEAggregator aggregator);

struct SAGEOptions {
  SAGEAggregator aggregator = SAGEAggregator::Mean;
  bool bias = true;
};

class SAGEConv : public Layer {
 public:
  // in, out > 0 (InvalidArgument otherwise); draws the weights from `generator`.
  SAGEConv(int64_t in_features, int64_t out_features, Generator& generator, SAGEOptions options = {});
  // x_source [num_cols, in], x_destination [num_rows, in] -> [num_rows, out].
  Tensor forward(const Adjacency& adjacency, const Tensor& x_source, const Tensor& x_destination);
  // A block's destinations are its first sources: x_source [num_sources, in].
  Tensor forward(const sampling::Block& block, const Tensor& x_source);
  // Full graph: x [N, in] is both sides.
  Tensor forward(const GraphInput& graph, const Tensor& x) override;
  int64_t in_features() const { return weight_root_.size(0); }
  int64_t out_features() const { return weight_root_.size(1); }
  SAGEAggregator aggregator() const { return aggregator_; }

 private:
  SAGEAggregator aggregator_;
  Tensor weight_neighbours_;
  Tensor weight_root_;
  Tensor bias_;
  Tensor pool_weight_;  // max-pool only
  Tensor pool_bias_;
};

}  // namespace sgnn::training
