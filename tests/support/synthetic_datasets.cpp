#include "tests/support/synthetic_datasets.hpp"

#include "graph_io/generators/edge_feature_dataset.hpp"
#include "graph_io/ogb_writer.hpp"

namespace sgnn::testing {

graph_io::Dataset symmetric_synthetic(int64_t nodes, int64_t edges, int64_t features, uint64_t seed, int64_t classes) {
  graph_io::SyntheticOptions options;
  options.num_nodes = nodes;
  options.num_edges = edges;
  options.symmetric = true;
  options.num_features = features;
  options.num_classes = classes;
  options.seed = seed;
  return graph_io::generate_synthetic_dataset(options);
}

std::string write_symmetric_synthetic(const std::filesystem::path& folder, const std::string& name, int64_t nodes,
                                      int64_t edges, int64_t features, uint64_t seed) {
  graph_io::write_ogb_dataset(symmetric_synthetic(nodes, edges, features, seed), folder / name);
  return (folder / name).string();
}

std::string write_edge_feature_synthetic(const std::filesystem::path& folder, const std::string& name, int64_t nodes,
                                         uint64_t seed) {
  graph_io::EdgeFeatureOptions options;
  options.num_nodes = nodes;
  options.seed = seed;
  graph_io::write_ogb_dataset(graph_io::generate_edge_feature_dataset(options), folder / name);
  return (folder / name).string();
}

}  // namespace sgnn::testing
