// walkthrough: every step of docs/walkthrough.md, compiled and run by the CPU
// tier, so the docs cannot drift from the API. The regions between
// "// [walkthrough:NAME]" and "// [walkthrough:end]" are copied verbatim
// into the docs; tests/examples/check_walkthrough_docs.py checks that.
//
//   walkthrough [--dataset cora|<OGB folder>|<edge-list file>] [--epochs 30]
// Without --dataset it trains on a small synthetic graph (stochastic block
// model) written to a temporary folder in OGB's raw layout (its edges are
// also written as the 1-based edge list the load step reads). It checks what
// the docs promise (a cache hit on the second preparation, identical results
// after loading the checkpoint, the same test accuracy from the model rebuilt
// for predictions) and exits 1 when a promise does not hold.
// GCC 12 reports -Wnull-dereference inside CLI11's inlined string code (a
// false positive the system-header exemption misses).
#pragma GCC diagnostic ignored "-Wnull-dereference"
#include <CLI/CLI.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "core/error.hpp"
#include "graph_io/feature_transforms.hpp"
#include "graph_io/graph.hpp"
#include "graph_io/load_dataset.hpp"
#include "graph_io/ogb_writer.hpp"
#include "graph_io/readers/readers.hpp"
#include "graph_io/generators/synthetic_dataset.hpp"
#include "core/autograd.hpp"
#include "training/checkpoint.hpp"
#include "training/inference.hpp"
#include "training/metrics.hpp"
#include "training/nn/model_registry.hpp"
#include "training/nn/models.hpp"
#include "training/output/prediction_writer.hpp"
#include "training/optimizer.hpp"
#include "training/trainer.hpp"

using namespace sgnn;

