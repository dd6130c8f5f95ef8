// The mini-batch GraphSAGE settings the Cora accuracy tests train with
// (CPU tier and GPU tier): 2 layers of 128, fanouts 10,10, batches of 32
// of the 140 training nodes, 10 epochs, Adam lr 0.01 with weight decay
// 5e-4, row-normalised features; evaluated on validation and test.
#pragma once

#include <doctest/doctest.h>

#include "graph_io/dataset_locations.hpp"
#include "training/minibatch_experiment.hpp"

namespace sgnn::testing {

inline training::MinibatchOptions cora_minibatch_options() {
  const std::optional<std::filesystem::path> bundled = graph_io::bundled_dataset_folder();
  REQUIRE(bundled.has_value());
  training::MinibatchOptions options;
  options.dataset = (*bundled / "cora").string();
  options.row_normalize_features = true;
  options.fanouts = {10, 10};
  options.batch_size = 32;
  options.hidden = 128;
  options.learning_rate = 0.01f;
  options.weight_decay = 5e-4f;
  options.epochs = 10;
  options.evaluate_train = false;
  return options;
}

}  // namespace sgnn::testing
