// The papers100M-scale generator at a thousandth of its size (the same code
// path as the full preset): written into the processed format, mapped back,
// a valid symmetric CSR with a heavy tail and homophily, BF16 features,
// exact splits; deterministic; mini-batch training reads it. And processed
// files of the previous format version still load.
#include <doctest/doctest.h>

#include <algorithm>
#include <set>

#include "graph_io/fingerprint.hpp"
#include "graph_io/load_dataset.hpp"
#include "graph_io/processed_dataset.hpp"
#include "graph_io/section_file.hpp"
#include "graph_io/generators/synthetic_dataset.hpp"
#include "graph_io/generators/synthetic_papers.hpp"
#include "tests/graph_io/temp_files.hpp"
#include "training/minibatch_experiment.hpp"

namespace {

using namespace sgnn;
using namespace sgnn::graph_io;

std::vector<int64_t> offsets_of(const Csr& csr) {
  if (csr.indptr.dtype() == DType::Int64) return csr.indptr.to_vector<int64_t>();
  const std::vector<int32_t> narrow = csr.indptr.to_vector<int32_t>();
  return {narrow.begin(), narrow.end()};
}

}  // namespace

TEST_CASE("papers100M-scale generator: a symmetric CSR without loops or repeats, heavy-tailed, homophilous, with BF16 features and exact splits") {
  const PapersScaleOptions options = scaled_papers_options(1000.0);
  REQUIRE(options.num_nodes == 111060);
  sgnn::testing::TempDir dir;
  const Dataset written = write_papers_scale(options, dir.path() / "papers");
  const Dataset d = load_dataset((dir.path() / "papers").string());
  CHECK(d.load.processed_hit);
  CHECK(d.fingerprint == written.fingerprint);
  CHECK(hash_tensor(d.csr.indices) == hash_tensor(written.csr.indices));
  const int64_t n = d.num_nodes();
  REQUIRE(n == options.num_nodes);
  REQUIRE(d.csr.num_rows == n);
  const std::vector<int64_t> indptr = offsets_of(d.csr);
  const std::vector<int32_t> indices = d.csr.indices.to_vector<int32_t>();
  // Most drawn edges survive as two entries (loops and repeats are rare).
  CHECK(d.csr.nnz <= 2 * options.num_edges);
  CHECK(d.csr.nnz >= 2 * options.num_edges * 90 / 100);
  const std::vector<int32_t> labels = d.labels.to_vector<int32_t>();
  int64_t same_class = 0, longest = 0, bad_entries = 0;
  for (int64_t u = 0; u < n; ++u) {
    const auto* row = indices.data() + indptr[static_cast<std::size_t>(u)];
    const int64_t length = indptr[static_cast<std::size_t>(u) + 1] - indptr[static_cast<std::size_t>(u)];
    longest = std::max(longest, length);
    for (int64_t k = 0; k < length; ++k) {
      const int32_t v = row[k];
      if (v < 0 || v >= n || v == u || (k > 0 && row[k - 1] >= v)) {
        ++bad_entries;  // out of range, a loop, unsorted or repeated
        continue;
      }
      const auto* other = indices.data() + indptr[static_cast<std::size_t>(v)];
      if (!std::binary_search(other, indices.data() + indptr[static_cast<std::size_t>(v) + 1], static_cast<int32_t>(u))) {
        ++bad_entries;  // no reverse entry
      }
      same_class += labels[static_cast<std::size_t>(u)] == labels[static_cast<std::size_t>(v)] ? 1 : 0;
    }
  }
  CHECK(bad_entries == 0);
  const double mean_degree = static_cast<double>(d.csr.nnz) / static_cast<double>(n);
  MESSAGE("papers-scale/1000: ", d.csr.nnz, " entries, mean degree ", mean_degree, ", longest row ", longest,
          ", same-class entries ", static_cast<double>(same_class) / static_cast<double>(d.csr.nnz));
  CHECK(longest > 10 * mean_degree);  // a power-law tail, not a uniform graph
  CHECK(static_cast<double>(same_class) / static_cast<double>(d.csr.nnz) == doctest::Approx(0.7).epsilon(0.1));
  CHECK(d.num_classes == 172);
  CHECK(std::all_of(labels.begin(), labels.end(), [](int32_t label) { return label >= 0 && label < 172; }));
  CHECK(d.features.dtype() == DType::BFloat16);
  CHECK(d.features.shape() == Shape{n, 128});
  CHECK(d.train_index.numel() == options.train_nodes);
  CHECK(d.valid_index.numel() == options.valid_nodes);
  CHECK(d.test_index.numel() == options.test_nodes);
  std::set<int32_t> seen;
  for (const Tensor* split : {&d.train_index, &d.valid_index, &d.test_index}) {
    const std::vector<int32_t> ids = split->to_vector<int32_t>();
    CHECK(std::is_sorted(ids.begin(), ids.end()));
    seen.insert(ids.begin(), ids.end());
  }
  CHECK(static_cast<int64_t>(seen.size()) == options.train_nodes + options.valid_nodes + options.test_nodes);
}

