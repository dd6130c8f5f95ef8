// MaxBlockModel: a model for mini-batch training defined outside the library
// (docs/extending.md, section 7). Per layer, over a sampled block,
//   out = x_destination·W_root + b + (max over the sampled sources of x_source)·W_neighbours,
// ReLU and dropout between layers. It composes the library's ops and
// launches nothing itself; the unit tests train it too.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ops/activation.hpp"
#include "ops/dropout.hpp"
#include "ops/elementwise.hpp"
#include "ops/gspmm.hpp"
#include "sampling/destination_rows.hpp"
#include "training/block_model.hpp"
#include "training/nn/linear.hpp"

namespace max_block {

// [extending:block_model]
class MaxBlockModel : public sgnn::training::BlockModel {
 public:
  MaxBlockModel(const sgnn::training::BlockModelConfig& config, sgnn::Generator& generator)
      : config_(config), generator_(&generator) {
    int64_t width = config.in_features;
    for (int64_t layer = 0; layer < config.layers; ++layer) {
      const int64_t out = out_width(layer);
      const std::string name = std::to_string(layer);
      roots_.push_back(register_module("root" + name, std::make_shared<sgnn::training::Linear>(width, out, generator)));
      neighbours_.push_back(register_module(
          "neighbours" + name, std::make_shared<sgnn::training::Linear>(width, out, generator, /*bias=*/false)));
      width = out;
    }
  }

  // One layer per block; a block's destinations are its first sources.
  sgnn::Tensor forward(const std::vector<sgnn::sampling::Block>& blocks, const sgnn::Tensor& x) override {
    sgnn::Tensor h = x;
    for (int64_t layer = 0; layer < num_layers(); ++layer) {
      const sgnn::sampling::Block& block = blocks[static_cast<std::size_t>(layer)];
      h = layer_forward(layer, block.adjacency, h, sgnn::sampling::destination_rows(h, block.num_destinations()));
      if (layer + 1 < num_layers()) h = sgnn::ops::dropout(h, config_.dropout, is_training(), *generator_);
    }
    return h;
  }

  // Also what layer-wise inference runs, on rows of the whole graph.
  sgnn::Tensor layer_forward(int64_t layer, const sgnn::Adjacency& adjacency, const sgnn::Tensor& x_source,
                             const sgnn::Tensor& x_destination) override {
    const auto k = static_cast<std::size_t>(layer);
    const sgnn::Tensor neighbours = sgnn::ops::aggregate(adjacency, x_source, sgnn::ops::ReduceKind::Max);
    const sgnn::Tensor out = sgnn::ops::add(roots_[k]->forward(x_destination), neighbours_[k]->forward(neighbours));
    return layer + 1 < num_layers() ? sgnn::ops::relu(out) : out;
  }

  int64_t num_layers() const override { return config_.layers; }
  int64_t in_features() const override { return config_.in_features; }
  int64_t out_width(int64_t layer) const override {
    return layer + 1 < config_.layers ? config_.hidden : config_.classes;
  }

 private:
  sgnn::training::BlockModelConfig config_;
  sgnn::Generator* generator_;
  std::vector<std::shared_ptr<sgnn::training::Linear>> roots_, neighbours_;
};
// [extending:end]

}  // namespace max_block
