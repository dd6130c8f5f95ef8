#include "graph_io/generators/edge_feature_dataset.hpp"

#include <algorithm>
#include <vector>

#include "graph_io/generators/generator_support.hpp"
#include "graph_io/generators/synthetic_dataset.hpp"

namespace sgnn::graph_io {

namespace {

// Philox stream offsets of the dataset's independent draws (1-15 are the
// other generators' and random_splits').
constexpr uint64_t kPartnerStream = 20, kEdgeFeatureStream = 21, kNodeFeatureStream = 22;

void check_options(const EdgeFeatureOptions& o) {
  SGNN_CHECK(o.num_nodes >= 2 && o.num_nodes < (int64_t{1} << 31), "edge-feature dataset: num_nodes ", o.num_nodes,
             " out of range [2, 2^31)");
  SGNN_CHECK(o.partners >= 1 && o.num_features >= 1 && o.num_classes >= 2, "edge-feature dataset: partners (",
             o.partners, "), num_features (", o.num_features, ") must be positive and num_classes (", o.num_classes,
             ") at least 2");
  SGNN_CHECK(o.edge_features >= o.num_classes, "edge-feature dataset: edge_features (", o.edge_features,
             ") must be at least num_classes (", o.num_classes, "): the labels read one column per class");
  SGNN_CHECK(o.train_fraction >= 0 && o.valid_fraction >= 0 && o.train_fraction + o.valid_fraction <= 1,
             "edge-feature dataset: train_fraction ", o.train_fraction, " and valid_fraction ", o.valid_fraction,
             " must be non-negative with a sum <= 1");
}

// Each undirected pair {a, b}, a < b, once: (a << 32 | b), sorted.
std::vector<uint64_t> draw_pairs(const EdgeFeatureOptions& o) {
  const PhiloxStream stream{o.seed, kPartnerStream};
  std::vector<uint64_t> pairs(static_cast<std::size_t>(o.num_nodes * o.partners));
#pragma omp parallel for schedule(static)
  for (int64_t v = 0; v < o.num_nodes; ++v) {
    for (int64_t p = 0; p < o.partners; ++p) {
      double first = 0.0, second = 0.0;
      uniform_pair(stream, static_cast<uint64_t>(v * o.partners + p), first, second);
      int64_t u = scaled_index(first, o.num_nodes - 1);
      if (u >= v) ++u;  // uniform over the other nodes
      const auto low = static_cast<uint64_t>(std::min(u, v));
      const auto high = static_cast<uint64_t>(std::max(u, v));
      pairs[static_cast<std::size_t>(v * o.partners + p)] = (low << 32) | high;
    }
  }
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  return pairs;
}

Tensor normal_matrix(int64_t rows, int64_t cols, const PhiloxStream& stream) {
  Tensor values = Tensor::empty({rows, cols});
  float* x = values.data<float>();
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < rows * cols; ++i) x[i] = static_cast<float>(standard_normal(stream, static_cast<uint64_t>(i)));
  return values;
}

}  // namespace

Dataset generate_edge_feature_dataset(const EdgeFeatureOptions& o) {
  check_options(o);
  const std::vector<uint64_t> pairs = draw_pairs(o);
  const auto e = static_cast<int64_t>(pairs.size());
  std::vector<int32_t> source(pairs.size()), target(pairs.size());
  for (std::size_t k = 0; k < pairs.size(); ++k) {
    source[k] = static_cast<int32_t>(pairs[k] >> 32);
    target[k] = static_cast<int32_t>(pairs[k] & 0xffffffffu);
  }
  Dataset d;
  d.name = "edge-features";
  d.source = "generated";
  d.edges.num_nodes = o.num_nodes;
  d.edges.source = Tensor::from_vector(source, {e});
  d.edges.target = Tensor::from_vector(target, {e});
  d.edge_features = normal_matrix(e, o.edge_features, PhiloxStream{o.seed, kEdgeFeatureStream});
  d.features = normal_matrix(o.num_nodes, o.num_features, PhiloxStream{o.seed, kNodeFeatureStream});

  // Sums in float64 in edge order: the labels do not depend on the thread count.
  std::vector<double> sums(static_cast<std::size_t>(o.num_nodes * o.num_classes), 0.0);
  const float* features = d.edge_features.data<float>();
  for (int64_t k = 0; k < e; ++k) {
    for (const int32_t node : {source[static_cast<std::size_t>(k)], target[static_cast<std::size_t>(k)]}) {
      for (int64_t c = 0; c < o.num_classes; ++c) {
        sums[static_cast<std::size_t>(node * o.num_classes + c)] += static_cast<double>(features[k * o.edge_features + c]);
      }
    }
  }
  std::vector<int32_t> labels(static_cast<std::size_t>(o.num_nodes));
  for (int64_t v = 0; v < o.num_nodes; ++v) {
    const auto row = sums.begin() + v * o.num_classes;
    labels[static_cast<std::size_t>(v)] = static_cast<int32_t>(std::max_element(row, row + o.num_classes) - row);
  }
  d.labels = Tensor::from_vector(labels, {o.num_nodes});
  d.num_classes = 1 + *std::max_element(labels.begin(), labels.end());
  SyntheticOptions split_options;
  split_options.num_nodes = o.num_nodes;
  split_options.train_fraction = o.train_fraction;
  split_options.valid_fraction = o.valid_fraction;
  split_options.seed = o.seed;
  random_splits(split_options, d);
  return d;
}

}  // namespace sgnn::graph_io
