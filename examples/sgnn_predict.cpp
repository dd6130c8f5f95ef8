// sgnn_predict: runs a trained model from its checkpoint alone on a dataset
// (the training graph or another one with the same feature width) and writes
// per node its predicted class and class probabilities, and/or its last
// hidden layer (training/prediction_run.hpp; layouts: docs/predictions.md).
//
//   train_gcn --dataset cora --checkpoint gcn.ckpt
//   sgnn_predict --checkpoint gcn.ckpt --dataset cora --predictions cora.csv
//   sgnn_predict --checkpoint gcn.ckpt --dataset my-graph --nodes new.txt
//                --predictions new.npy --embeddings new-embeddings.npy --device cuda
//   sgnn_predict --plugin libmy_model.so --checkpoint mine.ckpt --dataset cora --predictions mine.csv
// GCC 12 reports -Wnull-dereference inside CLI11's inlined string code (a
// false positive the system-header exemption misses).
#pragma GCC diagnostic ignored "-Wnull-dereference"
#include <CLI/CLI.hpp>

#include <cstdio>
#include <string>

#include "core/error.hpp"
#include "training/nn/model_plugin.hpp"
#include "training/prediction_run.hpp"

int main(int argc, char** argv) {
  using namespace sgnn;
  CLI::App app{"Predict with a trained model: per-node classes, class probabilities and embeddings from a "
               "checkpoint of sgnn_train (train_gcn, train_gat) or of any program training a registered model",
               "sgnn_predict"};
  training::PredictionOptions options;
  std::string parameters = "best";
  bool quiet = false;
  app.add_option("--checkpoint", options.checkpoint, "a checkpoint written by sgnn_train --checkpoint (or train_gcn, ...)")
      ->required()
      ->check(CLI::ExistingFile);
  app.add_option("--dataset", options.dataset,
                 "dataset name (cora, citeseer, ...: searched in $SGNN_DATA, ./data, ../shared/data) or a path; "
                 "any graph whose nodes have the model's feature width")
      ->required();
  app.add_option("--nodes", options.nodes,
                 "write only these nodes: a file of dataset node ids, one per line, in the order wanted (default: "
                 "every node by ascending id)")
      ->check(CLI::ExistingFile);
  app.add_option("--predictions", options.predictions,
                 "write per node its id, predicted class and class probabilities here (CSV, or NumPy when the name "
                 "ends in .npy)");
  app.add_option("--embeddings", options.embeddings, "write per node its id and last hidden layer here (CSV or .npy)");
  app.add_option("--device", options.device, "cpu, cuda or cuda:<k> (default cpu)");
  app.add_option("--cache", options.cache_dir, "directory of the prepared-adjacency cache (default: no cache)");
  app.add_option("--parameters", parameters,
                 "the checkpoint's parameters to use: best (the best validation epoch's, which training ends with "
                 "and reports the test accuracy of) or last (after the last epoch); default best")
      ->check(CLI::IsMember({"best", "last"}));
  app.add_flag("--quiet", quiet, "print nothing on success");
  std::vector<std::string> plugins;
  app.add_option("--plugin", plugins,
                 "a shared library registering the checkpoint's model kind, for a model defined outside the library "
                 "(linked against libsparsegnn.so; docs/extending.md); repeatable")
      ->check(CLI::ExistingFile);
  CLI11_PARSE(app, argc, argv);
  try {
    for (const std::string& plugin : plugins) training::load_model_plugin(plugin);
    options.parameters = training::parse_checkpoint_parameters(parameters);
    const training::PredictionReport report = training::run_prediction(options);
    if (!quiet) {
      std::printf("%s\n  parameters of epoch %lld (%s) of %lld trained\n",
                  report.summary.c_str(),
                  static_cast<long long>(report.parameters_epoch), parameters.c_str(),
                  static_cast<long long>(report.epochs));
      std::printf("  %s (%s): %lld nodes on %s, adjacency cache %s; wrote %lld nodes\n", report.dataset.c_str(),
                  report.dataset_source.c_str(), static_cast<long long>(report.nodes), report.device.c_str(),
                  report.cache_hit ? "hit" : "miss", static_cast<long long>(report.written));
      if (report.test_accuracy) {
        std::printf("  test accuracy %.4f on the dataset's %lld test nodes\n", *report.test_accuracy,
                    static_cast<long long>(report.test_nodes));
      }
    }
    return 0;
  } catch (const Error& error) {
    const std::string message = error.what();
    const bool unknown = message.find("unknown model") != std::string::npos;
    std::fprintf(stderr, "sgnn_predict: error: %s%s\n", message.c_str(),
                 unknown ? " (a model defined outside the library: load its registration with --plugin LIB.so)" : "");
    return 1;
  }
}
