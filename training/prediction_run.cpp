#include "training/prediction_run.hpp"

#include <numeric>

#include "core/autograd.hpp"
#include "graph_io/load_dataset.hpp"
#include "graph_io/readers/readers.hpp"
#include "graph_io/section_file.hpp"
#include "sampling/feature_store.hpp"
#include "sampling/sampling_graph.hpp"
#include "training/block_checkpoint.hpp"
#include "training/inference.hpp"
#include "training/metrics.hpp"
#include "training/minibatch_experiment.hpp"
#include "training/minibatch_inference.hpp"

namespace sgnn::training {

namespace {

// Checks the dataset against the model before any preparation.
void require_compatible(const graph_io::Dataset& dataset, const ModelDescription& d, const std::string& checkpoint) {
  const std::string where =
      " (dataset \"" + dataset.name + "\" from " + dataset.source + ", checkpoint " + checkpoint + ")";
  SGNN_CHECK(dataset.features.defined(), "the dataset has no node features; the ", d.kind, " model reads ",
             d.in_features, " per node", where);
  SGNN_CHECK(dataset.features.size(1) == d.in_features, "the dataset's nodes have ", dataset.features.size(1),
             " features, the ", d.kind, " model reads ", d.in_features,
             ": a model predicts only on graphs with the feature width it was trained on", where);
  const int64_t edge_width = dataset.edge_features.defined() ? dataset.edge_features.size(1) : 0;
  SGNN_CHECK(d.edge_features == 0 || edge_width == d.edge_features, "the ", d.kind, " model reads edge features of width ",
             d.edge_features, ", the dataset's edges have ", edge_width == 0 ? std::string("none") : std::to_string(edge_width),
             where);
  SGNN_CHECK(!dataset.labels.defined() || dataset.num_classes <= d.classes, "the dataset's labels go up to ",
             dataset.num_classes - 1, " (", dataset.num_classes, " classes), the model predicts ", d.classes,
             " classes", where);
}

// A mini-batch model: layer-wise inference over the dataset's graph, on the
// listed nodes (or every node) and, to score it, the test split's.
PredictionReport run_block_prediction(const PredictionOptions& options, const graph_io::SectionFile& contents,
                                      Device device) {
  SGNN_CHECK(options.embeddings.empty(), "--embeddings: a mini-batch model's checkpoint (", options.checkpoint,
             ") gives predictions only");
  TrainedBlockModel trained = load_block_checkpoint(contents);
  SGNN_CHECK(options.parameters == CheckpointParameters::Best, "--parameters last: a mini-batch model's checkpoint (",
             options.checkpoint, ") holds one set of parameters, those of epoch ", trained.epochs.parameters_epoch,
             "; drop --parameters");
  const ModelDescription& d = trained.description;
  graph_io::LoadOptions load_options;
  load_options.cache_dir = options.cache_dir;
  const graph_io::Dataset dataset = graph_io::load_dataset(options.dataset, load_options);
  require_compatible(dataset, d, options.checkpoint);
  const int64_t nodes = dataset.num_nodes();
  std::vector<int32_t> ids;
  if (!options.nodes.empty()) ids = graph_io::read_node_list(options.nodes, nodes);
  if (ids.empty()) {
    ids.resize(static_cast<std::size_t>(nodes));
    std::iota(ids.begin(), ids.end(), 0);
  }
  const auto written = static_cast<int64_t>(ids.size());

  PredictionReport report;
  report.description = d;
  report.summary = block_model_summary(d);
  report.epochs = trained.epochs.epochs;
  report.parameters_epoch = trained.epochs.parameters_epoch;
  report.dataset = dataset.name;
  report.dataset_source = dataset.source;
  report.device = device.str();
  report.nodes = nodes;
  report.written = written;

  // The test split's nodes not written follow the written ones (inference
  // takes each node once); test_rows are their rows among the inferred.
  const bool score = dataset.labels.defined() && dataset.test_index.defined() && dataset.test_index.numel() > 0;
  std::vector<int32_t> test_rows;
  if (score) {
    std::vector<int32_t> row_of(options.nodes.empty() ? 0 : static_cast<std::size_t>(nodes), -1);
    if (!options.nodes.empty()) {
      for (std::size_t i = 0; i < ids.size(); ++i) row_of[static_cast<std::size_t>(ids[i])] = static_cast<int32_t>(i);
    }
    for (const int32_t node : dataset.test_index.to_vector<int32_t>()) {
      if (options.nodes.empty()) {
        test_rows.push_back(node);  // every node is written, in id order
        continue;
      }
      int32_t& row = row_of[static_cast<std::size_t>(node)];
      if (row < 0) {
        row = static_cast<int32_t>(ids.size());
        ids.push_back(node);
      }
      test_rows.push_back(row);
    }
  }
  const Csr csr = minibatch_graph(dataset, device, block_model_self_loops(d.kind));
  const sampling::SamplingGraph graph(csr, device, sampling::Residence::Device);
  sampling::FeatureStoreOptions feature_options;
  feature_options.dtype = activation_dtype(d.precision);
  const sampling::FeatureStore features(graph_io::apply_feature_transform(dataset.features, d.feature_transform),
                                        device, feature_options);
  BlockModel& model = *trained.model;
  model.to(device);
  const Tensor logits =
      infer_layerwise(model, graph, features, Tensor::from_vector(ids, {static_cast<int64_t>(ids.size())}));
  const Predictions predictions = predictions_from_logits(logits);
  OutputRows rows;
  rows.ids.assign(ids.begin(), ids.begin() + written);
  rows.rows.resize(static_cast<std::size_t>(written));
  std::iota(rows.rows.begin(), rows.rows.end(), 0);
  write_predictions(options.predictions, predictions.probabilities, predictions.classes, rows);
  if (score) {
    const autograd::NoGradGuard no_grad;
    const std::vector<int32_t> all_labels = dataset.labels.to_vector<int32_t>();
    std::vector<int32_t> labels(ids.size());
    for (std::size_t i = 0; i < ids.size(); ++i) labels[i] = all_labels[static_cast<std::size_t>(ids[i])];
    report.test_accuracy =
        evaluate_split(predictions.logits, Tensor::from_vector(labels, {static_cast<int64_t>(labels.size())}, device),
                       Tensor::from_vector(test_rows, {static_cast<int64_t>(test_rows.size())}, device))
            .accuracy;
    report.test_nodes = static_cast<int64_t>(test_rows.size());
  }
  return report;
}

}  // namespace

PredictionReport run_prediction(const PredictionOptions& options) {
  SGNN_CHECK(!options.checkpoint.empty(), "--checkpoint is required");
  SGNN_CHECK(!options.dataset.empty(), "--dataset is required (a name such as cora, or a path)");
  SGNN_CHECK(!options.predictions.empty() || !options.embeddings.empty(),
             "nothing to write: give --predictions FILE and/or --embeddings FILE");
  if (!options.predictions.empty()) require_output_path(options.predictions, "--predictions");
  if (!options.embeddings.empty()) require_output_path(options.embeddings, "--embeddings");
  SGNN_CHECK(options.predictions.empty() || options.predictions != options.embeddings,
             "--predictions and --embeddings name the same file");
  const Device device = Device::parse(options.device);
  require_available(device);

  // Read once: a mini-batch model's checkpoint says so in its metadata (training/block_checkpoint.hpp).
  const graph_io::SectionFile contents =
      graph_io::read_section_file(options.checkpoint, "checkpoint", kOldestCheckpointVersion, kCheckpointVersion);
  if (is_block_checkpoint(contents)) return run_block_prediction(options, contents, device);
  TrainedModel trained = load_trained_model(contents, options.parameters);
  SGNN_CHECK(options.embeddings.empty() || has_embeddings(*trained.model), "--embeddings: the ",
             trained.description.kind, " model has no hidden layer (one layer with parameters), no embeddings to write");
  graph_io::LoadOptions load_options;
  load_options.cache_dir = options.cache_dir;  // the processed file's place when the dataset's folder is read-only
  const graph_io::Dataset dataset = graph_io::load_dataset(options.dataset, load_options);
  require_compatible(dataset, trained.description, options.checkpoint);
  std::vector<int32_t> selected;
  if (!options.nodes.empty()) selected = graph_io::read_node_list(options.nodes, dataset.num_nodes());

  PredictionReport report;
  report.description = trained.description;
  report.summary = description_summary(trained.description);
  report.epochs = trained.epochs;
  report.parameters_epoch = trained.parameters_epoch;
  report.dataset = dataset.name;
  report.dataset_source = dataset.source;
  report.device = device.str();

  const graph_io::Graph graph =
      graph_io::make_graph(dataset, description_graph_options(trained.description), device, options.cache_dir);
  report.nodes = graph.num_nodes;
  report.cache_hit = graph.statistics.cache_hit;
  const Tensor features = graph_io::apply_feature_transform(graph.features, trained.description.feature_transform);
  Model& model = *trained.model;
  model.to(device);
  const GraphInput input(graph);
  const OutputRows rows = output_rows(graph.num_nodes, graph.node_order, selected);
  report.written = static_cast<int64_t>(rows.ids.size());
  const Predictions predictions =
      write_model_outputs(OutputFiles{options.predictions, options.embeddings}, model, input, features, rows);
  if (graph.labels.defined() && graph.test_index.defined() && graph.test_index.numel() > 0) {
    const autograd::NoGradGuard no_grad;
    report.test_accuracy = evaluate_split(predictions.logits, graph.labels, graph.test_index).accuracy;
    report.test_nodes = graph.test_index.numel();
  }
  return report;
}

}  // namespace sgnn::training
