// The citation graphs for the training tests (graph_io::load_dataset):
// features row-normalised, adjacency prepared as for GCN or GAT.
// Searched in $SGNN_DATA, <repo>/data, <repo>/../shared/data,
// <repo>/../../shared/data (a worktree), ./data, ../shared/data; a missing dataset fails the test
// with the places searched.
#pragma once

#include <memory>
#include <string>

#include "core/adjacency.hpp"
#include "training/trainer.hpp"

namespace sgnn::testing {

struct Planetoid {
  std::shared_ptr<Adjacency> adjacency;
  training::TrainingData data;
  int64_t features = 0;
  int64_t classes = 0;
};

// `symmetric_normalization`: GCN's D^-1/2 (A+I) D^-1/2; otherwise the pattern of A+I (GAT).
// Whether load_planetoid(name) can find the dataset ($SGNN_DATA, <repo>/data,
// <repo>/../shared/data, ./data, ../shared/data); tests that need it are
// skipped with a message when it cannot (datasets are never committed).
bool planetoid_available(const std::string& name);

Planetoid load_planetoid(const std::string& name, bool symmetric_normalization);

// The dataset's folder, for graph_io::load_dataset (IoError naming the places searched when absent).
std::string planetoid_path(const std::string& name);

}  // namespace sgnn::testing
