// Edge features from OGB's edge-feat file to the prepared adjacency's entry
// order: the reader and its errors, the processed file, prepare's entry
// edges against an independent reference of the rule (graph_io/prepare.hpp),
// make_graph with and without the adjacency cache, with a reordering.
#include <doctest/doctest.h>

#include <filesystem>
#include <map>

#include "graph_io/adjacency_cache.hpp"
#include "graph_io/graph.hpp"
#include "graph_io/load_dataset.hpp"
#include "graph_io/ogb_writer.hpp"
#include "graph_io/processed_dataset.hpp"
#include "graph_io/readers/ogb_reader.hpp"
#include "graph_io/section_file.hpp"
#include "tests/graph_io/adjacency_equality.hpp"
#include "tests/graph_io/random_graphs.hpp"
#include "tests/graph_io/temp_files.hpp"
#include "tests/support/testing.hpp"

using namespace sgnn;
using namespace sgnn::graph_io;
using sgnn::testing::TempDir;
namespace fs = std::filesystem;

namespace {

// A 4-node dataset of 5 edges with 2 features per edge, plain CSV.
std::map<std::string, std::string> edge_feature_files() {
  return {{"raw/num-node-list.csv", "4\n"},
          {"raw/edge.csv", "0,1\n1,0\n1,2\n2,3\n3,0\n"},
          {"raw/edge-feat.csv", "1,2\n3,4\n5,6\n7,8.5\n-9,1e-3\n"},
          {"raw/node-feat.csv", "1\n2\n3\n4\n"}};
}

IoError error_with_edge_features(const std::string& text) {
  TempDir dir;
  auto files = edge_feature_files();
  files["raw/edge-feat.csv"] = text;
  for (const auto& [name, contents] : files) sgnn::testing::write_text(dir / name, contents);
  try {
    read_ogb_dataset(dir.path());
  } catch (const IoError& error) {
    return error;
  }
  FAIL("no IoError for edge-feat " << text);
  return IoError("", 0, "");
}

void check_error(const IoError& error, int64_t line, const std::string& reason_part) {
  INFO(error.what());
  CHECK(error.file().ends_with("edge-feat.csv"));
  CHECK(error.line() == line);
  CHECK(error.reason().find(reason_part) != std::string::npos);
}

// prepare_adjacency's rule, written from its statement: entry (row, col)
// takes the first edge offering it, the input edges (target, source) in
// their order, then their reverses; loops dropped by Remove; added loops -1.
// A std::map keeps the entries in CSR order.
std::map<std::pair<int32_t, int32_t>, int64_t> reference_entry_edges(const EdgeList& edges,
                                                                      const PrepareOptions& options) {
  const std::vector<int32_t> source = edges.source.to_vector<int32_t>();
  const std::vector<int32_t> target = edges.target.to_vector<int32_t>();
  std::map<std::pair<int32_t, int32_t>, int64_t> first;
  const auto offer = [&](int32_t row, int32_t col, int64_t edge) {
    if (row == col && options.self_loops == SelfLoops::Remove) return;
    first.emplace(std::pair{row, col}, edge);  // keeps an earlier offer
  };
  for (std::size_t k = 0; k < source.size(); ++k) offer(target[k], source[k], static_cast<int64_t>(k));
  if (options.symmetrize) {
    for (std::size_t k = 0; k < source.size(); ++k) offer(source[k], target[k], static_cast<int64_t>(k));
  }
  if (options.self_loops == SelfLoops::Add) {
    for (int32_t v = 0; v < edges.num_nodes; ++v) first.emplace(std::pair{v, v}, -1);
  }
  return first;
}

// The (row, col) of every entry of `csr`, in its order (host).
std::vector<std::pair<int32_t, int32_t>> entries_of(const Csr& csr) {
  const std::vector<int64_t> indptr = sgnn::testing::as_int64(csr.indptr);
  const std::vector<int32_t> indices = csr.indices.to(Device::cpu()).to_vector<int32_t>();
  std::vector<std::pair<int32_t, int32_t>> out;
  for (int64_t row = 0; row < csr.num_rows; ++row) {
    for (int64_t k = indptr[static_cast<std::size_t>(row)]; k < indptr[static_cast<std::size_t>(row) + 1]; ++k) {
      out.emplace_back(static_cast<int32_t>(row), indices[static_cast<std::size_t>(k)]);
    }
  }
  return out;
}

// The features [nnz, F] that the rule gives `adjacency`'s entries, from the
// reference; `node_order` (optional) maps the adjacency's ids back to the edges'.
std::vector<float> expected_entry_features(const Adjacency& adjacency, const EdgeList& edges, const Tensor& features,
                                           const PrepareOptions& options, const Tensor& node_order = Tensor()) {
  const auto rule = reference_entry_edges(edges, options);
  const std::vector<float> values = features.to_vector<float>();
  const int64_t width = features.size(1);
  std::vector<int32_t> original;
  if (node_order.defined()) original = node_order.to_vector<int32_t>();
  std::vector<float> out;
  for (auto [row, col] : entries_of(adjacency.csr)) {
    if (!original.empty()) {
      row = original[static_cast<std::size_t>(row)];
      col = original[static_cast<std::size_t>(col)];
    }
    const auto found = rule.find({row, col});
    REQUIRE(found != rule.end());
    for (int64_t c = 0; c < width; ++c) {
      out.push_back(found->second < 0 ? 0.0f : values[static_cast<std::size_t>(found->second * width + c)]);
    }
  }
  return out;
}

// A multigraph with loops and repeats, and 3 random features per edge.
Dataset edge_feature_dataset(uint64_t seed) {
  Dataset d;
  d.name = "edge-features";
  d.edges = sgnn::testing::random_edges(40, 300, seed, false);
  d.edge_features = sgnn::testing::random_tensor({300, 3}, seed + 1);
  d.features = sgnn::testing::random_tensor({40, 2}, seed + 2);
  return d;
}

GraphOptions carrying(GraphOptions options) {
  options.edge_features = true;
  return options;
}

}  // namespace

