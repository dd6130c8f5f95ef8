#include <doctest/doctest.h>

#include "graph_io/adjacency_from_pattern.hpp"
#include "graph_io/feature_transforms.hpp"
#include "graph_io/graph.hpp"
#include "graph_io/prepare.hpp"
#include "ops/determinism.hpp"
#include "ops/spmm.hpp"
#include "tests/graph_io/adjacency_equality.hpp"
#include "tests/graph_io/random_graphs.hpp"
#include "tests/graph_io/temp_files.hpp"
#include "tests/support/gpu_testing.hpp"
#include "tests/support/spmm_outputs.hpp"
#include "tests/support/testing.hpp"

using namespace sgnn;
using namespace sgnn::graph_io;
using namespace sgnn::testing;

TEST_CASE("GPU prepare_adjacency equals the host build bitwise, every option, adversarial graphs") {
  for (const auto& graph : test_graphs(/*large=*/true)) {
    for (const PrepareOptions& host_options : all_prepare_options()) {
      CAPTURE(graph.name);
      CAPTURE(describe(host_options));
      PrepareOptions device_options = host_options;
      device_options.device = kGpu;
      const Adjacency on_device = prepare_adjacency(graph.edges, device_options);
      CHECK(on_device.device() == kGpu);
      CHECK(on_device.csr.indices.device() == kGpu);
      const Adjacency host = prepare_adjacency(graph.edges, host_options);
      check_same_adjacency(on_device, host);
      // Device input edges give the same result.
      EdgeList device_edges = graph.edges;
      if (graph.edges.num_edges() > 0) {
        device_edges.source = graph.edges.source.to(kGpu);
        device_edges.target = graph.edges.target.to(kGpu);
        if (graph.edges.weight.defined()) device_edges.weight = graph.edges.weight.to(kGpu);
      }
      check_same_adjacency(prepare_adjacency(device_edges, device_options), host);
    }
  }
}

TEST_CASE("GPU prepare refuses bad ids and weights with the host's message") {
  PrepareOptions options;
  options.device = kGpu;
  CHECK_THROWS_WITH_AS(prepare_adjacency(edges_from(3, {0, 1, 2}, {1, 3, 0}), options), doctest::Contains("edge 1 (1 -> 3)"),
                       InvalidArgument);
  CHECK_THROWS_WITH_AS(prepare_adjacency(edges_from(3, {0, 1}, {1, 2}, {1.0f, NAN}), options), doctest::Contains("not finite"),
                       InvalidArgument);
}

TEST_CASE("GPU make_graph keeps everything on the device and equals the CPU graph") {
  Dataset d;
  d.edges = random_edges(997, 5000, 5, false);
  d.features = random_tensor({997, 19}, 6, 0.0, 1.0);
  d.num_classes = 0;
  const Graph gpu = make_graph(d, gcn_graph_options(), kGpu);
  const Graph cpu = make_graph(d, gcn_graph_options(), Device::cpu());
  CHECK(gpu.adjacency.device() == kGpu);
  CHECK(gpu.features.device() == kGpu);
  check_same_adjacency(gpu.adjacency, cpu.adjacency);
}

TEST_CASE("GPU prepare's entry edges and edge features equal the host's, every option, adversarial graphs") {
  for (const auto& graph : test_graphs(/*large=*/true)) {
    const int64_t edges = graph.edges.num_edges();
    // 5 features per edge (not a multiple of 4), none zero.
    const Tensor features = random_tensor({edges, 5}, 21, 0.5, 1.5);
    for (const PrepareOptions& host_options : all_prepare_options()) {
      CAPTURE(graph.name);
      CAPTURE(describe(host_options));
      PrepareOptions device_options = host_options;
      device_options.device = kGpu;
      Tensor device_edges;
      const Adjacency on_device = prepare_adjacency(graph.edges, device_options, &device_edges);
      Tensor host_edges;
      const Adjacency host = prepare_adjacency(graph.edges, host_options, &host_edges);
      check_same_adjacency(on_device, host);
      CHECK(device_edges.device() == kGpu);
      CHECK(device_edges.to_vector<int64_t>() == host_edges.to_vector<int64_t>());
      const Tensor device_features = edge_features_in_entry_order(features, device_edges);
      CHECK(device_features.device() == kGpu);
      CHECK(device_features.to_vector<float>() == edge_features_in_entry_order(features, host_edges).to_vector<float>());
    }
  }
}

