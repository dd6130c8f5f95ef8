#include <doctest/doctest.h>

#include <algorithm>

#include "graph_io/adjacency_cache.hpp"
#include "graph_io/csr_edges.hpp"
#include "graph_io/feature_transforms.hpp"
#include "graph_io/generators/generators.hpp"
#include "graph_io/graph.hpp"
#include "graph_io/graph_statistics.hpp"
#include "graph_io/section_file.hpp"
#include "tests/graph_io/adjacency_equality.hpp"
#include "tests/graph_io/temp_files.hpp"
#include "tests/support/testing.hpp"

using namespace sgnn;
using namespace sgnn::graph_io;
using sgnn::testing::check_same_adjacency;
using sgnn::testing::TempDir;

namespace {

// A random multigraph with features, labels and splits.
Dataset random_dataset(int64_t n, int64_t e, uint64_t seed, bool weighted = false) {
  RmatOptions rmat;
  rmat.num_nodes = n;
  rmat.num_edges = e;
  rmat.seed = seed;
  Dataset d;
  d.name = "random";
  d.edges = generate_rmat(rmat);
  if (weighted) d.edges.weight = sgnn::testing::random_tensor({e}, seed + 1, 0.5, 2.0);
  d.features = sgnn::testing::random_tensor({n, 3}, seed + 2);
  std::vector<int32_t> labels(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < labels.size(); ++i) labels[i] = static_cast<int32_t>((i * 7) % 4);
  d.labels = Tensor::from_vector(labels, {n});
  d.num_classes = 4;
  d.train_index = Tensor::from_vector(std::vector<int32_t>{3, 0, 5}, {3});
  d.valid_index = Tensor::from_vector(std::vector<int32_t>{1, 7}, {2});
  d.test_index = Tensor::from_vector(std::vector<int32_t>{2, 4, 6}, {3});
  return d;
}

std::filesystem::path only_cache_file(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) files.push_back(entry.path());
  REQUIRE(files.size() == 1);
  return files.front();
}

}  // namespace

TEST_CASE("make_graph without a cache prepares the adjacency and moves the node data") {
  const Dataset d = random_dataset(50, 300, 1);
  const Graph g = make_graph(d, gcn_graph_options(), Device::cpu());
  g.adjacency.validate();
  check_same_adjacency(g.adjacency, prepare_adjacency(d.edges, gcn_graph_options().prepare));
  CHECK(g.num_nodes == 50);
  CHECK(g.num_classes == 4);
  CHECK(g.features.to_vector<float>() == d.features.to_vector<float>());
  CHECK(g.test_index.to_vector<int32_t>() == d.test_index.to_vector<int32_t>());
  CHECK_FALSE(g.node_order.defined());
  CHECK_FALSE(g.statistics.cache_hit);
  CHECK(g.statistics.cache_path.empty());
  CHECK(gat_graph_options().prepare.normalization == Normalization::None);
  CHECK(gat_graph_options().prepare.self_loops == SelfLoops::Add);
}

TEST_CASE("adjacency cache: miss writes the file, hit loads the identical adjacency") {
  TempDir dir;
  const Dataset d = random_dataset(64, 500, 2, /*weighted=*/true);
  const Graph first = make_graph(d, gcn_graph_options(), Device::cpu(), dir.path().string());
  CHECK_FALSE(first.statistics.cache_hit);
  CHECK(std::filesystem::exists(first.statistics.cache_path));
  const Graph second = make_graph(d, gcn_graph_options(), Device::cpu(), dir.path().string());
  CHECK(second.statistics.cache_hit);
  CHECK(second.statistics.cache_path == first.statistics.cache_path);
  check_same_adjacency(second.adjacency, first.adjacency);
  second.adjacency.validate();
}

TEST_CASE("adjacency cache: the fingerprint separates edges, weights and options") {
  const Dataset d = random_dataset(64, 500, 3);
  const uint64_t base = adjacency_fingerprint(d.edges, gcn_graph_options());
  CHECK(base == adjacency_fingerprint(d.edges, gcn_graph_options()));
  CHECK(base != adjacency_fingerprint(d.edges, gat_graph_options()));
  GraphOptions reordered = gcn_graph_options();
  reordered.reordering = Reordering::Rcm;
  CHECK(base != adjacency_fingerprint(d.edges, reordered));
  GraphOptions on_device = gcn_graph_options();
  on_device.prepare.device = Device::cuda(0);
  CHECK(base == adjacency_fingerprint(d.edges, on_device));  // the device is not part of the content
  EdgeList changed = d.edges;
  changed.target = d.edges.target.clone();
  changed.target.data<int32_t>()[17] = (changed.target.data<int32_t>()[17] + 1) % 64;
  CHECK(base != adjacency_fingerprint(changed, gcn_graph_options()));
  EdgeList weighted = d.edges;
  weighted.weight = Tensor::full({d.edges.num_edges()}, 1.0);
  CHECK(base != adjacency_fingerprint(weighted, gcn_graph_options()));
  EdgeList bigger = d.edges;
  bigger.num_nodes = 65;
  CHECK(base != adjacency_fingerprint(bigger, gcn_graph_options()));
}

