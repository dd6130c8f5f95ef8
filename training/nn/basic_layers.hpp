// Layers without a graph: Dropout, ReLU, ELU, and Sequential to stack layers.
#pragma once

#include <memory>
#include <vector>

#include "core/generator.hpp"
#include "training/nn/layer.hpp"

namespace sgnn::training {

// Active in training mode only; masks from `generator` (must outlive the layer).
class Dropout : public Layer {
 public:
  Dropout(float probability, Generator& generator);  // probability in [0, 1), else InvalidArgument
  Tensor forward(const GraphInput& graph, const Tensor& x) override;
  float probability() const { return probability_; }

 private:
  float probability_;
  Generator* generator_;
};

class Relu : public Layer {
 public:
  Tensor forward(const GraphInput& graph, const Tensor& x) override;
};

class Elu : public Layer {
 public:
  explicit Elu(float alpha = 1.0f) : alpha_(alpha) {}
  Tensor forward(const GraphInput& graph, const Tensor& x) override;

 private:
  float alpha_;
};

// Runs its layers in order; submodule names are "0", "1", ...
class Sequential : public Layer {
 public:
  Sequential() = default;
  explicit Sequential(const std::vector<std::shared_ptr<Layer>>& layers);
  Sequential& append(std::shared_ptr<Layer> layer);
  Tensor forward(const GraphInput& graph, const Tensor& x) override;
  // Every layer but the last forward, the last one's forward_rows; cheaper
  // where the last layer's is (an empty Sequential: the rows of x).
  Tensor forward_rows(const GraphInput& graph, const Tensor& x, const Tensor& rows) override;
  bool forward_rows_is_cheaper() const override;
  // The layers [first, size()) only (first ≤ size(), InvalidArgument otherwise).
  Tensor forward_from(std::size_t first, const GraphInput& graph, const Tensor& x);
  std::size_t size() const { return layers_.size(); }
  const std::shared_ptr<Layer>& operator[](std::size_t index) const { return layers_.at(index); }

 private:
  std::vector<std::shared_ptr<Layer>> layers_;
};

}  // namespace sgnn::training
