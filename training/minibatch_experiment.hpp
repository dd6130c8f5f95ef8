// The mini-batch experiment: what sgnn_train --model sage --batch-size ...
// runs (minibatch_options() makes its options from the model's registry
// entry and the sampling flags). Loads a dataset, builds the sampling
// graph (the dataset's prebuilt CSR, or its edges symmetrised without self
// loops), places the graph and the features on the device or in host memory
// (read by the GPU over unified addressing) within a device-memory budget,
// trains a built-in block model (GraphSAGE, training/minibatch_sage.hpp; GCN,
// training/minibatch_gcn.hpp; GAT, training/minibatch_gat.hpp), or a model of the caller's (a BlockModelFactory, training/block_model.hpp), with the
// MinibatchTrainer and reports accuracy, epoch times, throughput and peak
// memory. One run; the seed fixes weights, dropout, shuffles and samples.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "graph_io/dataset.hpp"
#include "training/block_model.hpp"
#include "training/experiment.hpp"
#include "training/minibatch_trainer.hpp"
#include "training/nn/precision.hpp"

namespace sgnn::training {

struct MinibatchOptions {
  std::string model = "sage";   // a kind of minibatch_model_names(), for the reports
  std::string dataset;          // a name or a path (graph_io::load_dataset)
  std::string device = "cpu";   // cpu | cuda | cuda:k
  int64_t batch_size = 1024;
  std::vector<int64_t> fanouts{15, 10, 5};  // per hop from the seeds (PyG order); -1 = all; one per layer
  bool replace = false;         // sample with replacement
  int64_t feature_cache_bytes = 0;  // device cache of the highest-degree nodes' features (host features only)
  int64_t epochs = 20;
  uint64_t seed = 0;
  Precision precision = Precision::Fp32;
  int64_t hidden = 256;
  float dropout = 0.5f;
  std::string aggregator = "mean";  // GraphSAGE's: "mean" or "max-pool" (training/nn/sage_conv.hpp)
  int64_t heads = 1;                // GAT's: hidden layers' heads (concatenated), the last layer's (averaged)
  int64_t output_heads = 1;
  // The sampling graph gets a self loop per node (GAT attends to itself over
  // its block's entries; the built-in GAT turns it on). Needs the graph built
  // from the dataset's edges (not a prebuilt CSR).
  bool self_loops = false;
  float learning_rate = 0.003f;
  float weight_decay = 0.0f;
  bool row_normalize_features = false;
  // Train on the first `train_nodes` of the (random) train split; 0: all of
  // it. The benchmarks train the products-scale preset (60 % of its nodes in
  // the split) on ogbn-products' 196,615.
  int64_t train_nodes = 0;
  // Where the graph's CSR and the features live on a GPU: "auto" (the device
  // when they fit in the budget, graph first), "device" or "host".
  std::string graph_residence = "auto";
  std::string feature_residence = "auto";
  // Device bytes the graph and the features may take ("auto"); < 0: half
  // the device's free memory when the run starts.
  int64_t device_memory_limit = -1;
  bool evaluate = true;         // layer-wise full-neighbour evaluation
  bool evaluate_train = true;
  int64_t eval_every = 1;
  int64_t eval_from = 1;
  int64_t inference_chunk = 16384;
  int pipeline_depth = sampling::kPipelineDepth;
  std::string cache_dir;        // where the processed dataset goes when its folder is read-only
  // After training, every node's predicted class and probabilities, from
  // the best validation epoch's parameters by layer-wise inference, to this
  // file (CSV, or NPY when named *.npy: docs/predictions.md); empty: none.
  // Its folder must exist (refused before the dataset loads).
  std::string predictions;
  // The run, to this file after every `checkpoint_every` epochs and after
  // the last: the best epoch's parameters, which sgnn_predict reads, and
  // what continues the run (training/block_checkpoint.hpp); empty: none.
  // The built-in models only (a BlockModelFactory's model cannot be rebuilt
  // from a file). Its folder must exist (refused before the dataset loads).
  std::string checkpoint;
  int64_t checkpoint_every = 1;
  // Continue the run a checkpoint of the same model, dataset and options
  // saved (its epochs count toward `epochs`); empty: start afresh.
  std::string resume;
};

// InvalidArgument naming the first bad option.
void validate_minibatch_options(const MinibatchOptions& options);

// The kinds whose layers take sampled blocks (one bipartite block per
// layer), which mini-batch training builds: {"sage", "gcn", "gat"}
// (SageModel, training/minibatch_sage.hpp; GcnBlockModel,
// training/minibatch_gcn.hpp; GatBlockModel, training/minibatch_gat.hpp).
std::vector<std::string> minibatch_model_names();

// The options of a mini-batch run of `experiment`'s model: `sampling`'s
// batching, sampling and placement settings, with the dataset, device,
// seed, precision and cache folder of `experiment` and the model's
// hyperparameters as its registry entry resolves them for the dataset
// (hidden, dropout, lr, weight_decay, epochs, and aggregator, heads and
// output_heads where the model has them; the layer count is the number
// of fanouts). InvalidArgument, naming what to change, for a model whose
// layers do not take blocks (the message lists those that do), a --layers
// other than the fanout count, early
// stopping (patience, a monitor other than accuracy), or an option of
// full-graph training mini-batches do not take (several runs, embeddings,
// check_numerics, gradient_ranges, deterministic, spmm, cuda_graph).
// Predictions, checkpoints (checkpoint_every) and resume are taken.
MinibatchOptions minibatch_options(const ExperimentOptions& experiment, const MinibatchOptions& sampling);

// The built-in block model `kind` (one of minibatch_model_names()) of
// `config`, with GraphSAGE's `aggregator` ("mean" or "max-pool"; the other
// kinds ignore it). InvalidArgument naming the kinds for another name.
std::unique_ptr<BlockModel> make_block_model(const std::string& kind, const BlockModelConfig& config,
                                             const std::string& aggregator, Generator& generator);
// Whether `kind` samples from (and infers over) a graph with a self loop per node (GAT).
bool block_model_self_loops(const std::string& kind);
// The graph mini-batch training samples from and layer-wise inference reads:
// the dataset's prebuilt CSR, or its edges symmetrised without repeats,
// without self loops or with one per node. InvalidArgument for self loops
// on a dataset that has a prebuilt CSR only.
Csr minibatch_graph(const graph_io::Dataset& dataset, Device device, bool self_loops);

struct MinibatchResult {
  std::string dataset, dataset_source, device, precision;
  std::string graph_residence, feature_residence;  // what "auto" chose
  int64_t nodes = 0, edges = 0, features = 0, classes = 0, train_nodes = 0;
  int64_t cached_feature_rows = 0;
  // Features in host memory on CUDA: who read the batches' gathers (the
  // store's timed choice) and its trials, e.g. "host threads alone, through
  // a ring (trials: GPU alone 21.3, shared 34.8, host threads alone 39.8,
  // through a ring 47.1 GB/s)"; empty otherwise.
  std::string feature_readers;
  std::string predictions;  // the file written (options.predictions), empty when none was asked for
  std::string checkpoint;   // the file written (options.checkpoint), empty when none was asked for
  MinibatchOptions options;
  MinibatchFit fit;
  double test_accuracy = 0;  // at the best validation epoch (0 without evaluation)
  double epoch_seconds_median = 0;
  double seeds_per_second = 0;          // median epoch
  double sampled_edges_per_second = 0;  // median epoch
  double load_seconds = 0, setup_seconds = 0;
  int64_t peak_device_bytes = 0;  // sparsegnn tensors, the whole run
  int64_t peak_host_bytes = 0;    // the process's peak resident set
  std::vector<std::string> notes;
};

struct MinibatchHooks {
  std::function<void(const MinibatchEpochRecord&)> on_epoch;
  std::function<void(const MinibatchProgress&)> on_progress;
  std::function<void(const std::string&)> on_note;
};

// `make_model` builds the model from the dataset's widths and the options'
// hidden, dropout, precision and one layer per fanout; without it, the
// built-in model named by options.model (GraphSAGE with the options'
// aggregator, GCN, or GAT with the options' heads on a graph with self
// loops). InvalidArgument for a name that is not one of
// minibatch_model_names(), or when the factory returns null or a model of
// other widths.
MinibatchResult run_minibatch_experiment(const MinibatchOptions& options, const MinibatchHooks& hooks = {});
MinibatchResult run_minibatch_experiment(const MinibatchOptions& options, const BlockModelFactory& make_model,
                                         const MinibatchHooks& hooks = {});

// The --out document (one line) for `program`.
std::string minibatch_json(const MinibatchResult& result, const std::string& program);

// "epoch   3  batch  120/192  loss 0.8123  41230 seeds/s  2.9 s"
std::string format_minibatch_progress(const MinibatchProgress& progress, int64_t epochs);
// The epoch's line: loss, seeds/s, time and, when evaluated, the accuracies.
std::string format_minibatch_epoch(const MinibatchEpochRecord& record, int64_t epochs);

}  // namespace sgnn::training