TEST_CASE("adjacency cache: a corrupted byte, a truncated file or another version is rebuilt, never trusted") {
  const Dataset d = random_dataset(80, 700, 4, /*weighted=*/true);
  const Adjacency fresh = prepare_adjacency(d.edges, gcn_graph_options().prepare);
  for (const char* damage : {"byte", "truncate", "version", "stale", "garbage"}) {
    CAPTURE(damage);
    TempDir dir;
    make_graph(d, gcn_graph_options(), Device::cpu(), dir.path().string());
    const std::filesystem::path file = only_cache_file(dir.path());
    std::string bytes = sgnn::testing::read_bytes(file);
    const std::string what = damage;
    if (what == "byte") {
      bytes[bytes.size() - 3] = static_cast<char>(bytes[bytes.size() - 3] ^ 0x10);  // inside the last payload
    } else if (what == "truncate") {
      bytes.resize(bytes.size() * 2 / 3);
    } else if (what == "garbage") {
      bytes = "not a cache";
    } else if (what == "version") {
      SectionFile newer;
      newer.kind = "adjacency-cache";
      newer.kind_version = kAdjacencyCacheVersion + 1;
      newer.fingerprint = adjacency_fingerprint(d.edges, gcn_graph_options());
      write_section_file(file, newer);
      bytes = sgnn::testing::read_bytes(file);
    } else {  // stale: a valid cache of another graph under this name
      TempDir other;
      make_graph(random_dataset(80, 700, 5), gcn_graph_options(), Device::cpu(), other.path().string());
      bytes = sgnn::testing::read_bytes(only_cache_file(other.path()));
    }
    sgnn::testing::write_text(file, bytes);

    std::string problem;  // loaded as make_graph does: every section it uses is checked
    CHECK_FALSE(load_adjacency_cache(file, adjacency_fingerprint(d.edges, gcn_graph_options()), problem, Device::cpu(),
                                     gcn_graph_options().prepare));
    CHECK_FALSE(problem.empty());
    const Graph rebuilt = make_graph(d, gcn_graph_options(), Device::cpu(), dir.path().string());
    CHECK_FALSE(rebuilt.statistics.cache_hit);
    check_same_adjacency(rebuilt.adjacency, fresh);
    // The rebuilt file is good again.
    const Graph again = make_graph(d, gcn_graph_options(), Device::cpu(), dir.path().string());
    CHECK(again.statistics.cache_hit);
    check_same_adjacency(again.adjacency, fresh);
  }
}

TEST_CASE("adjacency cache: an unwritable cache folder only costs the cache") {
  TempDir dir;
  sgnn::testing::write_text(dir / "a-file", "x");
  const Dataset d = random_dataset(30, 100, 6);
  const Graph g = make_graph(d, gat_graph_options(), Device::cpu(), (dir / "a-file").string());
  CHECK_FALSE(g.statistics.cache_hit);
  g.adjacency.validate();
}

TEST_CASE("reordering renames nodes consistently in edges, features, labels and splits") {
  const Dataset d = random_dataset(40, 200, 7);
  for (const Reordering kind : {Reordering::Rcm, Reordering::Degree}) {
    CAPTURE(reordering_name(kind));
    GraphOptions options = gat_graph_options();
    options.reordering = kind;
    TempDir dir;
    const Graph g = make_graph(d, options, Device::cpu(), dir.path().string());
    REQUIRE(g.node_order.defined());
    const std::vector<int32_t> order = g.node_order.to_vector<int32_t>();
    const std::vector<int32_t> inverse = invert_node_order(g.node_order, 40);
    // Node i of the graph is node order[i] of the dataset.
    const std::vector<float> features = d.features.to_vector<float>();
    const std::vector<float> moved = g.features.to_vector<float>();
    const std::vector<int32_t> labels = d.labels.to_vector<int32_t>();
    const std::vector<int32_t> moved_labels = g.labels.to_vector<int32_t>();
    for (std::size_t i = 0; i < order.size(); ++i) {
      CHECK(moved_labels[i] == labels[static_cast<std::size_t>(order[i])]);
      for (std::size_t f = 0; f < 3; ++f) CHECK(moved[i * 3 + f] == features[static_cast<std::size_t>(order[i]) * 3 + f]);
    }
    const std::vector<int32_t> train = d.train_index.to_vector<int32_t>();
    const std::vector<int32_t> moved_train = g.train_index.to_vector<int32_t>();
    for (std::size_t k = 0; k < train.size(); ++k) CHECK(moved_train[k] == inverse[static_cast<std::size_t>(train[k])]);
    // The adjacency is the prepared adjacency of the renamed edges.
    Dataset renamed = reorder_dataset(d, g.node_order);
    check_same_adjacency(g.adjacency, prepare_adjacency(renamed.edges, options.prepare));
    const std::vector<int32_t> s = d.edges.source.to_vector<int32_t>();
    const std::vector<int32_t> rs = renamed.edges.source.to_vector<int32_t>();
    for (std::size_t k = 0; k < s.size(); ++k) CHECK(rs[k] == inverse[static_cast<std::size_t>(s[k])]);
    // A cache hit brings the same order back.
    const Graph hit = make_graph(d, options, Device::cpu(), dir.path().string());
    CHECK(hit.statistics.cache_hit);
    CHECK(hit.node_order.to_vector<int32_t>() == order);
    CHECK(hit.labels.to_vector<int32_t>() == moved_labels);
  }
}

