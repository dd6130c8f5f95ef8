#include "graph_io/synthetic_dataset.hpp"

#include <parallel/algorithm>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/philox.hpp"
#include "graph_io/generators.hpp"

namespace sgnn::graph_io {

namespace {

// Philox stream offsets (in 4-value blocks) of the generator's independent streams.
constexpr uint64_t kLabelStream = 11, kEdgeStream = 12, kCentroidStream = 13, kNoiseStream = 14, kSplitStream = 15;

int32_t pick(float uniform, int64_t count) {
  return static_cast<int32_t>(std::min<int64_t>(count - 1, static_cast<int64_t>(static_cast<double>(uniform) * static_cast<double>(count))));
}

struct SbmGraph {
  std::vector<int32_t> source, target, labels;
};

SbmGraph sbm(const SyntheticOptions& o) {
  const int64_t n = o.num_nodes;
  SbmGraph g;
  g.labels.resize(static_cast<std::size_t>(n));
  const PhiloxStream label_stream{o.seed, kLabelStream};
  for (int64_t v = 0; v < n; ++v) g.labels[static_cast<std::size_t>(v)] = pick(label_stream.uniform(static_cast<uint64_t>(v)), o.num_classes);
  // Members of each class, contiguous (counting sort).
  std::vector<int64_t> start(static_cast<std::size_t>(o.num_classes) + 1, 0);
  for (const int32_t c : g.labels) ++start[static_cast<std::size_t>(c) + 1];
  std::partial_sum(start.begin(), start.end(), start.begin());
  std::vector<int32_t> members(static_cast<std::size_t>(n));
  std::vector<int64_t> cursor(start.begin(), start.end() - 1);
  for (int64_t v = 0; v < n; ++v) members[static_cast<std::size_t>(cursor[static_cast<std::size_t>(g.labels[static_cast<std::size_t>(v)])]++)] = static_cast<int32_t>(v);

  g.source.resize(static_cast<std::size_t>(o.num_edges));
  g.target.resize(static_cast<std::size_t>(o.num_edges));
  const PhiloxStream edge_stream{o.seed, kEdgeStream};
  const auto homophily = static_cast<float>(o.homophily);
#pragma omp parallel for schedule(static)
  for (int64_t e = 0; e < o.num_edges; ++e) {
    const uint64_t base = 3 * static_cast<uint64_t>(e);
    const int32_t s = pick(edge_stream.uniform(base), n);
    int32_t t;
    if (edge_stream.uniform(base + 1) < homophily) {
      const std::size_t c = static_cast<std::size_t>(g.labels[static_cast<std::size_t>(s)]);
      const int64_t size = start[c + 1] - start[c];  // >= 1: s itself
      t = members[static_cast<std::size_t>(start[c] + pick(edge_stream.uniform(base + 2), size))];
    } else {
      t = pick(edge_stream.uniform(base + 2), n);
    }
    g.source[static_cast<std::size_t>(e)] = s;
    g.target[static_cast<std::size_t>(e)] = t;
  }
  return g;
}

SbmGraph rmat(const SyntheticOptions& o) {
  RmatOptions r;
  r.num_nodes = o.num_nodes;
  r.num_edges = o.num_edges;
  r.seed = o.seed;
  const EdgeList edges = generate_rmat(r);
  SbmGraph g;
  g.source = edges.source.to_vector<int32_t>();
  g.target = edges.target.to_vector<int32_t>();
  const std::vector<int32_t> relabel = rmat_node_permutation(r);
  g.labels.resize(relabel.size());
  for (std::size_t p = 0; p < relabel.size(); ++p) {
    g.labels[static_cast<std::size_t>(relabel[p])] =
        static_cast<int32_t>(static_cast<int64_t>(p) * o.num_classes / o.num_nodes);
  }
  return g;
}

// Loops dropped, repeats removed; symmetric: each {u, v} once, then both directions.
void simplify(SbmGraph& g, bool symmetric) {
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
  constexpr double kTwoPi = 6.283185307179586;
#pragma omp parallel for schedule(static)
  for (int64_t v = 0; v < o.num_nodes; ++v) {
    const float* centroid = centroids.data() + static_cast<int64_t>(labels[static_cast<std::size_t>(v)]) * f;
    for (int64_t j = 0; j < f; ++j) {
      // Box–Muller on two uniforms; 1 − u is in (0, 1], so the log is finite.
      const uint64_t index = 2 * static_cast<uint64_t>(v * f + j);
      const double u1 = 1.0 - static_cast<double>(noise_stream.uniform(index));
      const double u2 = static_cast<double>(noise_stream.uniform(index + 1));
      const double normal = std::sqrt(-2.0 * std::log(u1)) * std::cos(kTwoPi * u2);
      x[v * f + j] = centroid[j] + static_cast<float>(normal);
    }
  }
  return features;
}

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

}  // namespace

Dataset generate_synthetic_dataset(const SyntheticOptions& o) {
  SGNN_CHECK(o.num_nodes >= 1 && o.num_nodes < (int64_t{1} << 31), "synthetic dataset: num_nodes ", o.num_nodes,
             " out of range [1, 2^31)");
  SGNN_CHECK(o.num_edges >= 0, "synthetic dataset: negative num_edges ", o.num_edges);
  SGNN_CHECK(o.num_features >= 0, "synthetic dataset: negative num_features ", o.num_features);
  SGNN_CHECK(o.num_classes >= 1 && o.num_classes <= o.num_nodes, "synthetic dataset: num_classes ", o.num_classes,
             " must be in [1, num_nodes]");
  SGNN_CHECK(o.homophily >= 0 && o.homophily <= 1, "synthetic dataset: homophily ", o.homophily, " outside [0, 1]");
  SGNN_CHECK(o.train_fraction >= 0 && o.valid_fraction >= 0 && o.train_fraction + o.valid_fraction <= 1,
             "synthetic dataset: train_fraction ", o.train_fraction, " and valid_fraction ", o.valid_fraction,
             " must be non-negative with a sum <= 1");
  SbmGraph g = o.kind == SyntheticKind::Sbm ? sbm(o) : rmat(o);
  simplify(g, o.symmetric);

  Dataset d;
  d.name = o.kind == SyntheticKind::Sbm ? "sbm" : "rmat";
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

}  // namespace sgnn::graph_io
