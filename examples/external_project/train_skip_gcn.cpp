// train_skip_gcn: trains the skip-gcn model (skip_gcn_model.cpp, linked in:
// its registration runs when the program starts) through the library's
// experiment, the engine of sgnn_train; saves the final checkpoint and the
// trained model's predictions, then predicts again from the checkpoint alone.
//   train_skip_gcn DATASET EPOCHS CHECKPOINT PREDICTIONS
// Exit status 0 when both ran, 1 on any error.
#include <cstdio>
#include <exception>
#include <string>

#include "training/experiment.hpp"
#include "training/prediction_run.hpp"

int main(int argc, char** argv) {
  using namespace sgnn;
  if (argc != 5) {
    std::fprintf(stderr, "usage: train_skip_gcn DATASET EPOCHS CHECKPOINT PREDICTIONS\n");
    return 1;
  }
  const std::string dataset = argv[1];
  const std::string epochs = argv[2];
  const std::string checkpoint = argv[3];
  const std::string predictions = argv[4];
  try {
    // [extending:train]
    // What `sgnn_train --plugin libskip_gcn.so --model skip-gcn --dataset cora
    // --epochs 100 --hidden 32 --checkpoint skip.ckpt --predictions skip.csv` runs.
    training::ExperimentOptions options;
    options.model = "skip-gcn";
    options.dataset = dataset;
    options.hyperparameters = {{"epochs", epochs}, {"hidden", "32"}};  // the others: the entry's defaults
    options.checkpoint = checkpoint;    // the model (with its description), optimizer and progress
    options.predictions = predictions;  // per node its class and probabilities, from the best epoch's parameters
    const training::ExperimentResult result = training::run_experiment(options);
    std::printf("%s on %s: test accuracy %.3f\n", result.model.c_str(), result.dataset.c_str(),
                result.test_accuracy);
    // [extending:end]

    // [extending:predict]
    // What `sgnn_predict --plugin libskip_gcn.so --checkpoint skip.ckpt --dataset cora
    // --predictions again.csv` runs: the checkpoint alone rebuilds the model.
    training::PredictionOptions prediction;
    prediction.checkpoint = checkpoint;
    prediction.dataset = dataset;
    prediction.predictions = predictions + ".again.csv";
    const training::PredictionReport report = training::run_prediction(prediction);
    std::printf("%s: test accuracy %.3f from the checkpoint\n",
                training::description_summary(report.description).c_str(), report.test_accuracy.value_or(0.0));
    // [extending:end]
    return 0;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "train_skip_gcn: %s\n", error.what());
    return 1;
  }
}
