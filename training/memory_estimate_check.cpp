#include "training/memory_estimate_check.hpp"

#include "graph_io/prepared_entries.hpp"

namespace sgnn::training {

memory::GraphShape experiment_graph_shape(ModelKind kind, const graph_io::Dataset& dataset, bool hrpb,
                                          Precision precision) {
  memory::GraphShape shape;
  shape.nodes = dataset.num_nodes();
  shape.edges = dataset.edges.num_edges();
  shape.features = dataset.features.defined() ? dataset.features.size(1) : 0;
  shape.symmetrize = true;  // gcn_graph_options / gat_graph_options
  shape.self_loops = true;
  shape.edge_weights = kind == ModelKind::Gcn && !model_graph_options(kind).prepare.symmetric_scale;
  shape.edge_map = model_graph_options(kind).prepare.edge_map;
  shape.hrpb = hrpb;
  shape.training_feature_bytes = static_cast<int64_t>(dtype_size(activation_dtype(precision)));
  return shape;
}

memory::ModelShape experiment_model_shape(ModelKind kind, const graph_io::Dataset& dataset, const Hyperparameters& h,
                                          Precision precision) {
  memory::ModelShape shape;
  shape.kind = kind == ModelKind::Gcn ? memory::ModelKind::Gcn : memory::ModelKind::Gat;
  shape.nodes = dataset.num_nodes();
  shape.nnz = memory::prepared_nnz_bound(experiment_graph_shape(kind, dataset, false));
  shape.features = dataset.features.defined() ? dataset.features.size(1) : 0;
  shape.hidden = h.hidden;
  shape.heads = h.heads;
  shape.output_heads = h.output_heads;
  shape.classes = dataset.num_classes;
  shape.activation_bytes = static_cast<int64_t>(dtype_size(activation_dtype(precision)));
  return shape;
}

int64_t experiment_prepared_entries(ModelKind kind, const graph_io::Dataset& dataset) {
  return graph_io::count_prepared_entries(dataset.edges, model_graph_options(kind).prepare);
}

void require_experiment_fits(ModelKind kind, const graph_io::Dataset& dataset, const Hyperparameters& h, bool hrpb,
                             Device device, std::optional<int64_t> known_entries, Precision precision) {
  memory::GraphShape graph = experiment_graph_shape(kind, dataset, hrpb, precision);
  memory::ModelShape model = experiment_model_shape(kind, dataset, h, precision);
  const std::optional<int64_t> available = memory::free_bytes(device);
  if (!available) return;  // nothing to compare with (the CPU)
  if (known_entries) {
    graph.nnz = model.nnz = *known_entries;
  } else if (memory::estimate_training(graph, model).total_bytes() > *available) {
    // The bound may be twice the truth (a dataset storing both directions):
    // count the real entries before refusing, and judge everything on them.
    graph.nnz = model.nnz = experiment_prepared_entries(kind, dataset);
  }
  const memory::Estimate estimate = memory::estimate_training(graph, model);
  std::vector<memory::FitOption> alternatives;
  if (hrpb) {
    memory::GraphShape csr = graph;
    csr.hrpb = false;
    alternatives.push_back({"the CSR format instead of HRPB (--spmm csr)", memory::estimate_training(csr, model)});
  }
  // The largest power-of-two fraction of the hidden size that fits, if any.
  for (int64_t hidden = h.hidden / 2; hidden >= 1; hidden /= 2) {
    model.hidden = hidden;
    memory::Estimate smaller = memory::estimate_training(graph, model);
    if (smaller.total_bytes() <= *available) {
      alternatives.push_back({"a smaller hidden size (--hidden " + std::to_string(hidden) + ")", std::move(smaller)});
      break;
    }
  }
  if (precision == Precision::Fp32) {
    memory::GraphShape half_graph = graph;
    memory::ModelShape half_model = experiment_model_shape(kind, dataset, h, Precision::Bf16);
    half_graph.training_feature_bytes = 2;
    half_model.nnz = model.nnz;
    alternatives.push_back(
        {"bfloat16 mixed precision (--precision bf16)", memory::estimate_training(half_graph, half_model)});
  }
  if (device.is_cuda()) alternatives.push_back({"training on the CPU (--device cpu)", {}, true});
  memory::require_fits(estimate, device,
                       std::string(model_name(kind)) + " on \"" + dataset.name + "\" (" +
                           std::to_string(graph.nodes) + " nodes, " + std::to_string(graph.edges) + " edges)",
                       alternatives);
}

}  // namespace sgnn::training
