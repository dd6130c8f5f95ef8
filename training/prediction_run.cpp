#include "training/prediction_run.hpp"

#include "core/autograd.hpp"
#include "graph_io/load_dataset.hpp"
#include "graph_io/readers/readers.hpp"
#include "training/metrics.hpp"
#include "training/inference.hpp"

namespace sgnn::training {

namespace {

// Checks the dataset against the model before any preparation.
void require_compatible(const graph_io::Dataset& dataset, const TrainedModel& trained, const std::string& checkpoint) {
  const std::string where =
      " (dataset \"" + dataset.name + "\" from " + dataset.source + ", checkpoint " + checkpoint + ")";
  const ModelDescription& d = trained.description;
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

  TrainedModel trained = load_trained_model(options.checkpoint, options.parameters);
  SGNN_CHECK(options.embeddings.empty() || has_embeddings(*trained.model), "--embeddings: the ",
             trained.description.kind, " model has no hidden layer (one layer with parameters), no embeddings to write");
  graph_io::LoadOptions load_options;
  load_options.cache_dir = options.cache_dir;  // the processed file's place when the dataset's folder is read-only
  const graph_io::Dataset dataset = graph_io::load_dataset(options.dataset, load_options);
  require_compatible(dataset, trained, options.checkpoint);
  std::vector<int32_t> selected;
  if (!options.nodes.empty()) selected = graph_io::read_node_list(options.nodes, dataset.num_nodes());

  PredictionReport report;
  report.description = trained.description;
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
