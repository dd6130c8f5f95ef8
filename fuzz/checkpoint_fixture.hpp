// A tiny training run (4-node ring, GCN 2 -> 3 -> 2, Adam) for the checkpoint
// fuzz target and its seeds: what load_checkpoint needs to receive a file.
#pragma once

#include <memory>

#include "graph_io/graph.hpp"
#include "graph_io/prepare.hpp"
#include "training/checkpoint.hpp"

namespace sgnn::fuzz {

// The fixtures' graph: a directed 4-node ring.
inline graph_io::EdgeList ring_edges() {
  graph_io::EdgeList edges;
  edges.num_nodes = 4;
  edges.source = Tensor::from_vector(std::vector<int32_t>{0, 1, 2, 3}, {4});
  edges.target = Tensor::from_vector(std::vector<int32_t>{1, 2, 3, 0}, {4});
  return edges;
}

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
    d.features = Tensor::from_vector(std::vector<float>{1, 0, 0, 1, 1, 1, 0, 0}, {4, 2});
    d.labels = Tensor::from_vector(std::vector<int32_t>{0, 1, 1, 0}, {4});
    d.train_index = Tensor::from_vector(std::vector<int32_t>{0, 1}, {2});
    d.valid_index = Tensor::from_vector(std::vector<int32_t>{2, 3}, {2});
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
