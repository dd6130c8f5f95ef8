#include <doctest/doctest.h>

#include "graph_io/generators/grid_graphs.hpp"
#include "graph_io/readers/ogb_reader.hpp"
#include "graph_io/ogb_writer.hpp"
#include "graph_io/generators/synthetic_dataset.hpp"
#include "tests/graph_io/generator_checks.hpp"
#include "tests/graph_io/temp_files.hpp"

using namespace sgnn;
using namespace sgnn::graph_io;

namespace {

// Share of edges whose ends have the same label.
double same_label_share(const Dataset& d) {
  return sgnn::testing::same_class_share(d.edges, d.labels.to_vector<int32_t>());
}

// Accuracy of the nearest class mean (means from the train split) on the test split.
double nearest_mean_accuracy(const Dataset& d, const Tensor& features) {
  const int64_t f = features.size(1);
  const std::vector<float> x = features.to_vector<float>();
  const std::vector<int32_t> y = d.labels.to_vector<int32_t>();
  std::vector<double> mean(static_cast<std::size_t>(d.num_classes * f), 0.0);
  std::vector<int64_t> count(static_cast<std::size_t>(d.num_classes), 0);
  for (const int32_t v : d.train_index.to_vector<int32_t>()) {
    const auto c = static_cast<std::size_t>(y[static_cast<std::size_t>(v)]);
    ++count[c];
    for (int64_t j = 0; j < f; ++j) mean[c * static_cast<std::size_t>(f) + static_cast<std::size_t>(j)] += static_cast<double>(x[static_cast<std::size_t>(v * f + j)]);
  }
  for (std::size_t c = 0; c < count.size(); ++c) {
    for (int64_t j = 0; j < f; ++j) mean[c * static_cast<std::size_t>(f) + static_cast<std::size_t>(j)] /= static_cast<double>(std::max<int64_t>(1, count[c]));
  }
  int64_t right = 0;
  const std::vector<int32_t> test = d.test_index.to_vector<int32_t>();
  for (const int32_t v : test) {
    double best = 1e300;
    int64_t best_class = -1;
    for (int64_t c = 0; c < d.num_classes; ++c) {
      double distance = 0;
      for (int64_t j = 0; j < f; ++j) {
        const double diff = static_cast<double>(x[static_cast<std::size_t>(v * f + j)]) - mean[static_cast<std::size_t>(c * f + j)];
        distance += diff * diff;
      }
      if (distance < best) {
        best = distance;
        best_class = c;
      }
    }
    right += best_class == y[static_cast<std::size_t>(v)] ? 1 : 0;
  }
  return static_cast<double>(right) / static_cast<double>(test.size());
}

// Features averaged over in-neighbours and the node itself (one GCN-like hop).
Tensor neighbour_mean(const Dataset& d) {
  const int64_t n = d.num_nodes(), f = d.features.size(1);
  const std::vector<float> x = d.features.to_vector<float>();
  std::vector<double> sum(x.begin(), x.end());
  std::vector<int64_t> count(static_cast<std::size_t>(n), 1);
  const std::vector<int32_t> s = d.edges.source.to_vector<int32_t>();
  const std::vector<int32_t> t = d.edges.target.to_vector<int32_t>();
  for (std::size_t k = 0; k < s.size(); ++k) {
    ++count[static_cast<std::size_t>(t[k])];
    for (int64_t j = 0; j < f; ++j) sum[static_cast<std::size_t>(t[k] * f + j)] += static_cast<double>(x[static_cast<std::size_t>(s[k] * f + j)]);
  }
  std::vector<float> out(sum.size());
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<float>(sum[i] / static_cast<double>(count[i / static_cast<std::size_t>(f)]));
  return Tensor::from_vector(out, {n, f});
}

}  // namespace

TEST_CASE("SBM dataset: deterministic, simple, symmetric, homophilous, and the graph makes it easier") {
  SyntheticOptions o;
  o.num_nodes = 2000;
  o.num_edges = 10000;
  o.symmetric = true;
  o.num_features = 16;
  o.num_classes = 5;
  o.seed = 3;
  const Dataset d = generate_synthetic_dataset(o);
  d.edges.validate();
  CHECK(d.num_classes == 5);
  CHECK(d.edges.num_edges() % 2 == 0);
  CHECK(d.edges.num_edges() > 19000);  // few repeats among 10000 draws
  CHECK(d.train_index.numel() + d.valid_index.numel() + d.test_index.numel() == 2000);
  CHECK(d.train_index.numel() == 1200);
  const Dataset again = generate_synthetic_dataset(o);
  CHECK(again.edges.source.to_vector<int32_t>() == d.edges.source.to_vector<int32_t>());
  CHECK(again.features.to_vector<float>() == d.features.to_vector<float>());
  // Symmetric and simple: every (u, v) has (v, u), no loops.
  const std::vector<int32_t> s = d.edges.source.to_vector<int32_t>();
  const std::vector<int32_t> t = d.edges.target.to_vector<int32_t>();
  for (std::size_t k = 0; k < s.size(); k += 2) {
    CHECK(s[k] != t[k]);
    CHECK(s[k + 1] == t[k]);
    CHECK(t[k + 1] == s[k]);
  }
  CHECK(same_label_share(d) > 0.75);
  const double features_only = nearest_mean_accuracy(d, d.features);
  const double with_graph = nearest_mean_accuracy(d, neighbour_mean(d));
  CHECK(features_only > 1.0 / 5 + 0.1);  // learnable from features
  CHECK(with_graph > features_only + 0.1);  // and the graph helps
}