namespace {

// A fresh folder for the generated dataset, the cache and the checkpoint.
std::filesystem::path make_work_folder() {
  std::string pattern = (std::filesystem::temp_directory_path() / "sgnn-walkthrough-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) throw IoError(pattern, 0, "cannot create a temporary folder");
  return pattern;
}

// The synthetic graph in OGB raw layout, and its edges as a 1-based edge list.
std::string write_synthetic_dataset(const std::filesystem::path& work) {
  graph_io::SyntheticOptions synthetic;
  synthetic.num_nodes = 400;
  synthetic.num_edges = 2400;
  synthetic.homophily = 0.9;
  synthetic.symmetric = true;
  synthetic.num_features = 32;
  synthetic.num_classes = 4;
  synthetic.seed = 3;
  const graph_io::Dataset generated = graph_io::generate_synthetic_dataset(synthetic);
  graph_io::write_ogb_dataset(generated, work / "synthetic");
  std::ofstream edges(work / "edges.txt");
  const auto sources = generated.edges.source.to_vector<int32_t>();
  const auto targets = generated.edges.target.to_vector<int32_t>();
  edges << "# source target, 1-based\n";
  for (std::size_t k = 0; k < sources.size(); ++k) edges << sources[k] + 1 << ' ' << targets[k] + 1 << '\n';
  if (!edges) throw IoError((work / "edges.txt").string(), 0, "cannot write");
  return (work / "synthetic").string();
}

int run(std::string name_or_path, int64_t epochs, const std::filesystem::path& work) {
  const std::string synthetic = write_synthetic_dataset(work);
  if (name_or_path.empty()) name_or_path = synthetic;
  const std::filesystem::path edge_file = work / "edges.txt";
  const std::string cache_dir = (work / "cache").string();

  // [walkthrough:load]
  // A bare name ("cora") is searched in $SGNN_DATA, ./data, the user data folder
  // (~/.local/share/sparsegnn) and the bundled datasets (Cora, Citeseer);
  // a folder is read as OGB's raw layout (edges, features, labels, splits);
  // a .mtx file as Matrix Market; any other file as an edge list.
  const graph_io::Dataset dataset = graph_io::load_dataset(name_or_path);
  std::printf("%s: %lld nodes, %lld edges, %lld classes\n", dataset.name.c_str(),
              static_cast<long long>(dataset.num_nodes()), static_cast<long long>(dataset.edges.num_edges()),
              static_cast<long long>(dataset.num_classes));

  // An edge list with options of its own gives the edges only.
  graph_io::EdgeListOptions edge_options;
  edge_options.one_based = true;
  const graph_io::Dataset edges_only = graph_io::read_edge_list(edge_file, edge_options);
  std::printf("%s: %lld edges\n", edge_file.c_str(), static_cast<long long>(edges_only.edges.num_edges()));
  // [walkthrough:end]

  // [walkthrough:prepare]
  // The adjacency GCN multiplies, D^-1/2 (A + Aᵀ + I) D^-1/2, built once on
  // the device (Device::cuda() for the GPU) and reused by every layer and
  // epoch. With a cache folder it is stored there and loaded on later runs.
  const Device device = Device::cpu();
  const graph_io::Graph graph = graph_io::make_graph(dataset, graph_io::gcn_graph_options(), device, cache_dir);
  const graph_io::Graph cached = graph_io::make_graph(dataset, graph_io::gcn_graph_options(), device, cache_dir);
  std::printf("prepared %lld non-zeros in %.1f ms; second time from the cache: %s (%.1f ms)\n",
              static_cast<long long>(graph.adjacency.nnz()), graph.statistics.prepare_ms,
              cached.statistics.cache_hit ? "yes" : "no", cached.statistics.prepare_ms);
  // [walkthrough:end]
  SGNN_CHECK(cached.statistics.cache_hit, "the second make_graph did not hit the cache");

  // [walkthrough:model]
  // A model of a registered kind (sgnn_train --list-models) from its
  // description: the input and output widths and any hyperparameters that
  // differ from the kind's defaults. Weights and dropout masks are drawn
  // from the generator: same seed, same run.
  Generator generator(0);
  const training::ModelDescription gcn{
      .kind = "gcn", .in_features = graph.features.size(1), .classes = graph.num_classes};
  const std::shared_ptr<training::Model> model = training::make_model(gcn, generator);
  model->to(device);

  // GAT attends over the unnormalised graph: each kind prepares its graph
  // as its registry entry says (model_entry("gat").graph).
  const graph_io::Graph gat_graph = graph_io::make_graph(dataset, training::model_entry("gat").graph, device);
  const std::shared_ptr<training::Model> gat_model = training::make_model(
      {.kind = "gat", .in_features = gat_graph.features.size(1), .classes = gat_graph.num_classes,
       .hyperparameters = {{"hidden", "8"}, {"heads", "8"}}},
      generator);
  gat_model->to(device);
  // [walkthrough:end]

  // [walkthrough:train]
  // Adam with weight decay on the first layer only (Kipf & Welling).
  training::Adam optimizer(model->parameter_groups(5e-4f), ops::AdamHyperparameters{0.01f});
  training::TrainingData data;
  data.graph = training::GraphInput(graph.adjacency);
  data.features = graph_io::normalize_feature_rows(graph.features);
  data.labels = graph.labels;
  data.train_index = graph.train_index;
  data.valid_index = graph.valid_index;
  data.test_index = graph.test_index;
  training::TrainerOptions options;
  options.epochs = epochs;
  options.patience = 0;  // > 0: stop after that many epochs without a better validation accuracy
  training::Trainer trainer(*model, optimizer, data, options);
  const training::TrainResult result = trainer.fit([](const training::EpochRecord& record) {
    if (record.epoch % 10 == 0) {
      std::printf("epoch %3lld  loss %.4f  validation accuracy %.3f\n", static_cast<long long>(record.epoch),
                  record.train_loss, record.validation_accuracy);
    }
  });

  // GAT trains the same way on its own graph and optimizer.
  training::Adam gat_optimizer(gat_model->parameter_groups(5e-4f), ops::AdamHyperparameters{0.005f});
  training::TrainingData gat_data = data;
  gat_data.graph = training::GraphInput(gat_graph.adjacency);
  training::Trainer gat_trainer(*gat_model, gat_optimizer, gat_data, options);
  const training::TrainResult gat_result = gat_trainer.fit();
  // [walkthrough:end]

  // [walkthrough:evaluate]
  // fit() restored the parameters of the best validation epoch; evaluate()
  // measures every split in evaluation mode (no dropout, no tape).
  const training::Evaluation evaluation = trainer.evaluate();
  std::printf("GCN, best epoch %lld: accuracy train %.3f, validation %.3f, test %.3f (macro-F1 %.3f)\n",
              static_cast<long long>(result.best_epoch), evaluation.train.accuracy,
              evaluation.validation.accuracy, evaluation.test.accuracy, evaluation.test.macro_f1);
  std::printf("GAT, best epoch %lld: test accuracy %.3f\n", static_cast<long long>(gat_result.best_epoch),
              gat_result.best.test.accuracy);
  // [walkthrough:end]

  // [walkthrough:checkpoint]
  // A checkpoint holds the parameters, the optimizer state, the trainer's
  // progress and the generator; it is written atomically.
  const std::filesystem::path checkpoint = work / "gcn.ckpt";
  training::save_checkpoint(checkpoint, *model, optimizer, trainer.state(), generator);

  // A model, optimizer and trainer of the same shape take everything back
  // (and a run resumed this way continues exactly where it stopped).
  Generator restored_generator(1);
  const std::shared_ptr<training::Model> restored = training::make_model(gcn, restored_generator);
  restored->to(device);
  training::Adam restored_optimizer(restored->parameter_groups(5e-4f), ops::AdamHyperparameters{0.01f});
  training::Trainer restored_trainer(*restored, restored_optimizer, data, options);
  training::load_checkpoint(checkpoint, *restored, restored_optimizer, restored_trainer, restored_generator);
  const training::Evaluation reloaded = restored_trainer.evaluate();
  std::printf("after loading %s: test accuracy %.3f\n", checkpoint.c_str(), reloaded.test.accuracy);
  // [walkthrough:end]
  SGNN_CHECK(reloaded.test.accuracy == evaluation.test.accuracy && reloaded.test.loss == evaluation.test.loss,
             "the reloaded model evaluates differently: test accuracy ", reloaded.test.accuracy, " vs ",
             evaluation.test.accuracy);
  SGNN_CHECK(restored_trainer.state().epoch == trainer.state().epoch, "the reloaded trainer is at epoch ",
             restored_trainer.state().epoch, ", expected ", trainer.state().epoch);

  // [walkthrough:predict]
  // The checkpoint describes its model: load_trained_model rebuilds it from
  // the file alone, with the best validation epoch's parameters, in
  // evaluation mode. The features go through the transform it was trained
  // with; the graph may be this one or another with the same feature width.
  const training::TrainedModel trained = training::load_trained_model(checkpoint);
  const Tensor inputs = graph_io::apply_feature_transform(graph.features, trained.description.feature_transform);
  const training::Predictions predictions = training::predict(*trained.model, data.graph, inputs);
  const Tensor embeddings = training::embed(*trained.model, data.graph, inputs);
  std::printf("%s\nnode 0: class %d; embeddings of %lld values per node\n",
              training::description_summary(trained.description).c_str(), predictions.classes.data<int32_t>()[0],
              static_cast<long long>(embeddings.size(1)));

  // Per node its id as in the dataset, class and probabilities: CSV, or
  // NumPy's .npy when the name ends so. Written atomically.
  const training::OutputRows rows = training::output_rows(graph.num_nodes, graph.node_order);
  training::write_predictions(work / "predictions.csv", predictions.probabilities, predictions.classes, rows);
  training::write_embeddings(work / "embeddings.npy", embeddings, rows);
  // [walkthrough:end]
  const double predicted_accuracy = [&] {
    const autograd::NoGradGuard no_grad;
    return training::evaluate_split(predictions.logits, graph.labels, graph.test_index).accuracy;
  }();
  SGNN_CHECK(predicted_accuracy == evaluation.test.accuracy, "the rebuilt model's test accuracy is ",
             predicted_accuracy, ", the trained model's ", evaluation.test.accuracy);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"The steps of docs/walkthrough.md: load, prepare and cache, build GCN and GAT, train, evaluate, "
               "save and load a checkpoint, predict",
               "walkthrough"};
  std::string dataset;
  int64_t epochs = 30;
  app.add_option("--dataset", dataset,
                 "a dataset name (cora), an OGB raw-layout folder or an edge-list file (default: a small "
                 "synthetic graph)");
  app.add_option("--epochs", epochs, "training epochs (default 30)");
  CLI11_PARSE(app, argc, argv);
  std::filesystem::path work;
  int status = 1;
  try {
    SGNN_CHECK(epochs >= 1, "--epochs must be at least 1, got ", epochs);
    work = make_work_folder();
    status = run(dataset, epochs, work);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "walkthrough: error: %s\n", error.what());
  }
  std::error_code ignored;
  if (!work.empty()) std::filesystem::remove_all(work, ignored);
  return status;
}