TEST_CASE("OGB reader reads edge-feat into Dataset::edge_features, one row per edge in edge.csv's order") {
  TempDir dir;
  for (const auto& [name, contents] : edge_feature_files()) sgnn::testing::write_gzip(dir / (name + ".gz"), contents);
  const Dataset d = read_ogb_dataset(dir.path());
  CHECK(d.edge_features.shape() == Shape{5, 2});
  CHECK(d.edge_features.to_vector<float>() == std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8.5f, -9, 1e-3f});
  auto without = edge_feature_files();
  without.erase("raw/edge-feat.csv");
  TempDir plain;
  for (const auto& [name, contents] : without) sgnn::testing::write_text(plain / name, contents);
  CHECK_FALSE(read_ogb_dataset(plain.path()).edge_features.defined());
}

TEST_CASE("OGB reader: bad edge-feat files name the file, the line and the reason") {
  check_error(error_with_edge_features("1,2\n3,4\n5,6\n7,8\n"), 0, "has 4 feature rows but edge.csv has 5 edges");
  check_error(error_with_edge_features("1,2\n3,4\n5,6\n7,8\n9,10\n11,12\n"), 6, "has 6 feature rows");
  check_error(error_with_edge_features("1,2\n3,4\nfive,6\n7,8\n9,10\n"), 3, "expected a number");
  check_error(error_with_edge_features("1,2\n3,4\n5,6\n7\n9,10\n"), 4, "row has 1 feature values, the rows before have 2");
  check_error(error_with_edge_features("1,2\n3,4,0\n5,6\n7,8\n9,10\n"), 2, "row has 3 feature values");
  check_error(error_with_edge_features("1,2\n3,4\n5,nan\n7,8\n9,10\n"), 3, "feature value");
  check_error(error_with_edge_features(""), 0, "empty file, expected one row of features per edge");
}