TEST_CASE("R-MAT dataset: labels are more homophilous than chance") {
  SyntheticOptions o;
  o.kind = SyntheticKind::Rmat;
  o.num_nodes = 4096;
  o.num_edges = 40000;
  o.num_features = 8;
  o.num_classes = 4;
  const Dataset d = generate_synthetic_dataset(o);
  d.edges.validate();
  CHECK(d.num_classes == 4);
  CHECK(same_label_share(d) > 0.25 + 0.1);
  SyntheticOptions bad = o;
  bad.num_classes = 0;
  CHECK_THROWS_AS(generate_synthetic_dataset(bad), InvalidArgument);
  bad = o;
  bad.train_fraction = 0.9;
  bad.valid_fraction = 0.2;
  CHECK_THROWS_AS(generate_synthetic_dataset(bad), InvalidArgument);
}

TEST_CASE("OGB writer output reads back identically, gzip and plain") {
  SyntheticOptions o;
  o.num_nodes = 300;
  o.num_edges = 1000;
  o.num_features = 5;
  o.num_classes = 3;
  const Dataset d = generate_synthetic_dataset(o);
  for (const bool gzip : {true, false}) {
    sgnn::testing::TempDir dir;
    write_ogb_dataset(d, dir / "g", {.gzip = gzip});
    CHECK(std::filesystem::exists(dir / (gzip ? "g/raw/edge.csv.gz" : "g/raw/edge.csv")));
    const Dataset r = read_ogb_dataset(dir / "g");
    CHECK(r.num_nodes() == 300);
    CHECK(r.edges.source.to_vector<int32_t>() == d.edges.source.to_vector<int32_t>());
    CHECK(r.edges.target.to_vector<int32_t>() == d.edges.target.to_vector<int32_t>());
    CHECK(r.features.to_vector<float>() == d.features.to_vector<float>());  // shortest round-trip form
    CHECK(r.labels.to_vector<int32_t>() == d.labels.to_vector<int32_t>());
    CHECK(r.valid_index.to_vector<int32_t>() == d.valid_index.to_vector<int32_t>());
    CHECK(r.num_classes == d.num_classes);
  }
  Dataset weighted = d;
  weighted.edges.weight = Tensor::full({d.edges.num_edges()}, 1.0);
  sgnn::testing::TempDir dir;
  CHECK_THROWS_AS(write_ogb_dataset(weighted, dir / "w"), InvalidArgument);
}

TEST_CASE("a dataset around another family's graph: simplified, symmetric, planted features, checked labels") {
  const EdgeList grid = generate_stencil({{30, 20, 1}, 1, StencilShape::Cross});
  SyntheticOptions o;
  o.symmetric = true;
  o.num_features = 6;
  o.num_classes = 4;
  o.seed = 2;
  const std::vector<int32_t> classes = contiguous_classes(600, 4);
  CHECK(classes.front() == 0);
  CHECK(classes[149] == 0);
  CHECK(classes[150] == 1);
  CHECK(classes.back() == 3);
  const Dataset d = synthetic_dataset_from_graph(grid, classes, o, "stencil2d");
  CHECK(d.name == "stencil2d");
  CHECK(d.num_nodes() == 600);
  CHECK(d.edges.num_edges() == 2 * grid.num_edges());  // no loops or repeats to drop; both directions
  CHECK(d.num_classes == 4);
  CHECK(d.features.shape() == Shape{600, 6});
  CHECK(d.train_index.numel() + d.valid_index.numel() + d.test_index.numel() == 600);
  CHECK(same_label_share(d) > 0.9);  // contiguous id ranges of a grid are slabs
  std::vector<int32_t> bad = classes;
  bad[10] = 4;
  CHECK_THROWS_WITH_AS(synthetic_dataset_from_graph(grid, bad, o, "x"), doctest::Contains("node 10 has class 4"),
                       InvalidArgument);
  CHECK_THROWS_AS(synthetic_dataset_from_graph(grid, std::vector<int32_t>(599, 0), o, "x"), InvalidArgument);
  CHECK_THROWS_AS(contiguous_classes(3, 4), InvalidArgument);
}
