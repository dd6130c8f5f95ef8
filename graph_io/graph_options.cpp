#include "graph_io/graph_options.hpp"

namespace sgnn::graph_io {

GraphOptions gcn_graph_options() {
  GraphOptions options;
  options.prepare.symmetrize = true;
  options.prepare.self_loops = SelfLoops::Add;
  options.prepare.normalization = Normalization::Symmetric;
  options.prepare.edge_map = false;  // fixed weights: Aᵀ's copy suffices
  return options;
}

GraphOptions gat_graph_options() {
  GraphOptions options;
  options.prepare.symmetrize = true;
  options.prepare.self_loops = SelfLoops::Add;
  options.prepare.normalization = Normalization::None;
  return options;
}

}  // namespace sgnn::graph_io
