#include "training/nn/basic_layers.hpp"

#include <string>

#include "ops/activation.hpp"
#include "ops/dropout.hpp"
#include "ops/gather_scatter.hpp"

namespace sgnn::training {

Dropout::Dropout(float probability, Generator& generator) : probability_(probability), generator_(&generator) {
  SGNN_CHECK(probability >= 0.0f && probability < 1.0f, "Dropout: probability must be in [0, 1), got ",
             probability);
}

Tensor Dropout::forward(const GraphInput&, const Tensor& x) {
  return ops::dropout(x, probability_, is_training(), *generator_);
}

Tensor Relu::forward(const GraphInput&, const Tensor& x) { return ops::relu(x); }

Tensor Elu::forward(const GraphInput&, const Tensor& x) { return ops::elu(x, alpha_); }

Sequential::Sequential(const std::vector<std::shared_ptr<Layer>>& layers) {
  for (const auto& layer : layers) append(layer);
}

Sequential& Sequential::append(std::shared_ptr<Layer> layer) {
  register_module(std::to_string(layers_.size()), layer);
  layers_.push_back(std::move(layer));
  return *this;
}

Tensor Sequential::forward(const GraphInput& graph, const Tensor& x) { return forward_from(0, graph, x); }

Tensor Sequential::forward_rows(const GraphInput& graph, const Tensor& x, const Tensor& rows) {
  if (layers_.empty()) return ops::gather_rows(x, rows);
  Tensor y = x;
  for (std::size_t i = 0; i + 1 < layers_.size(); ++i) y = layers_[i]->forward(graph, y);
  return layers_.back()->forward_rows(graph, y, rows);
}

bool Sequential::forward_rows_is_cheaper() const {
  return !layers_.empty() && layers_.back()->forward_rows_is_cheaper();
}

Tensor Sequential::forward_from(std::size_t first, const GraphInput& graph, const Tensor& x) {
  SGNN_CHECK(first <= layers_.size(), "Sequential: cannot start at layer ", first, " of ", layers_.size());
  Tensor y = x;
  for (std::size_t i = first; i < layers_.size(); ++i) y = layers_[i]->forward(graph, y);
  return y;
}

}  // namespace sgnn::training
