// train_cora: GCN on Cora from a program outside the sparsegnn tree, through
// the installed package (find_package(sparsegnn)). Loads the dataset by name
// (or a path given as the first argument), prepares the normalised adjacency
// once, trains Kipf & Welling's GCN and prints the test accuracy at the best
// validation epoch. Exit status 0 when training ran, 1 on any error.
#include <cstdio>
#include <exception>
#include <string>

#include "graph_io/feature_transforms.hpp"
#include "graph_io/graph.hpp"
#include "graph_io/load_dataset.hpp"
#include "training/nn/models.hpp"
#include "training/optimizer.hpp"
#include "training/trainer.hpp"

int main(int argc, char** argv) {
  using namespace sgnn;
  try {
    const std::string name = argc > 1 ? argv[1] : "cora";
    const int64_t epochs = argc > 2 ? std::stoll(argv[2]) : 200;
    const graph_io::Dataset dataset = graph_io::load_dataset(name);
    const graph_io::Graph graph = graph_io::make_graph(dataset, graph_io::gcn_graph_options(), Device::cpu());

    Generator generator(0);
    const auto model = training::make_model(
        {.kind = "gcn", .in_features = graph.features.size(1), .classes = graph.num_classes}, generator);
    training::Adam optimizer(model->parameter_groups(5e-4f), ops::AdamHyperparameters{0.01f});

    training::TrainingData data;
    data.graph = training::GraphInput(graph);
    data.features = graph_io::normalize_feature_rows(graph.features);
    data.labels = graph.labels;
    data.train_index = graph.train_index;
    data.valid_index = graph.valid_index;
    data.test_index = graph.test_index;
    training::TrainerOptions options;
    options.epochs = epochs;
    training::Trainer trainer(*model, optimizer, data, options);
    const training::TrainResult result = trainer.fit();
    std::printf("GCN on %s: test accuracy %.3f at epoch %lld\n", name.c_str(), result.best.test.accuracy,
                static_cast<long long>(result.best_epoch));
    return 0;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "train_cora: %s\n", error.what());
    return 1;
  }
}