TEST_CASE("GPU make_graph carries edge features like the CPU, built and from the cache") {
  sgnn::testing::TempDir dir;
  Dataset d;
  d.edges = random_edges(2003, 12000, 13, false);
  d.edge_features = random_tensor({12000, 7}, 14, 0.5, 1.5);
  GraphOptions options = gat_graph_options();
  options.edge_features = true;
  const Graph cpu = make_graph(d, options, Device::cpu());
  for (int pass = 0; pass < 2; ++pass) {
    const Graph gpu = make_graph(d, options, kGpu, dir.path().string());
    CHECK(gpu.statistics.cache_hit == (pass == 1));
    CHECK(gpu.edge_features.device() == kGpu);
    check_same_adjacency(gpu.adjacency, cpu.adjacency);
    CHECK(gpu.edge_features.to_vector<float>() == cpu.edge_features.to_vector<float>());
  }
}

TEST_CASE("GPU normalize_feature_rows matches the host, zero rows included") {
  for (const Shape& shape : {Shape{1, 1}, Shape{37, 5}, Shape{1000, 1433}, Shape{3, 100000}}) {
    Tensor x = random_tensor(shape, 8, 0.0, 1.0);
    // A zero row stays zero.
    std::vector<float> values = x.to_vector<float>();
    for (int64_t c = 0; c < shape[1]; ++c) values[static_cast<std::size_t>(c)] = 0.0f;
    x = Tensor::from_vector(values, shape);
    const Tensor host = normalize_feature_rows(x);
    const Tensor device = normalize_feature_rows(x.to(kGpu));
    CHECK(device.device() == kGpu);
    CHECK(relative_error(device, host) < 1e-5);
    // bfloat16 features (the papers100M-scale preset's), read as float: as the host reads them.
    std::vector<bfloat16> narrow_values(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) narrow_values[i] = bfloat16(values[i]);
    const Tensor narrow = Tensor::from_vector(narrow_values, shape);
    CHECK(relative_error(normalize_feature_rows(narrow.to(kGpu)), normalize_feature_rows(narrow)) < 1e-5);
  }
}

TEST_CASE("GPU make_graph stores a cache the next run loads, on the device, identical") {
  sgnn::testing::TempDir dir;
  Dataset d;
  d.edges = random_edges(3001, 20000, 9, true);
  GraphOptions options = gcn_graph_options();
  options.reordering = Reordering::Rcm;
  const Graph first = make_graph(d, options, kGpu, dir.path().string());
  CHECK_FALSE(first.statistics.cache_hit);
  const Graph second = make_graph(d, options, kGpu, dir.path().string());
  CHECK(second.statistics.cache_hit);
  CHECK(second.adjacency.device() == kGpu);
  CHECK(second.adjacency.values.device() == kGpu);
  check_same_adjacency(second.adjacency, first.adjacency);
  CHECK(second.node_order.to_vector<int32_t>() == first.node_order.to_vector<int32_t>());
}

TEST_CASE("GPU symmetric scale: the device builders keep it, and SpMM with it equals SpMM with the stored weights bitwise") {
  // A hub row of 60000 edges makes split rows (partial sums); widths 41 and
  // 128 take the padded and the vector paths, in float32 and bfloat16.
  // Deterministic: float32 split rows otherwise add their partials with atomics.
  const ops::DeterministicScope deterministic(true);
  const EdgeList edges = random_edges(20011, 150000, 47, false, 60000);
  PrepareOptions stored = gcn_graph_options().prepare;
  stored.device = kGpu;
  PrepareOptions scaled = stored;
  scaled.symmetric_scale = true;
  const Adjacency explicit_weights = prepare_adjacency(edges, stored);
  const Adjacency scale = prepare_adjacency(edges, scaled);
  REQUIRE(scale.symmetric_scale.defined());
  CHECK(scale.symmetric_scale.device() == kGpu);
  CHECK_FALSE(scale.values.defined());
  CHECK(stored_weights(scale).to_vector<float>() == explicit_weights.values.to_vector<float>());
  for (const int64_t width : {41, 128}) {
    for (const DType dtype : {DType::Float32, DType::BFloat16}) {
      CAPTURE(width);
      CAPTURE(dtype_name(dtype));
      const auto expected = spmm_outputs(explicit_weights, width, dtype, 48);
      const auto got = spmm_outputs(scale, width, dtype, 48);
      CHECK(got.first == expected.first);
      CHECK(got.second == expected.second);
    }
  }
}
