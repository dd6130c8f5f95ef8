#include "training/nn/sg_conv.hpp"

#include "ops/gather_scatter.hpp"

namespace sgnn::training {

SGConv::SGConv(int64_t in_features, int64_t out_features, int64_t hops, Generator& generator, bool bias)
    : hops_(hops) {
  SGNN_CHECK(hops >= 1, "SGConv: hops (K) must be at least 1, got ", hops);
  linear_ = std::make_shared<Linear>(in_features, out_features, generator, bias);
  register_module("linear", linear_);
}

Tensor SGConv::propagated(const GraphInput& graph, const Tensor& x) {
  const Adjacency& adjacency = graph.graph();
  SGNN_CHECK(x.size(0) == adjacency.num_cols(), "SGConv: x has ", x.size(0), " rows, the graph has ",
             adjacency.num_cols(), " nodes");
  const bool same = cached_.defined() && x.shares_storage_with(cached_input_) &&
                    x.raw_data() == cached_input_.raw_data() && x.shape() == cached_input_.shape() &&
                    x.dtype() == cached_input_.dtype() && adjacency.csr.indptr.shares_storage_with(cached_indptr_);
  if (same && !x.requires_grad()) return cached_;
  Tensor h = x;
  for (int64_t hop = 0; hop < hops_; ++hop) h = graph.aggregate(h);
  if (x.requires_grad()) return h;  // a differentiable input: no cache, the tape holds what backward needs
  cached_ = h;
  cached_input_ = x;
  cached_indptr_ = adjacency.csr.indptr;
  return cached_;
}

Tensor SGConv::forward(const GraphInput& graph, const Tensor& x) {
  check_layer_input(x, linear_->weight().size(0), "SGConv");
  return linear_->forward(propagated(graph, x));
}

Tensor SGConv::forward_rows(const GraphInput& graph, const Tensor& x, const Tensor& rows) {
  check_layer_input(x, linear_->weight().size(0), "SGConv");
  const Tensor all = propagated(graph, x);
  if (x.requires_grad()) return linear_->forward(ops::gather_rows(all, rows));  // the gradient flows through the gather
  const bool same = selected_.defined() && rows.shares_storage_with(selected_rows_) &&
                    rows.raw_data() == selected_rows_.raw_data() && rows.shape() == selected_rows_.shape() &&
                    all.shares_storage_with(selected_from_);
  if (!same) {
    selected_ = ops::gather_rows(all, rows);
    selected_rows_ = rows;
    selected_from_ = all;
  }
  return linear_->forward(selected_);
}

}  // namespace sgnn::training