TEST_CASE("papers100M-scale generator: the same options give the same dataset, another seed another") {
  PapersScaleOptions options = scaled_papers_options(20000.0);
  const Dataset a = generate_papers_scale(options);
  const Dataset b = generate_papers_scale(options);
  CHECK(hash_tensor(a.csr.indices) == hash_tensor(b.csr.indices));
  CHECK(hash_tensor(a.csr.indptr) == hash_tensor(b.csr.indptr));
  CHECK(hash_tensor(a.features) == hash_tensor(b.features));
  CHECK(hash_tensor(a.labels) == hash_tensor(b.labels));
  CHECK(hash_tensor(a.train_index) == hash_tensor(b.train_index));
  options.seed += 1;
  const Dataset c = generate_papers_scale(options);
  CHECK(hash_tensor(a.csr.indices) != hash_tensor(c.csr.indices));
  CHECK(a.fingerprint != c.fingerprint);
  options.exponent = 1.5;
  CHECK_THROWS_AS(generate_papers_scale(options), InvalidArgument);
}

TEST_CASE("papers100M-scale dataset trains in mini-batches from its processed file (BF16 features, FP32 model)" *
          doctest::test_suite("accuracy")) {
  // A thousandth of the preset keeps 7 training nodes per class; with 20000
  // (the generator's option) a GraphSAGE learns the planted classes.
  sgnn::testing::TempDir dir;
  PapersScaleOptions papers = scaled_papers_options(1000.0);
  papers.train_nodes = 20000;
  (void)write_papers_scale(papers, dir.path() / "papers");
  training::MinibatchOptions options;
  options.dataset = (dir.path() / "papers").string();
  options.fanouts = {5, 5};
  options.batch_size = 256;
  options.hidden = 32;
  options.learning_rate = 0.01f;
  options.epochs = 2;
  options.evaluate_train = false;
  const training::MinibatchResult result = training::run_minibatch_experiment(options);
  MESSAGE("papers-scale/1000 mini-batch: test accuracy ", result.test_accuracy, " after 2 epochs");
  CHECK(result.nodes == 111060);
  CHECK(result.fit.history.size() == 2);
  CHECK(result.fit.history.back().train_loss < result.fit.history.front().train_loss);
  CHECK(result.test_accuracy > 0.3);  // chance is 1/172
}

TEST_CASE("processed files of format version 1 (edges, float32 features) still load") {
  sgnn::testing::TempDir dir;
  SyntheticOptions small;
  small.num_nodes = 200;
  small.num_edges = 800;
  small.num_features = 6;
  const Dataset dataset = generate_synthetic_dataset(small);
  const std::filesystem::path folder = dir.path() / "sbm";
  std::filesystem::create_directories(folder);
  const std::filesystem::path file = processed_path_beside(folder);
  store_processed_dataset(file, dataset, {}, 77, stamp_time_now());
  SectionFile contents = read_section_file(file, "processed-dataset", kProcessedDatasetVersion);
  contents.kind_version = 1;
  write_section_file(file, contents);
  std::string problem;
  const std::optional<Dataset> loaded = load_processed_dataset(file, folder, false, problem);
  REQUIRE_MESSAGE(loaded.has_value(), problem);
  CHECK(hash_tensor(loaded->edges.source) == hash_tensor(dataset.edges.source));
  CHECK(hash_tensor(loaded->features) == hash_tensor(dataset.features));
  CHECK_FALSE(loaded->csr.indptr.defined());
}