TEST_CASE("RCM shrinks the bandwidth of a shuffled path; degree order sorts by degree") {
  // A path 0-1-2-...-99 under a random relabelling has a large bandwidth; RCM restores a small one.
  const int64_t n = 100;
  const std::vector<int32_t> shuffle = compute_node_order(generate_rmat({n, 10, 0.57, 0.19, 0.19, 9}), Reordering::Degree)
                                           .to_vector<int32_t>();  // any permutation
  std::vector<int32_t> s, t;
  for (int64_t i = 0; i + 1 < n; ++i) {
    s.push_back(shuffle[static_cast<std::size_t>(i)]);
    t.push_back(shuffle[static_cast<std::size_t>(i + 1)]);
  }
  EdgeList path{n, Tensor::from_vector(s, {n - 1}), Tensor::from_vector(t, {n - 1}), {}};
  auto bandwidth = [&](const std::vector<int32_t>& inverse) {
    int64_t widest = 0;
    for (std::size_t k = 0; k < s.size(); ++k) {
      widest = std::max<int64_t>(widest, std::abs(inverse[static_cast<std::size_t>(s[k])] - inverse[static_cast<std::size_t>(t[k])]));
    }
    return widest;
  };
  const Tensor rcm = compute_node_order(path, Reordering::Rcm);
  CHECK(bandwidth(invert_node_order(rcm, n)) == 1);
  std::vector<int32_t> identity(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < identity.size(); ++i) identity[i] = static_cast<int32_t>(i);
  CHECK(bandwidth(identity) > 10);

  const Dataset d = random_dataset(60, 400, 8);
  const std::vector<int32_t> order = compute_node_order(d.edges, Reordering::Degree).to_vector<int32_t>();
  std::vector<int64_t> degree(60, 0);
  for (const int32_t v : d.edges.source.to_vector<int32_t>()) ++degree[static_cast<std::size_t>(v)];
  for (const int32_t v : d.edges.target.to_vector<int32_t>()) ++degree[static_cast<std::size_t>(v)];
  for (std::size_t i = 1; i < order.size(); ++i) {
    CHECK(degree[static_cast<std::size_t>(order[i - 1])] >= degree[static_cast<std::size_t>(order[i])]);
  }
  CHECK_THROWS_AS(invert_node_order(Tensor::from_vector(std::vector<int32_t>{0, 0}, {2}), 2), InvalidArgument);
  CHECK(parse_reordering("rcm") == Reordering::Rcm);
  CHECK_THROWS_AS(parse_reordering("metis"), InvalidArgument);
}

TEST_CASE("normalize_feature_rows makes rows sum to 1 and keeps zero rows at 0") {
  const Tensor x = Tensor::from_vector(std::vector<float>{1, 0, 3, 0, 0, 0, 2, 2, 0}, {3, 3});
  const std::vector<float> y = normalize_feature_rows(x).to_vector<float>();
  CHECK(y == std::vector<float>{0.25f, 0, 0.75f, 0, 0, 0, 0.5f, 0.5f, 0});
  const Tensor r = sgnn::testing::random_tensor({20, 33}, 3, 0.0, 1.0);
  const std::vector<float> n = normalize_feature_rows(r).to_vector<float>();
  for (std::size_t row = 0; row < 20; ++row) {
    double sum = 0;
    for (std::size_t c = 0; c < 33; ++c) sum += static_cast<double>(n[row * 33 + c]);
    CHECK(sum == doctest::Approx(1.0).epsilon(1e-5));
  }
  CHECK_THROWS_AS(normalize_feature_rows(Tensor::zeros({3}, DType::Float32)), InvalidArgument);
  CHECK_THROWS_AS(normalize_feature_rows(Tensor::zeros({3, 2}, DType::Int32)), InvalidArgument);
}

