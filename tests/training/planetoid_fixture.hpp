// The citation graphs for the training tests (graph_io::load_dataset):
// features row-normalised, adjacency prepared as for GCN or GAT.
// Read from the bundled copies (graph_io::bundled_dataset_folder(), the
// build tree's share/sparsegnn/datasets); a missing copy fails the test.
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
Planetoid load_planetoid(const std::string& name, bool symmetric_normalization);

// The bundled dataset's folder, for graph_io::load_dataset.
std::string planetoid_path(const std::string& name);

}  // namespace sgnn::testing
