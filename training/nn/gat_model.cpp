// gat: Veličković et al. 2018. dropout → GATConv(in, hidden, heads, concat,
// attention dropout) → ELU → dropout → GATConv(hidden·heads, classes,
// output_heads, mean over heads), over the adjacency's pattern with self
// loops. Weight decay on every parameter. The paper's settings, with its
// Pubmed ones (8 output heads, lr 0.01, weight decay 1e-3).
#include "training/nn/attention_stack.hpp"
#include "training/nn/builtin_models.hpp"
#include "training/nn/gat_conv.hpp"

namespace sgnn::training {

namespace {

std::shared_ptr<Sequential> build(const ModelDescription& d, Generator& generator) {
  const float dropout = d.number("dropout");
  return two_attention_layers(d, generator, [&](int64_t in, int64_t out, int64_t heads, bool concat) {
    GATOptions options;
    options.heads = heads;
    options.concat = concat;
    options.attention_dropout = dropout;
    options.projected_dropout = d.enabled("projected_dropout") ? dropout : 0.0f;
    return std::make_shared<GATConv>(in, out, generator, options);
  });
}

// One GATConv keeps its input (saved by x·W) and the projected features
// (saved by the attention products and the spmm), and per edge and head two
// tensors: the attention (saved by its backward) and the attention after
// dropout (saved by the spmm; its backward on Aᵀ reads it through the edge
// map, no copy in Aᵀ's order); all in the activation dtype
// (ops/attention_softmax.hpp).
ModelMemory memory(const ModelDescription& d, const GraphSize& graph) {
  const int64_t bytes = static_cast<int64_t>(dtype_size(activation_dtype(d.precision)));
  AttentionLayerCost layer;
  layer.parameters = [](int64_t in, int64_t heads, int64_t per_head, bool concat) {
    return in * heads * per_head + 2 * heads * per_head + (concat ? heads * per_head : per_head);
  };
  layer.saved_bytes = [&](int64_t in, int64_t heads, int64_t per_head) {
    return (graph.nodes * in + graph.nodes * heads * per_head + 2 * graph.nnz * heads) * bytes;
  };
  layer.entry_gradient_bytes = bytes;
  return two_attention_layers_memory(d, graph, layer);
}

std::string layers_text(const ModelDescription& d) {
  const auto layer = [](int64_t heads, int64_t width, bool last) {
    return heads == 1 ? std::to_string(width)
                      : detail::concat(heads, last ? " heads (mean) x " : " heads x ", width);
  };
  return detail::concat(d.in_features, " -> ", layer(d.integer("heads"), d.integer("hidden"), false), " -> ",
                        layer(d.integer("output_heads"), d.classes, true), " (elu), none adjacency");
}

// Checkpoints written before the registry: two layers of widths and heads.
std::map<std::string, std::string> from_layer_list(const LayerListDescription& l) {
  SGNN_CHECK(l.widths.size() == 2, "a GAT has 2 layers, not ", l.widths.size());
  SGNN_CHECK(l.activation == "elu", "a GAT uses elu, not ", l.activation);
  SGNN_CHECK(l.normalization == "none", "a GAT attends over the unnormalised adjacency");
  return {{"hidden", std::to_string(l.widths[0])},
          {"heads", std::to_string(l.heads[0])},
          {"output_heads", std::to_string(l.heads[1])},
          {"dropout", number_text(l.dropout)},
          {"projected_dropout", l.projected_dropout ? "on" : "off"}};
}

}  // namespace

ModelEntry gat_model() {
  using Type = HyperparameterType;
  using Role = HyperparameterRole;
  ModelEntry entry;
  entry.name = "gat";
  entry.about = "GAT (Velickovic et al. 2018): two GATConv layers of multi-head attention over the neighbours and "
                "self loops, ELU between";
  entry.hyperparameters = attention_hyperparameters({{"pubmed", "8"}});
  entry.hyperparameters.insert(entry.hyperparameters.end(), {
      // Their code drops W·x too: +0.9 points on Cora over PyG's layer (docs/walkthrough.md, section 3).
      {.name = "projected_dropout", .type = Type::Switch, .default_value = "on",
       .help = "also drop W·x before aggregation, as Velickovic et al.'s code does (PyG does not): on or off",
       .role = Role::Regularization},
      // Training until 100 epochs pass without a better validation loss or
      // accuracy; 1000 epochs bound a run (Cora and Citeseer stop earlier).
      training_default("epochs", "1000", {}, "training epochs (at most)"),
      training_default("lr", "0.005", {{"pubmed", "0.01"}}),
      training_default("weight_decay", "5e-4", {{"pubmed", "1e-3"}}),
      training_default("patience", "100"),
      training_default("monitor", "loss+accuracy"),
  });
  entry.graph = graph_io::gat_graph_options();
  entry.fixed_weights = false;  // learned per-head attention weights: CSR only
  entry.build = build;
  entry.memory = memory;
  entry.layers_text = layers_text;
  entry.aggregation_width = [](const ModelDescription& d) { return d.integer("hidden") * d.integer("heads"); };
  entry.from_layer_list = from_layer_list;
  return entry;
}

}  // namespace sgnn::training