TEST_CASE("normalize_feature_rows writes bfloat16 directly: the float result rounded once") {
  const Tensor r = sgnn::testing::random_tensor({20, 33}, 4, 0.0, 1.0);
  const std::vector<float> wide = normalize_feature_rows(r).to_vector<float>();
  const Tensor narrow = normalize_feature_rows(r, DType::BFloat16);
  REQUIRE(narrow.dtype() == DType::BFloat16);
  const std::vector<bfloat16> values = narrow.to_vector<bfloat16>();
  for (std::size_t i = 0; i < wide.size(); ++i) CHECK(values[i].bits == bfloat16(wide[i]).bits);
  CHECK_THROWS_AS(normalize_feature_rows(r, DType::Int32), InvalidArgument);
}

TEST_CASE("normalize_feature_rows reads bfloat16 features as float: as their float widening, either output") {
  const std::vector<float> values = sgnn::testing::random_tensor({20, 33}, 5, 0.0, 1.0).to_vector<float>();
  std::vector<bfloat16> narrow_values(values.size());
  std::vector<float> widened(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    narrow_values[i] = bfloat16(values[i]);
    widened[i] = narrow_values[i].to_float();
  }
  const Tensor narrow = Tensor::from_vector(narrow_values, {20, 33});
  const Tensor wide = Tensor::from_vector(widened, {20, 33});
  CHECK(normalize_feature_rows(narrow).to_vector<float>() == normalize_feature_rows(wide).to_vector<float>());
  const std::vector<bfloat16> both_narrow = normalize_feature_rows(narrow, DType::BFloat16).to_vector<bfloat16>();
  const std::vector<bfloat16> from_wide = normalize_feature_rows(wide, DType::BFloat16).to_vector<bfloat16>();
  for (std::size_t i = 0; i < values.size(); ++i) CHECK(both_narrow[i].bits == from_wide[i].bits);
}

TEST_CASE("edges_of_csr lists each entry of row v as an edge into v, for int32 and int64 offsets") {
  // Row 0: {1, 2}; row 1: {}; row 2: {0}.
  for (const DType offsets : {DType::Int32, DType::Int64}) {
    Csr csr;
    csr.num_rows = csr.num_cols = 3;
    csr.nnz = 3;
    csr.indptr = offsets == DType::Int32 ? Tensor::from_vector(std::vector<int32_t>{0, 2, 2, 3}, {4})
                                         : Tensor::from_vector(std::vector<int64_t>{0, 2, 2, 3}, {4});
    csr.indices = Tensor::from_vector(std::vector<int32_t>{1, 2, 0}, {3});
    const EdgeList edges = edges_of_csr(csr);
    CHECK(edges.num_nodes == 3);
    CHECK(edges.source.to_vector<int32_t>() == std::vector<int32_t>{1, 2, 0});
    CHECK(edges.target.to_vector<int32_t>() == std::vector<int32_t>{0, 0, 2});
    CHECK(describe_graph(edges).in_degree.zero == 1);
  }
  CHECK_THROWS_AS(edges_of_csr(Csr{}), InvalidArgument);
}

TEST_CASE("describe_graph counts loops, repeats, symmetry, degrees and components") {
  // Two components {0,1,2} and {3,4}, node 5 isolated; 0->1 repeated; a loop at 2.
  const EdgeList edges{6, Tensor::from_vector(std::vector<int32_t>{0, 0, 1, 2, 3}, {5}),
                       Tensor::from_vector(std::vector<int32_t>{1, 1, 2, 2, 4}, {5}), {}};
  const GraphStatistics s = describe_graph(edges);
  CHECK(s.num_nodes == 6);
  CHECK(s.num_edges == 5);
  CHECK(s.self_loops == 1);
  CHECK(s.repeated_edges == 1);
  CHECK_FALSE(s.symmetric);
  CHECK(s.components == 3);
  CHECK(s.largest_component == 3);
  CHECK(s.out_degree.max == 2);
  CHECK(s.in_degree.zero == 3);  // nodes 0, 3, 5
  const EdgeList both{3, Tensor::from_vector(std::vector<int32_t>{0, 1}, {2}), Tensor::from_vector(std::vector<int32_t>{1, 0}, {2}), {}};
  CHECK(describe_graph(both).symmetric);
  CHECK(format_statistics(s).find("connected components: 3") != std::string::npos);
}
