// gatv2: GATv2 (Brody et al. 2022) with GAT's architecture and settings
// (Veličković et al. 2018, as the gat model): dropout → GATv2Conv(in,
// hidden, heads, concat, attention dropout) → ELU → dropout →
// GATv2Conv(hidden·heads, classes, output_heads, mean over heads), over the
// pattern with one self loop per node; 8 heads of 8, dropout 0.6, lr 0.005,
// weight decay 5e-4 on every parameter (Pubmed: 8 output heads, lr 0.01,
// weight decay 1e-3), patience 100 on the validation loss and accuracy.
// PyG's GATv2Conv layers (lin_l and lin_r with biases, no weight sharing).
#include "training/nn/attention_stack.hpp"
#include "training/nn/builtin_models.hpp"
#include "training/nn/gatv2_conv.hpp"

namespace sgnn::training {

namespace {

std::shared_ptr<Sequential> build(const ModelDescription& d, Generator& generator) {
  const float dropout = d.number("dropout");
  return two_attention_layers(d, generator, [&](int64_t in, int64_t out, int64_t heads, bool concat) {
    return std::make_shared<GATv2Conv>(in, out, generator,
                                    GATv2Options{.heads = heads, .concat = concat, .attention_dropout = dropout});
  });
}

// One GATv2Conv keeps its input (saved by the two products), the two
// projections and, per edge and head, at most two float32 tensors: the
// composition of ops/gatv2_attention.hpp (CUDA heads too wide for one warp)
// keeps the attention and the attention after dropout; the fused
// gatv2_aggregate (the CPU, and CUDA otherwise) keeps the scores only, so the
// estimate is an upper bound there.
ModelMemory memory(const ModelDescription& d, const GraphSize& graph) {
  const int64_t bytes = static_cast<int64_t>(dtype_size(activation_dtype(d.precision)));
  AttentionLayerCost layer;
  layer.parameters = [](int64_t in, int64_t heads, int64_t per_head, bool concat) {
    return 2 * (in + 1) * heads * per_head + heads * per_head + (concat ? heads * per_head : per_head);
  };
  layer.saved_bytes = [&](int64_t in, int64_t heads, int64_t per_head) {
    return graph.nodes * (in + 2 * heads * per_head) * bytes + 2 * graph.nnz * heads * 4;
  };
  layer.entry_gradient_bytes = 4;
  return two_attention_layers_memory(d, graph, layer);
}

std::string layers_text(const ModelDescription& d) {
  return detail::concat(d.in_features, " -> ", d.integer("heads"), " heads x ", d.integer("hidden"), " -> ",
                        d.integer("output_heads"), " heads (mean) x ", d.classes, " (elu), self loops");
}

}  // namespace

ModelEntry gatv2_model() {
  ModelEntry entry;
  entry.name = "gatv2";
  entry.about = "GATv2 (Brody et al. 2022): two GATv2Conv layers of dynamic multi-head attention over the neighbours "
                "and self loops, ELU between";
  entry.hyperparameters = attention_hyperparameters({{"pubmed", "8"}});
  entry.hyperparameters.insert(entry.hyperparameters.end(), {
      training_default("epochs", "1000", {}, "training epochs (at most)"),
      training_default("lr", "0.005", {{"pubmed", "0.01"}}),
      training_default("weight_decay", "5e-4", {{"pubmed", "1e-3"}}),
      training_default("patience", "100"),
      training_default("monitor", "loss+accuracy"),
  });
  entry.graph = graph_io::gat_graph_options();  // one self loop per node, unnormalised: GATv2Conv's form
  entry.fixed_weights = false;                  // learned per-head attention weights: CSR only
  entry.build = build;
  entry.memory = memory;
  entry.layers_text = layers_text;
  entry.aggregation_width = [](const ModelDescription& d) { return d.integer("hidden") * d.integer("heads"); };
  return entry;
}

}  // namespace sgnn::training
