// Multi-GPU full-graph GCN training against one GPU: epoch time (median over
// the timed epochs, after warm-up), communication bytes per epoch (counted by
// the communicators), speedup and scaling efficiency (speedup / GPUs).
//
//   bench_multigpu --dataset /tmp/d/products-scale --gpus 2 --hidden 256 [--model gat] [--markdown FILE]
//
// The model flags are the registry's (examples/model_flags.hpp), but for
// --epochs, here the timed epochs, and --hidden, whose default here is 256.
// One GPU runs the library's ordinary single-device step (model.forward,
// cross entropy, backward, Adam); N GPUs run distributed::train_gcn_multi_gpu.
// GCC 12 reports -Wnull-dereference inside CLI11's inlined string code (a
// false positive in the library's split()), as in the other programs.
#pragma GCC diagnostic ignored "-Wnull-dereference"
#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>

#include "core/memory.hpp"
#include "distributed/multi_gpu_training.hpp"
#include "graph_io/load_dataset.hpp"
#include "ops/loss.hpp"
#include "examples/model_flags.hpp"
#include "training/experiment.hpp"
#include "training/nn/models.hpp"
#include "training/trainer.hpp"

using namespace sgnn;

namespace {

const std::vector<std::string> kRowPartitionModels{"gcn", "gat"};

struct Options {
  std::string dataset;
  int gpus = 2;
  std::string model = "gcn";
  std::map<std::string, std::string> hyperparameters{{"hidden", "256"}};  // resolved in run()
  int64_t epochs = 20;
  int64_t warmup = 3;
  std::string halo = "auto";
  std::string cache_dir;
  std::string markdown;
};

// Median epoch time of the ordinary single-GPU training step on cuda:0.
double single_gpu_epoch_ms(const graph_io::Graph& host_graph, const Options& options) {
  const Device device = Device::cuda(0);
  const Adjacency adjacency = host_graph.adjacency.to(device);
  const Tensor features = host_graph.features.to(device);
  const Tensor labels = host_graph.labels.to(device);
  const Tensor train_index = host_graph.train_index.to(device);
  Generator generator(0);
  const training::ModelDescription description =
      training::describe_model(training::model_entry(options.model), features.size(1), host_graph.num_classes,
                               options.hyperparameters, graph_io::FeatureTransform::None, training::Precision::Fp32);
  const training::TrainingSettings settings = training::training_settings(options.hyperparameters);
  const auto model = training::make_model(description, generator);
  model->to(device);
  ops::AdamHyperparameters adam;
  adam.learning_rate = settings.learning_rate;
  training::Adam optimizer(model->parameter_groups(settings.weight_decay), adam);
  const training::GraphInput graph(adjacency);
  std::vector<double> times;
  for (int64_t epoch = 0; epoch < options.warmup + options.epochs; ++epoch) {
    const auto start = std::chrono::steady_clock::now();
    optimizer.zero_grad();
    const Tensor loss = ops::cross_entropy(model->forward(graph, features), labels, train_index);
    loss.backward();
    optimizer.step();
    (void)loss.item();
    memory::synchronize(device);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (epoch >= options.warmup) times.push_back(ms);
  }
  return training::median(times);
}

int run(Options& options) {
  const graph_io::Dataset dataset = graph_io::load_dataset(options.dataset);
  options.hyperparameters =
      training::resolve_hyperparameters(training::model_entry(options.model), dataset.name, options.hyperparameters);
  const graph_io::Graph graph =
      graph_io::make_graph(dataset, graph_io::gcn_graph_options(), Device::cpu(), options.cache_dir);
  const double one_gpu_ms = single_gpu_epoch_ms(graph, options);

  distributed::MultiGpuOptions training;
  training.devices = distributed::first_devices(options.gpus);
  training.model = options.model;
  training.hyperparameters = options.hyperparameters;
  training.hyperparameters["epochs"] = std::to_string(options.warmup + options.epochs);
  training.halo = distributed::parse_halo_mode(options.halo);
  const distributed::MultiGpuResult result = distributed::train_gcn_multi_gpu(graph, training);
  std::vector<double> times;
  for (const distributed::MultiGpuEpoch& epoch : result.epochs) {
    if (epoch.epoch > options.warmup) times.push_back(epoch.epoch_ms);
  }
  const double n_gpu_ms = training::median(times);
  const double speedup = one_gpu_ms / n_gpu_ms;
  int64_t halo_rows = 0;
  for (const int64_t rows : result.rank_halo) halo_rows += rows;

  char line[1024];
  std::string table;
  std::snprintf(line, sizeof line,
                "# %s: %lld nodes, %lld non-zeros, %lld features, hidden %lld; NCCL %s; median of %lld epochs after "
                "%lld warm-up\n\n",
                dataset.name.c_str(), static_cast<long long>(graph.num_nodes),
                static_cast<long long>(graph.adjacency.nnz()), static_cast<long long>(graph.features.size(1)),
                static_cast<long long>(training::integer_value(options.hyperparameters.at("hidden"), "hidden", "")),
                result.nccl_version.c_str(),
                static_cast<long long>(options.epochs), static_cast<long long>(options.warmup));
  table += line;
  std::snprintf(line, sizeof line,
                "| graph | GPUs | halo | halo rows (all GPUs) | epoch ms, 1 GPU | epoch ms, %d GPUs | speedup | efficiency "
                "| comm MB/epoch |\n|---|---|---|---|---|---|---|---|---|\n",
                options.gpus);
  table += line;
  std::snprintf(line, sizeof line, "| %s | %d | %s | %lld | %.1f | %.1f | %.2fx | %.0f%% | %.1f |\n",
                dataset.name.c_str(), options.gpus, distributed::halo_mode_name(result.halo),
                static_cast<long long>(halo_rows), one_gpu_ms, n_gpu_ms, speedup, 100.0 * speedup / options.gpus,
                static_cast<double>(result.epoch_bytes.empty() ? 0 : result.epoch_bytes.back()) / 1e6);
  table += line;
  std::fputs(table.c_str(), stdout);
  if (!options.markdown.empty()) {
    std::ofstream file(options.markdown);
    file << table;
    SGNN_CHECK(file.good(), "bench_multigpu: cannot write ", options.markdown);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("Multi-GPU GCN or GAT training (NCCL) against one GPU: epoch time, communication, scaling; "
               "--hidden defaults to 256 here");
  Options options;
  app.add_option("--dataset", options.dataset, "dataset name or path")->required();
  app.add_option("--gpus", options.gpus, "GPUs of the distributed run (default 2)")->check(CLI::Range(2, 64));
  options.model = examples::requested_model(argc, argv, "gcn");
  examples::add_model_option(app, options.model, kRowPartitionModels,
                             "the models whose layers run on row partitions (docs/distributed.md)");
  if (const training::ModelEntry* entry = training::find_model_entry(options.model)) {
    examples::add_model_flags(app, *entry, options.hyperparameters, {"epochs", "patience", "monitor"});
  }
  app.add_option("--epochs", options.epochs, "timed epochs (default 20)")->check(CLI::PositiveNumber);
  app.add_option("--warmup", options.warmup, "untimed epochs first (default 3)")->check(CLI::NonNegativeNumber);
  app.add_option("--halo", options.halo, "auto, sendrecv or allgather (default auto)")
      ->check(CLI::IsMember({"auto", "sendrecv", "allgather"}));
  app.add_option("--cache", options.cache_dir, "directory of the prepared-adjacency cache");
  app.add_option("--markdown", options.markdown, "also write the table to this file");
  CLI11_PARSE(app, argc, argv);
  try {
    return run(options);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "error: %s\n", error.what());
    return 1;
  }
}
