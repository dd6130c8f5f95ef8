// What sgnn_predict runs: rebuilds a model from its checkpoint alone
// (load_trained_model), prepares a dataset's graph as the model was trained
// (the description's adjacency and feature transform; the adjacency cache
// when a folder is given), runs the model in evaluation mode and writes its
// predictions and/or embeddings (training/output/prediction_writer.hpp) for every
// node or the listed ones, in the dataset's ids. A mini-batch model's
// checkpoint (training/block_checkpoint.hpp) is rebuilt as its block model
// and run by layer-wise full-neighbour inference over the dataset's graph
// (training/minibatch_inference.hpp), as its training run evaluated it;
// it writes predictions only, from the parameters it holds (--parameters
// best).
//
// The dataset may be another graph than the training one (inductive use: new
// nodes and edges) with the same feature width. Everything that can be
// refused is refused before the graph is prepared, and no output file is
// written then: a damaged or old checkpoint (IoError), a feature width other
// than the model's, labels the model cannot predict (more classes than its
// own), a bad node list, a missing output folder (IoError or
// InvalidArgument, each naming the reason).
#pragma once

#include <optional>
#include <string>

#include "training/checkpoint.hpp"

namespace sgnn::training {

struct PredictionOptions {
  std::string checkpoint;   // a version-2 checkpoint (train_gcn/train_gat --checkpoint)
  std::string dataset;      // a name or a path, as for training (graph_io::load_dataset)
  std::string nodes;        // a node list (graph_io::read_node_list); empty: every node, by ascending id
  std::string predictions;  // output files (CSV, or NPY when named *.npy); at least one of the two
  std::string embeddings;
  std::string device = "cpu";  // cpu | cuda | cuda:k
  std::string cache_dir;       // adjacency cache folder (also for a processed dataset file); empty: none
  CheckpointParameters parameters = CheckpointParameters::Best;
};

struct PredictionReport {
  ModelDescription description;
  std::string summary;           // one line: description_summary, or block_model_summary for a mini-batch model
  int64_t epochs = 0;            // the checkpoint's run
  int64_t parameters_epoch = 0;  // the epoch whose parameters predicted
  std::string dataset, dataset_source, device;
  int64_t nodes = 0;             // in the graph
  int64_t written = 0;           // lines (records) per output file
  bool cache_hit = false;
  // On the dataset's test split, when it has labels and one (in [0, 1]).
  std::optional<double> test_accuracy;
  int64_t test_nodes = 0;
};

PredictionReport run_prediction(const PredictionOptions& options);

}  // namespace sgnn::training