TEST_CASE("processed dataset keeps edge features; a file of an older format from edge-feat inputs is stale") {
  TempDir dir;
  Dataset dataset = edge_feature_dataset(3);
  dataset.edges.num_nodes = 40;
  const fs::path folder = dir / "graph";
  write_ogb_dataset(dataset, folder, OgbWriteOptions{false});
  const Dataset parsed = load_dataset(folder.string());
  REQUIRE(parsed.edge_features.shape() == Shape{300, 3});
  LoadOptions deferred;
  deferred.defer_checks = true;
  Dataset mapped = load_dataset(folder.string(), deferred);
  CHECK(mapped.load.processed_hit);
  CHECK(mapped.unchecked.contains("edge_features"));
  verify_section(mapped, "edge_features");
  CHECK(mapped.edge_features.to_vector<float>() == parsed.edge_features.to_vector<float>());

  // The same file as version 2 wrote it (no edge features section).
  const fs::path processed = folder / "processed" / "dataset.sgnn";
  SectionFile older = read_section_file(processed, "processed-dataset", kProcessedDatasetVersion);
  older.kind_version = 2;
  std::erase_if(older.sections, [](const auto& section) { return section.first == "edge_features"; });
  write_section_file(processed, older);
  std::string problem;
  CHECK_FALSE(load_processed_dataset(processed, folder, false, problem).has_value());
  CHECK_MESSAGE(problem.find("holds no edge features") != std::string::npos, problem);
  const Dataset rebuilt = load_dataset(folder.string());
  CHECK_FALSE(rebuilt.load.processed_hit);
  CHECK(rebuilt.edge_features.defined());
  CHECK(load_dataset(folder.string()).load.processed_hit);

  // A version-2 file of a dataset without edge-feat still loads.
  fs::remove(folder / "raw" / "edge-feat.csv");
  (void)load_dataset(folder.string());
  SectionFile plain = read_section_file(processed, "processed-dataset", kProcessedDatasetVersion);
  plain.kind_version = 2;
  write_section_file(processed, plain);
  CHECK(load_processed_dataset(processed, folder, false, problem).has_value());
}

TEST_CASE("prepare's entry edges follow the rule on every option, and leave the adjacency as it was") {
  for (const auto& graph : sgnn::testing::test_graphs(/*large=*/false)) {
    for (const PrepareOptions& options : sgnn::testing::all_prepare_options()) {
      CAPTURE(graph.name);
      CAPTURE(sgnn::testing::describe(options));
      Tensor entry_edges;
      const Adjacency tracked = prepare_adjacency(graph.edges, options, &entry_edges);
      sgnn::testing::check_same_adjacency(tracked, prepare_adjacency(graph.edges, options));
      std::vector<int64_t> expected;
      for (const auto& [entry, edge] : reference_entry_edges(graph.edges, options)) expected.push_back(edge);
      REQUIRE(entry_edges.dtype() == DType::Int64);
      CHECK(entry_edges.to_vector<int64_t>() == expected);
    }
  }
}

TEST_CASE("edge features in entry order: symmetrised reverses, repeats, and added loops on a small graph") {
  // 0->1 [1,2], 1->0 [3,4], 1->2 [5,6], 1->2 again [7,8], 2->2 [9,10].
  const EdgeList edges = sgnn::testing::edges_from(3, {0, 1, 1, 1, 2}, {1, 0, 2, 2, 2});
  const Tensor features = Tensor::from_vector(std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, {5, 2});
  PrepareOptions options;
  options.symmetrize = true;
  options.self_loops = SelfLoops::Add;
  Tensor entry_edges;
  const Adjacency a = prepare_adjacency(edges, options, &entry_edges);
  // Row 0: (0,0) added, (0,1) from 1->0 (listed, beats 0->1's reverse); row 1:
  // (1,0) from 0->1, (1,1) added, (1,2) the reverse of the first 1->2; row 2:
  // (2,1) the first 1->2, (2,2) the listed loop.
  CHECK(entry_edges.to_vector<int64_t>() == std::vector<int64_t>{-1, 1, 0, -1, 2, 2, 4});
  CHECK(edge_features_in_entry_order(features, entry_edges).to_vector<float>() ==
        std::vector<float>{0, 0, 3, 4, 1, 2, 0, 0, 5, 6, 5, 6, 9, 10});
  CHECK(a.nnz() == 7);
  CHECK_THROWS_WITH_AS(edge_features_in_entry_order(features, Tensor::from_vector(std::vector<int64_t>{0, 5}, {2})),
                       doctest::Contains("entry 1 takes edge 5, outside [-1, 5)"), InvalidArgument);
  CHECK_THROWS_AS(edge_features_in_entry_order(features.narrow_rows(0, 2), entry_edges), InvalidArgument);
}

