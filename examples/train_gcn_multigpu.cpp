// Full-graph GCN or GAT training on several GPUs of this host with NCCL (one
// thread per GPU, see distributed/; one process per GPU: train_gcn_distributed). Prints the loss per epoch and the final
// metrics; --print-json prints one JSON object instead. The models whose
// layers run on row partitions: gcn and gat (docs/distributed.md); their
// flags come from the model registry (examples/model_flags.hpp).
//
//   train_gcn_multigpu --dataset /data/products-scale --gpus 2 --hidden 256 --epochs 100
//
// NCCL is loaded at run time: put libnccl.so.2 on LD_LIBRARY_PATH or set
// SGNN_NCCL_LIBRARY (the error message says what was tried).
// GCC 12 reports -Wnull-dereference inside CLI11's inlined string code (a
// false positive in the library's split()), as in the other programs.
#pragma GCC diagnostic ignored "-Wnull-dereference"
#include <CLI/CLI.hpp>

#include <cstdio>
#include <iostream>

#include "distributed/multi_gpu_training.hpp"
#include "graph_io/feature_transforms.hpp"
#include "graph_io/load_dataset.hpp"
#include "examples/model_flags.hpp"
#include "training/output/json.hpp"

using namespace sgnn;

namespace {

struct Options {
  std::string dataset;
  int gpus = 2;
  std::string halo = "auto";
  std::string cache_dir;
  bool row_normalize = true;
  bool print_json = false;
  std::map<std::string, std::string> hyperparameters;  // given on the command line
  distributed::MultiGpuOptions training;
};

// The registered models this program trains: those whose layers run on row partitions.
const std::vector<std::string> kRowPartitionModels{"gcn", "gat"};

std::string json_report(const std::string& dataset, const graph_io::Graph& graph, const Options& options,
                        const distributed::MultiGpuResult& result) {
  training::JsonWriter json;
  json.begin_object();
  json.field("dataset", dataset).field("nodes", graph.num_nodes).field("edges", graph.adjacency.nnz());
  json.field("gpus", int64_t{options.gpus}).field("model", options.training.model);
  json.field("hidden", training::integer_value(options.training.hyperparameters.at("hidden"), "hidden", ""));
  json.key("hyperparameters").begin_object();
  for (const auto& [name, value] : options.training.hyperparameters) json.field(name, value);
  json.end_object();
  json.field("precision", training::precision_name(options.training.precision));
  json.field("halo", distributed::halo_mode_name(result.halo)).field("nccl", result.nccl_version);
  json.key("rank_rows").begin_array();
  for (const int64_t rows : result.rank_rows) json.value(rows);
  json.end_array().key("rank_halo").begin_array();
  for (const int64_t rows : result.rank_halo) json.value(rows);
  json.end_array().key("epochs").begin_array();
  for (std::size_t i = 0; i < result.epochs.size(); ++i) {
    json.begin_object()
        .field("epoch", result.epochs[i].epoch)
        .field("train_loss", result.epochs[i].train_loss)
        .field("epoch_ms", result.epochs[i].epoch_ms)
        .field("bytes", result.epoch_bytes[i])
        .end_object();
  }
  json.end_array();
  json.field("train_accuracy", result.final.train.accuracy)
      .field("validation_accuracy", result.final.validation.accuracy)
      .field("test_accuracy", result.final.test.accuracy)
      .field("test_macro_f1", result.final.test.macro_f1);
  json.end_object();
  return json.str();
}

int run(Options& options) {
  const graph_io::Dataset dataset = graph_io::load_dataset(options.dataset);
  options.training.hyperparameters = training::resolve_hyperparameters(training::model_entry(options.training.model),
                                                                       dataset.name, options.hyperparameters);
  graph_io::Graph graph = graph_io::make_graph(dataset, graph_io::gcn_graph_options(), Device::cpu(), options.cache_dir);
  if (options.row_normalize) graph.features = graph_io::normalize_feature_rows(graph.features);
  distributed::MultiGpuOptions training = options.training;
  training.devices = distributed::first_devices(options.gpus);
  training.halo = distributed::parse_halo_mode(options.halo);
  if (!options.print_json) {
    std::printf("%s: %lld nodes, %lld edges, %lld features, %lld classes; %d GPUs\n", dataset.name.c_str(),
                static_cast<long long>(graph.num_nodes), static_cast<long long>(graph.adjacency.nnz()),
                static_cast<long long>(graph.features.size(1)), static_cast<long long>(graph.num_classes),
                options.gpus);
  }
  const auto progress = [&](const distributed::MultiGpuEpoch& epoch) {
    if (!options.print_json) {
      std::printf("epoch %4lld  loss %.4f  %.1f ms\n", static_cast<long long>(epoch.epoch), epoch.train_loss,
                  epoch.epoch_ms);
      std::fflush(stdout);
    }
  };
  const distributed::MultiGpuResult result = distributed::train_gcn_multi_gpu(graph, training, progress);
  if (options.print_json) {
    std::cout << json_report(dataset.name, graph, options, result) << "\n";
    return 0;
  }
  std::printf("NCCL %s, halo %s, partition %.0f ms; rows/halo per GPU:", result.nccl_version.c_str(),
              distributed::halo_mode_name(result.halo), result.partition_ms);
  for (std::size_t r = 0; r < result.rank_rows.size(); ++r) {
    std::printf(" %lld/%lld", static_cast<long long>(result.rank_rows[r]), static_cast<long long>(result.rank_halo[r]));
  }
  std::printf("\ncommunication %.1f MB per epoch\n",
              static_cast<double>(result.epoch_bytes.empty() ? 0 : result.epoch_bytes.back()) / 1e6);
  std::printf("final: train accuracy %.4f, validation accuracy %.4f, test accuracy %.4f (macro-F1 %.4f)\n",
              result.final.train.accuracy, result.final.validation.accuracy, result.final.test.accuracy,
              result.final.test.macro_f1);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("Full-graph GCN/GAT training on several GPUs of one host (NCCL, one thread per GPU); the models whose "
               "layers run on row partitions: gcn and gat");
  Options options;
  app.add_option("--dataset", options.dataset, "dataset name or path (as train_gcn)")->required();
  app.add_option("--gpus", options.gpus, "GPUs to use, cuda:0 .. cuda:N-1 (default 2)")->check(CLI::Range(1, 64));
  options.training.model = examples::requested_model(argc, argv, "gcn");
  examples::add_model_option(app, options.training.model, kRowPartitionModels,
                             "the models whose layers run on row partitions (docs/distributed.md)");
  if (const training::ModelEntry* entry = training::find_model_entry(options.training.model)) {
    examples::add_model_flags(app, *entry, options.hyperparameters, {"patience", "monitor"});  // every epoch runs
  }
  app.add_option("--seed", options.training.seed, "seed of the initial weights and dropout (default 0)");
  app.add_option("--halo", options.halo, "halo exchange: auto, sendrecv or allgather (default auto: by size)")
      ->check(CLI::IsMember({"auto", "sendrecv", "allgather"}));
  app.add_option("--cache", options.cache_dir, "directory of the prepared-adjacency cache (default: no cache)");
  app.add_flag_function("--no-row-normalize", [&options](int64_t) { options.row_normalize = false; },
                        "use the features as stored (default: rows scaled to sum 1)");
  app.add_option_function<std::string>(
         "--precision",
         [&options](const std::string& value) { options.training.precision = training::parse_precision(value); },
         "fp32, or bf16 for mixed precision: bfloat16 activations and gradients, float32 master weights (default fp32)")
      ->check(CLI::IsMember({"fp32", "bf16"}));
  app.add_flag("--print-json", options.print_json, "print the results as one JSON object");
  CLI11_PARSE(app, argc, argv);
  try {
    return run(options);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "error: %s\n", error.what());
    return 1;
  }
}
