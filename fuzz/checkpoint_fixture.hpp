// A tiny training run (4-node ring, GCN 2 -> 3 -> 2, Adam) for the checkpoint
// fuzz target and its seeds: what load_checkpoint needs to receive a file.
#pragma once

#include <memory>

#include "graph_io/graph.hpp"
#include "graph_io/prepare.hpp"
#include "training/checkpoint.hpp"

namespace sgnn::fuzz {

// The fixtures' task: a directed 4-node ring, 2 features and 2 classes a
// node, nodes 0 and 1 to train on and 2 and 3 to validate.
inline graph_io::EdgeList ring_edges() {
  graph_io::EdgeList edges;
  edges.num_nodes = 4;
  edges.source = Tensor::from_vector(std::vector<int32_t>{0, 1, 2, 3}, {4});
  edges.target = Tensor::from_vector(std::vector<int32_t>{1, 2, 3, 0}, {4});
  return edges;
}
inline Tensor ring_features() { return Tensor::from_vector(std::vector<float>{1, 0, 0, 1, 1, 1, 0, 0}, {4, 2}); }
inline Tensor ring_labels() { return Tensor::from_vector(std::vector<int32_t>{0, 1, 1, 0}, {4}); }
inline Tensor ring_train_nodes() { return Tensor::from_vector(std::vector<int32_t>{0, 1}, {2}); }
inline Tensor ring_valid_nodes() { return Tensor::from_vector(std::vector<int32_t>{2, 3}, {2}); }

struct CheckpointFixture {
  explicit CheckpointFixture(uint64_t seed)
      : adjacency(std::make_shared<Adjacency>(ring())),
        generator(seed),
        model(training::make_model({.kind = "gcn", .in_features = 2, .classes = 2, .hyperparameters = {{"hidden", "3"}}},
                                   generator)),
        optimizer(model->parameter_groups(5e-4f)),
        trainer(*model, optimizer, data(*adjacency), options()) {}

  void load(const std::filesystem::path& file) { training::load_checkpoint(file, *model, optimizer, trainer, generator); }
  void save(const std::filesystem::path& file) const {
    training::save_checkpoint(file, *model, optimizer, trainer.state(), generator);
  }

  std::shared_ptr<Adjacency> adjacency;  // the trainer's graph points into it
  Generator generator;
  std::shared_ptr<training::Model> model;
  training::Adam optimizer;
  training::Trainer trainer;

 private:
  static Adjacency ring() { return graph_io::prepare_adjacency(ring_edges(), graph_io::gcn_graph_options().prepare); }
  static training::TrainingData data(const Adjacency& graph) {
    training::TrainingData d;
    d.graph = training::GraphInput(graph);
    d.features = ring_features();
    d.labels = ring_labels();
    d.train_index = ring_train_nodes();
    d.valid_index = ring_valid_nodes();
    return d;
  }
  static training::TrainerOptions options() {
    training::TrainerOptions o;
    o.epochs = 4;
    o.patience = 2;
    return o;
  }
};

}  // namespace sgnn::fuzz
