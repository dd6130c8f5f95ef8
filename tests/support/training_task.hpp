// A small learnable node-classification task for the trainer and checkpoint
// tests: a random graph with GCN-normalised weights, noisy features and
// homophilous edges (see tiny_task.cpp), splits of 40/20/rest.
#pragma once

#include <memory>

#include "core/adjacency.hpp"
#include "training/nn/models.hpp"
#include "training/trainer.hpp"

namespace sgnn::testing {

struct TinyTask {
  std::shared_ptr<Adjacency> adjacency;
  training::TrainingData data;
  int64_t features = 8;
  int64_t classes = 3;
};

TinyTask tiny_task(uint64_t seed = 1, Device device = Device::cpu());

// A GCN for the task with dropout 0.5 and 8 hidden units.
std::shared_ptr<training::Model> tiny_gcn(const TinyTask& task, Generator& generator);
// A GAT for the task: 3 heads of 4 hidden units, 2 averaged output heads,
// dropout 0.6 on features and attention.
std::shared_ptr<training::Model> tiny_gat(const TinyTask& task, Generator& generator);

}  // namespace sgnn::testing
