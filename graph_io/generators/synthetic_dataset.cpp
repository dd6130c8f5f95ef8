#include "graph_io/generators/synthetic_dataset.hpp"

#include <parallel/algorithm>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/philox.hpp"
#include "graph_io/generators/generator_support.hpp"
#include "graph_io/generators/generators.hpp"
#include "graph_io/generators/sbm.hpp"

namespace sgnn::graph_io {

namespace {

// Philox stream offsets (in 4-value blocks) of the node data's independent
// streams (11 and 12 are the SBM generator's).
constexpr uint64_t kCentroidStream = 13, kNoiseStream = 14, kSplitStream = 15;

struct PlainGraph {
  std::vector<int32_t> source, target, labels;
};

PlainGraph sbm(const SyntheticOptions& o) {
  SbmOptions sbm_options;
  sbm_options.num_nodes = o.num_nodes;
  sbm_options.num_blocks = o.num_classes;
  sbm_options.num_edges = o.num_edges;
  sbm_options.homophily = o.homophily;
  sbm_options.seed = o.seed;
  SbmGraph generated = generate_sbm(sbm_options);
  return {generated.edges.source.to_vector<int32_t>(), generated.edges.target.to_vector<int32_t>(),
          std::move(generated.blocks)};
}

PlainGraph rmat(const SyntheticOptions& o) {
  RmatOptions r;
  r.num_nodes = o.num_nodes;
  r.num_edges = o.num_edges;
  r.seed = o.seed;
  const EdgeList edges = generate_rmat(r);
  PlainGraph g;
  g.source = edges.source.to_vector<int32_t>();
  g.target = edges.target.to_vector<int32_t>();
  const std::vector<int32_t> relabel = rmat_node_permutation(r);
  const std::vector<int32_t> classes = contiguous_classes(o.num_nodes, o.num_classes);
  g.labels.resize(relabel.size());
  for (std::size_t p = 0; p < relabel.size(); ++p) g.labels[static_cast<std::size_t>(relabel[p])] = classes[p];
  return g;
}

// Loops dropped, repeats removed; symmetric: each {u, v} once, then both directions.
void simplify(PlainGraph& g, bool symmetric) {
  std::vector<uint64_t> keys;
  keys.reserve(g.source.size());
  for (std::size_t k = 0; k < g.source.size(); ++k) {
    uint32_t a = static_cast<uint32_t>(g.source[k]);
    uint32_t b = static_cast<uint32_t>(g.target[k]);
    if (a == b) continue;
    if (symmetric && a > b) std::swap(a, b);
    keys.push_back((static_cast<uint64_t>(a) << 32) | b);
  }
  __gnu_parallel::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  const std::size_t per_key = symmetric ? 2 : 1;
  g.source.assign(keys.size() * per_key, 0);
  g.target.assign(keys.size() * per_key, 0);
#pragma omp parallel for schedule(static)
  for (std::size_t k = 0; k < keys.size(); ++k) {
    const auto a = static_cast<int32_t>(keys[k] >> 32);
    const auto b = static_cast<int32_t>(keys[k] & 0xffffffffu);
    g.source[k * per_key] = a;
    g.target[k * per_key] = b;
    if (symmetric) {
      g.source[k * 2 + 1] = b;
      g.target[k * 2 + 1] = a;
    }
  }
}

Tensor planted_features(const SyntheticOptions& o, const std::vector<int32_t>& labels) {
  const int64_t f = o.num_features;
  const PhiloxStream centroid_stream{o.seed, kCentroidStream};
  const float scale = static_cast<float>(std::sqrt(6.0 / static_cast<double>(f)));
  std::vector<float> centroids(static_cast<std::size_t>(o.num_classes * f));
  for (std::size_t i = 0; i < centroids.size(); ++i) centroids[i] = (2.0f * centroid_stream.uniform(i) - 1.0f) * scale;
  Tensor features = Tensor::empty({o.num_nodes, f});
  float* x = features.data<float>();
  const PhiloxStream noise_stream{o.seed, kNoiseStream};
#pragma omp parallel for schedule(static)
  for (int64_t v = 0; v < o.num_nodes; ++v) {
    const float* centroid = centroids.data() + static_cast<int64_t>(labels[static_cast<std::size_t>(v)]) * f;
    for (int64_t j = 0; j < f; ++j) {
      const double normal = standard_normal(noise_stream, static_cast<uint64_t>(v * f + j));
      x[v * f + j] = centroid[j] + static_cast<float>(normal);
    }
  }
  return features;
}

}  // namespace

void random_splits(const SyntheticOptions& o, Dataset& d) {
  const int64_t n = o.num_nodes;
  const PhiloxStream split_stream{o.seed, kSplitStream};
  std::vector<std::pair<float, int32_t>> keyed(static_cast<std::size_t>(n));
  for (int64_t v = 0; v < n; ++v) keyed[static_cast<std::size_t>(v)] = {split_stream.uniform(static_cast<uint64_t>(v)), static_cast<int32_t>(v)};
  std::sort(keyed.begin(), keyed.end());
  const auto train_end = static_cast<int64_t>(o.train_fraction * static_cast<double>(n));
  const int64_t valid_end = std::min(n, train_end + static_cast<int64_t>(o.valid_fraction * static_cast<double>(n)));
  auto split = [&](int64_t begin, int64_t end) {
    std::vector<int32_t> ids;
    for (int64_t i = begin; i < end; ++i) ids.push_back(keyed[static_cast<std::size_t>(i)].second);
    std::sort(ids.begin(), ids.end());
    return Tensor::from_vector(ids, {static_cast<int64_t>(ids.size())});
  };
  d.train_index = split(0, train_end);
  d.valid_index = split(train_end, valid_end);
  d.test_index = split(valid_end, n);
}

namespace {

void check_node_data_options(const SyntheticOptions& o) {
  SGNN_CHECK(o.num_nodes >= 1 && o.num_nodes < (int64_t{1} << 31), "synthetic dataset: num_nodes ", o.num_nodes,
             " out of range [1, 2^31)");
  SGNN_CHECK(o.num_features >= 0, "synthetic dataset: negative num_features ", o.num_features);
  SGNN_CHECK(o.num_classes >= 1 && o.num_classes <= o.num_nodes, "synthetic dataset: num_classes ", o.num_classes,
             " must be in [1, num_nodes]");
  SGNN_CHECK(o.train_fraction >= 0 && o.valid_fraction >= 0 && o.train_fraction + o.valid_fraction <= 1,
             "synthetic dataset: train_fraction ", o.train_fraction, " and valid_fraction ", o.valid_fraction,
             " must be non-negative with a sum <= 1");
}

Dataset assemble(PlainGraph g, const SyntheticOptions& o, std::string name) {
  simplify(g, o.symmetric);
  Dataset d;
  d.name = std::move(name);
  d.source = "generated";
  d.edges.num_nodes = o.num_nodes;
  const auto e = static_cast<int64_t>(g.source.size());
  d.edges.source = Tensor::from_vector(g.source, {e});
  d.edges.target = Tensor::from_vector(g.target, {e});
  d.labels = Tensor::from_vector(g.labels, {o.num_nodes});
  d.num_classes = 1 + *std::max_element(g.labels.begin(), g.labels.end());
  if (o.num_features > 0) d.features = planted_features(o, g.labels);
  random_splits(o, d);
  return d;
}

}  // namespace

std::vector<int32_t> contiguous_classes(int64_t num_nodes, int64_t num_classes) {
  SGNN_CHECK(num_nodes >= 1 && num_classes >= 1 && num_classes <= num_nodes, "contiguous_classes: ", num_classes,
             " classes for ", num_nodes, " nodes (need 1 <= classes <= nodes)");
  std::vector<int32_t> classes(static_cast<std::size_t>(num_nodes));
  for (int64_t v = 0; v < num_nodes; ++v) {
    classes[static_cast<std::size_t>(v)] = static_cast<int32_t>(v * num_classes / num_nodes);
  }
  return classes;
}

Dataset generate_synthetic_dataset(const SyntheticOptions& o) {
  check_node_data_options(o);
  SGNN_CHECK(o.num_edges >= 0, "synthetic dataset: negative num_edges ", o.num_edges);
  SGNN_CHECK(o.homophily >= 0 && o.homophily <= 1, "synthetic dataset: homophily ", o.homophily, " outside [0, 1]");
  return o.kind == SyntheticKind::Sbm ? assemble(sbm(o), o, "sbm") : assemble(rmat(o), o, "rmat");
}

Dataset synthetic_dataset_from_graph(const EdgeList& edges, std::vector<int32_t> labels,
                                     const SyntheticOptions& options, std::string name) {
  edges.validate();
  SyntheticOptions o = options;
  o.num_nodes = edges.num_nodes;
  check_node_data_options(o);
  SGNN_CHECK(static_cast<int64_t>(labels.size()) == o.num_nodes, "synthetic dataset: ", labels.size(),
             " labels for ", o.num_nodes, " nodes");
  for (std::size_t v = 0; v < labels.size(); ++v) {
    SGNN_CHECK(labels[v] >= 0 && labels[v] < o.num_classes, "synthetic dataset: node ", v, " has class ", labels[v],
               ", outside [0, ", o.num_classes, ")");
  }
  const Tensor source = edges.source.to(Device::cpu());
  const Tensor target = edges.target.to(Device::cpu());
  return assemble({source.to_vector<int32_t>(), target.to_vector<int32_t>(), std::move(labels)}, o, std::move(name));
}

}  // namespace sgnn::graph_io
