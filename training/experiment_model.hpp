// The model an experiment trains: its kind, how its graph is prepared, and
// its hyperparameters (the paper's, before the options override them). Apart
// from training/experiment.hpp so that what sizes an experiment before it
// runs (training/memory_estimate_check.hpp) needs only this.
#pragma once

#include <cstdint>
#include <string>

#include "graph_io/graph_options.hpp"
#include "training/trainer.hpp"

namespace sgnn::training {

enum class ModelKind : unsigned char { Gcn, Gat };
const char* model_name(ModelKind kind);  // "gcn", "gat"
// How the model's graph is prepared: graph_io::gat_graph_options(), or
// gcn_graph_options() with PrepareOptions::symmetric_scale (the training
// programs keep D^-1/2 per node instead of nnz weights on the device).
graph_io::GraphOptions model_graph_options(ModelKind kind);

// The resolved hyperparameters of one experiment.
struct Hyperparameters {
  int64_t epochs = 200, hidden = 16, heads = 1, output_heads = 1, patience = 0;
  float learning_rate = 0.01f, weight_decay = 5e-4f, dropout = 0.5f;
  Monitor monitor = Monitor::ValidationAccuracy;
  bool projected_dropout = false;  // GAT: dropout on W·x too
};

// Kipf & Welling / Veličković et al. settings; `dataset_name` matters for
// GAT on Pubmed (8 output heads, lr 0.01, weight decay 1e-3).
Hyperparameters paper_defaults(ModelKind model, const std::string& dataset_name);

}  // namespace sgnn::training