TEST_CASE("make_graph carries edge features in the adjacency's order when asked, through the cache and a reordering") {
  const Dataset dataset = edge_feature_dataset(5);
  for (const GraphOptions& base : {gat_graph_options(), gcn_graph_options()}) {
    const Graph plain = make_graph(dataset, base, Device::cpu());
    CHECK_FALSE(plain.edge_features.defined());
    const GraphOptions options = carrying(base);
    const Graph graph = make_graph(dataset, options, Device::cpu());
    REQUIRE(graph.edge_features.shape() == Shape{graph.adjacency.nnz(), 3});
    CHECK(graph.edge_features.to_vector<float>() ==
          expected_entry_features(graph.adjacency, dataset.edges, dataset.edge_features, options.prepare));
    sgnn::testing::check_same_adjacency(graph.adjacency, plain.adjacency);
  }

  TempDir cache;
  const GraphOptions options = carrying(gat_graph_options());
  const Graph missed = make_graph(dataset, options, Device::cpu(), cache.path().string());
  CHECK_FALSE(missed.statistics.cache_hit);
  const Graph hit = make_graph(dataset, options, Device::cpu(), cache.path().string());
  CHECK(hit.statistics.cache_hit);
  CHECK(hit.edge_features.to_vector<float>() == missed.edge_features.to_vector<float>());
  // Other feature values on the same edges: the cache holds their order, the features are the dataset's.
  Dataset changed = dataset;
  changed.edge_features = sgnn::testing::random_tensor({300, 3}, 99);
  const Graph rehit = make_graph(changed, options, Device::cpu(), cache.path().string());
  CHECK(rehit.statistics.cache_hit);
  CHECK(rehit.edge_features.to_vector<float>() ==
        expected_entry_features(rehit.adjacency, changed.edges, changed.edge_features, options.prepare));
  // A graph without them uses a cache file of its own.
  const Graph plain = make_graph(dataset, gat_graph_options(), Device::cpu(), cache.path().string());
  CHECK_FALSE(plain.statistics.cache_hit);
  CHECK(plain.statistics.cache_path != hit.statistics.cache_path);

  GraphOptions reordered = options;
  reordered.reordering = Reordering::Rcm;
  for (int pass = 0; pass < 2; ++pass) {  // built, then from the cache
    const Graph graph = make_graph(dataset, reordered, Device::cpu(), cache.path().string());
    CHECK(graph.statistics.cache_hit == (pass == 1));
    CHECK(graph.edge_features.to_vector<float>() == expected_entry_features(graph.adjacency, dataset.edges,
                                                                            dataset.edge_features, reordered.prepare,
                                                                            graph.node_order));
  }
}

TEST_CASE("adjacency cache: entry edges out of their range or of another edge count are not trusted") {
  TempDir dir;
  const Dataset dataset = edge_feature_dataset(8);
  const GraphOptions options = carrying(gat_graph_options());
  const AdjacencyCacheEntry entry = adjacency_cache_entry(dir.path(), dataset, options);
  CachedAdjacency cached;
  PrepareOptions prepare = options.prepare;
  cached.adjacency = prepare_adjacency(dataset.edges, prepare, &cached.entry_edges);
  cached.edge_count = dataset.edges.num_edges();
  std::vector<int64_t> bad = cached.entry_edges.to_vector<int64_t>();
  bad[bad.size() / 2] = 300;
  CachedAdjacency tampered = cached;
  tampered.entry_edges = Tensor::from_vector(bad, {static_cast<int64_t>(bad.size())});
  store_adjacency_cache(entry.file, entry.fingerprint, tampered);
  std::string problem;
  CHECK_FALSE(load_adjacency_cache(entry.file, entry.fingerprint, problem).has_value());
  CHECK_MESSAGE(problem.find("takes edge 300, outside [-1, 300)") != std::string::npos, problem);
  const Graph rebuilt = make_graph(dataset, options, Device::cpu(), dir.path().string());
  CHECK_FALSE(rebuilt.statistics.cache_hit);
  CHECK(rebuilt.edge_features.to_vector<float>() ==
        expected_entry_features(rebuilt.adjacency, dataset.edges, dataset.edge_features, options.prepare));

  CachedAdjacency other_count = cached;
  other_count.edge_count = 1000;
  store_adjacency_cache(entry.file, entry.fingerprint, other_count);
  CHECK(load_adjacency_cache(entry.file, entry.fingerprint, problem).has_value());  // in range of its own count
  const Graph again = make_graph(dataset, options, Device::cpu(), dir.path().string());
  CHECK_FALSE(again.statistics.cache_hit);
}
