// transformer: a graph transformer of TransformerConv layers (Shi et al.
// 2021, PyG's TransformerConv) with GAT's citation settings, as PyG users
// run it on Planetoid: dropout → TransformerConv(in, hidden, heads, concat,
// attention dropout, root weight) → ELU → dropout → TransformerConv(hidden·heads,
// classes, output_heads, mean over heads, root weight), over the
// symmetrised pattern without self loops (each node's own features through
// the root weight); 8 heads of 8, dropout 0.6, lr 0.005, weight decay 5e-4
// on every parameter, patience 100 on the validation loss and accuracy.
#include "training/nn/attention_stack.hpp"
#include "training/nn/builtin_models.hpp"
#include "training/nn/transformer_conv.hpp"

namespace sgnn::training {

namespace {

std::shared_ptr<Sequential> build(const ModelDescription& d, Generator& generator) {
  const float dropout = d.number("dropout");
  return two_attention_layers(d, generator, [&](int64_t in, int64_t out, int64_t heads, bool concat) {
    return std::make_shared<TransformerConv>(in, out, generator,
                                    TransformerOptions{.heads = heads, .concat = concat, .attention_dropout = dropout});
  });
}

// One TransformerConv keeps its input (saved by the four products), q, k
// and v (saved by the SDDMM and the spmm) and per edge and head two float32
// tensors: the attention (saved by the softmax) and the attention after
// dropout (saved by the spmm).
ModelMemory memory(const ModelDescription& d, const GraphSize& graph) {
  const int64_t bytes = static_cast<int64_t>(dtype_size(activation_dtype(d.precision)));
  AttentionLayerCost layer;
  layer.parameters = [](int64_t in, int64_t heads, int64_t per_head, bool concat) {
    return 3 * (in + 1) * heads * per_head + (in + 1) * (concat ? heads * per_head : per_head);
  };
  layer.saved_bytes = [&](int64_t in, int64_t heads, int64_t per_head) {
    return graph.nodes * (in + 3 * heads * per_head) * bytes + 2 * graph.nnz * heads * 4;
  };
  layer.entry_gradient_bytes = 4;
  return two_attention_layers_memory(d, graph, layer);
}

std::string layers_text(const ModelDescription& d) {
  return detail::concat(d.in_features, " -> ", d.integer("heads"), " heads x ", d.integer("hidden"), " -> ",
                        d.integer("output_heads"), " heads (mean) x ", d.classes,
                        " (elu), dot-product attention and root weight, no self loops");
}

}  // namespace

ModelEntry transformer_model() {
  ModelEntry entry;
  entry.name = "transformer";
  entry.about = "Graph transformer (Shi et al. 2021): two TransformerConv layers of multi-head scaled dot-product "
                "attention over the neighbours with a root weight, ELU between";
  entry.hyperparameters = attention_hyperparameters();
  entry.hyperparameters.insert(entry.hyperparameters.end(), {
      training_default("epochs", "1000", {}, "training epochs (at most)"),
      training_default("lr", "0.005"),
      training_default("patience", "100"),
      training_default("monitor", "loss+accuracy"),
  });
  entry.graph = graph_io::gat_graph_options();
  entry.graph.prepare.self_loops = graph_io::SelfLoops::Remove;  // the form TransformerConv asks for
  entry.fixed_weights = false;  // learned per-head attention weights: CSR only
  entry.build = build;
  entry.memory = memory;
  entry.layers_text = layers_text;
  entry.aggregation_width = [](const ModelDescription& d) { return d.integer("hidden") * d.integer("heads"); };
  return entry;
}

}  // namespace sgnn::training
