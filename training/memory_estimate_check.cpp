#include "training/memory_estimate_check.hpp"

#include "graph_io/prepared_entries.hpp"

namespace sgnn::training {

memory::GraphShape experiment_graph_shape(const ModelEntry& entry, const graph_io::Dataset& dataset, bool hrpb,
                                          Precision precision) {
  const graph_io::PrepareOptions& prepare = entry.graph.prepare;
  memory::GraphShape shape;
  shape.nodes = dataset.num_nodes();
  shape.edges = dataset.edges.num_edges();
  shape.features = dataset.features.defined() ? dataset.features.size(1) : 0;
  shape.edge_features =
      entry.graph.edge_features && dataset.edge_features.defined() ? dataset.edge_features.size(1) : 0;
  shape.symmetrize = prepare.symmetrize;
  shape.self_loops = prepare.self_loops == graph_io::SelfLoops::Add;
  shape.edge_weights = prepare.normalization != graph_io::Normalization::None &&
                       !graph_io::keeps_symmetric_scale(prepare, dataset.edges.weight.defined());
  shape.edge_map = prepare.edge_map;
  shape.hrpb = hrpb;
  shape.training_feature_bytes = static_cast<int64_t>(dtype_size(activation_dtype(precision)));
  return shape;
}

memory::Estimate experiment_model_estimate(const ModelDescription& description, const GraphSize& graph) {
  const std::optional<ModelMemory> model = model_memory(description, graph);
  if (!model) return {};
  return memory::estimate_model(model->parameters, model->activation_bytes,
                                activation_dtype(description.precision) == DType::BFloat16);
}

int64_t experiment_prepared_entries(const ModelEntry& entry, const graph_io::Dataset& dataset) {
  return graph_io::count_prepared_entries(dataset.edges, entry.graph.prepare);
}

void require_experiment_fits(const ModelDescription& description, const graph_io::Dataset& dataset, bool hrpb,
                             Device device, std::optional<int64_t> known_entries) {
  const std::optional<int64_t> available = memory::free_bytes(device);
  if (!available) return;  // nothing to compare with (the CPU)
  const ModelEntry& entry = model_entry(description.kind);
  memory::GraphShape graph = experiment_graph_shape(entry, dataset, hrpb, description.precision);
  const auto estimate_for = [&](const memory::GraphShape& shape, const ModelDescription& model) {
    const int64_t nnz = shape.nnz > 0 ? shape.nnz : memory::prepared_nnz_bound(shape);
    return memory::estimate_training(shape, experiment_model_estimate(model, {shape.nodes, nnz}));
  };
  if (known_entries) {
    graph.nnz = *known_entries;
  } else if (estimate_for(graph, description).total_bytes() > *available) {
    // The bound may be twice the truth (a dataset storing both directions):
    // count the real entries before refusing, and judge everything on them.
    graph.nnz = experiment_prepared_entries(entry, dataset);
  }
  const memory::Estimate estimate = estimate_for(graph, description);
  std::vector<memory::FitOption> alternatives;
  if (hrpb) {
    memory::GraphShape csr = graph;
    csr.hrpb = false;
    alternatives.push_back({"the CSR format instead of HRPB (--spmm csr)", estimate_for(csr, description)});
  }
  // The largest power-of-two fraction of the hidden size that fits, if any.
  if (description.hyperparameters.contains("hidden")) {
    ModelDescription smaller = description;
    for (int64_t hidden = description.integer("hidden") / 2; hidden >= 1; hidden /= 2) {
      smaller.hyperparameters["hidden"] = std::to_string(hidden);
      memory::Estimate fits = estimate_for(graph, smaller);
      if (fits.total_bytes() <= *available) {
        alternatives.push_back({"a smaller hidden size (--hidden " + std::to_string(hidden) + ")", std::move(fits)});
        break;
      }
    }
  }
  if (description.precision == Precision::Fp32) {
    ModelDescription half = description;
    half.precision = Precision::Bf16;
    memory::GraphShape half_graph = graph;
    half_graph.training_feature_bytes = 2;
    alternatives.push_back({"bfloat16 mixed precision (--precision bf16)", estimate_for(half_graph, half)});
  }
  if (device.is_cuda()) alternatives.push_back({"training on the CPU (--device cpu)", {}, true});
  memory::require_fits(estimate, device,
                       description.kind + " on \"" + dataset.name + "\" (" + std::to_string(graph.nodes) + " nodes, " +
                           std::to_string(graph.edges) + " edges)",
                       alternatives);
}

}  // namespace sgnn::training
