// train_max_block: trains MaxBlockModel (max_block_model.hpp), a model of
// this project's own, on sampled neighbourhoods through the library's
// mini-batch experiment (the engine of `sgnn_train --batch-size`), then
// prints its full-neighbour test accuracy.
//   train_max_block DATASET EPOCHS
// Exit status 0 when it ran, 1 on any error.
#include <cstdio>
#include <exception>
#include <string>

#include "max_block_model.hpp"
#include "training/minibatch_experiment.hpp"

int main(int argc, char** argv) {
  using namespace sgnn;
  if (argc != 3) {
    std::fprintf(stderr, "usage: train_max_block DATASET EPOCHS\n");
    return 1;
  }
  try {
    // [extending:minibatch]
    training::MinibatchOptions options;
    options.model = "max-block";  // for the reports
    options.dataset = argv[1];
    options.epochs = std::stoll(argv[2]);
    options.fanouts = {10, 10};   // one layer per hop
    options.batch_size = 32;
    options.hidden = 128;
    options.learning_rate = 0.01f;
    options.weight_decay = 5e-4f;
    options.row_normalize_features = true;
    const training::MinibatchResult result = training::run_minibatch_experiment(
        options, [](const training::BlockModelConfig& config, Generator& generator) {
          return std::make_unique<max_block::MaxBlockModel>(config, generator);
        });
    std::printf("%s (mini-batch) on %s: test accuracy %.3f\n", options.model.c_str(), result.dataset.c_str(),
                result.test_accuracy);
    // [extending:end]
    return 0;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "train_max_block: %s\n", error.what());
    return 1;
  }
}
