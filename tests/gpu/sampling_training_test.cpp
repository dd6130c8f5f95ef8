// Mini-batch training on the GPU: the pipeline's batches (sampled and
// gathered on their own stream, into arenas) equal the CPU's; layer-wise
// inference equals the CPU's; and a graph whose CSR does not fit under the
// device-memory limit trains through the host path (graph and features read
// over unified addressing) to the device path's accuracy.
#include <doctest/doctest.h>

#include <chrono>
#include <thread>

#include "ops/sparse_plan.hpp"
#include "sampling/batch_pipeline.hpp"
#include "tests/sampling/cora_minibatch.hpp"
#include "tests/sampling/sampling_graphs.hpp"
#include "tests/support/gpu_testing.hpp"
#include "tests/support/testing.hpp"
#include "training/minibatch_experiment.hpp"
#include "training/minibatch_sage.hpp"

namespace {

using namespace sgnn;
using sgnn::testing::AdjacencyLists;
using sgnn::testing::kGpu;

struct Setup {
  std::shared_ptr<const sampling::SamplingGraph> graph;
  std::unique_ptr<sampling::FeatureStore> features, labels;
  std::unique_ptr<sampling::NeighborSampler> sampler;
};

Setup setup(const AdjacencyLists& lists, const Tensor& features, const Tensor& labels, Device device,
            sampling::Residence residence, const sampling::SamplerOptions& options) {
  Setup s;
  s.graph = std::make_shared<const sampling::SamplingGraph>(sgnn::testing::csr_of(lists), device, residence);
  sampling::FeatureStoreOptions feature_options;
  feature_options.residence = residence;
  feature_options.cache_bytes = residence == sampling::Residence::Host ? 40 * features.size(1) * 4 : 0;
  s.features = std::make_unique<sampling::FeatureStore>(features, device, feature_options, s.graph->degrees());
  sampling::FeatureStoreOptions label_options;
  label_options.dtype = DType::Int32;
  label_options.residence = residence;
  s.labels = std::make_unique<sampling::FeatureStore>(labels, device, label_options);
  s.sampler = std::make_unique<sampling::NeighborSampler>(s.graph, options);
  return s;
}

}  // namespace

TEST_CASE("GPU batch pipeline gives the CPU pipeline's batches (seeds, blocks, inputs, labels), with the graph on the device or the host") {
  const AdjacencyLists lists = sgnn::testing::random_lists(6000, 3000, 30, 15, 301);
  const Tensor features = sgnn::testing::random_tensor({6000, 40}, 302);
  const Tensor labels = sgnn::testing::random_indices({6000}, 303, 0, 9, DType::Int32);
  sampling::SamplerOptions options;
  options.fanouts = {12, 6, 3};
  options.seed = 4;
  std::vector<int32_t> train(2500);
  for (int32_t i = 0; i < 2500; ++i) train[static_cast<std::size_t>(i)] = 2 * i;
  const Tensor order = sampling::shuffled(Tensor::from_vector(train, {2500}), 1, 1);
  const Setup cpu = setup(lists, features, labels, Device::cpu(), sampling::Residence::Device, options);
  for (const sampling::Residence residence : {sampling::Residence::Device, sampling::Residence::Host}) {
    CAPTURE(sampling::residence_name(residence));
    const Setup gpu = setup(lists, features, labels, kGpu, residence, options);
    sampling::BatchPipeline expected({cpu.sampler.get(), cpu.features.get(), cpu.labels.get()}, order, 256, 3);
    sampling::BatchPipeline got({gpu.sampler.get(), gpu.features.get(), gpu.labels.get()}, order, 256, 3, 3);
    REQUIRE(got.num_batches() == 10);
    while (std::optional<sampling::MiniBatch> reference = expected.next()) {
      std::optional<sampling::MiniBatch> batch = got.next();
      REQUIRE(batch.has_value());
      CHECK(batch->seeds.to(Device::cpu()).to_vector<int32_t>() == reference->seeds.to_vector<int32_t>());
      CHECK(batch->labels.to(Device::cpu()).to_vector<int32_t>() == reference->labels.to_vector<int32_t>());
      CHECK(batch->inputs.to(Device::cpu()).to_vector<float>() == reference->inputs.to_vector<float>());
      REQUIRE(batch->blocks.size() == 3);
      for (std::size_t layer = 0; layer < 3; ++layer) {
        const sampling::Block& b = batch->blocks[layer];
        const sampling::Block& r = reference->blocks[layer];
        CHECK(b.source_ids.to(Device::cpu()).to_vector<int32_t>() == r.source_ids.to_vector<int32_t>());
        CHECK(b.adjacency.csr.indices.to(Device::cpu()).to_vector<int32_t>() == r.adjacency.csr.indices.to_vector<int32_t>());
        CHECK(b.adjacency.transpose_to_csr.to(Device::cpu()).to_vector<int32_t>() ==
              r.adjacency.transpose_to_csr.to_vector<int32_t>());
      }
      got.release(*batch);
    }
    CHECK_FALSE(got.next().has_value());
  }
}

TEST_CASE("GPU layer-wise inference equals the CPU's, features on the device and in host memory") {
  const AdjacencyLists lists = sgnn::testing::random_lists(3000, 2000, 10, 12, 311);
  const Tensor features = sgnn::testing::random_tensor({3000, 20}, 312);
  const Tensor labels = sgnn::testing::random_indices({3000}, 313, 0, 5, DType::Int32);
  sampling::SamplerOptions options;
  options.fanouts = {5, 5};
  training::BlockModelConfig config;
  config.in_features = 20;
  config.classes = 5;
  config.hidden = 32;
  config.layers = 2;
  Generator cpu_generator(3), gpu_generator(3);
  training::SageModel cpu_model(config, cpu_generator);
  training::SageModel gpu_model(config, gpu_generator);
  gpu_model.to(kGpu);
  std::vector<int32_t> rows;
  for (int32_t v = 0; v < 3000; v += 7) rows.push_back(v);
  const Tensor row_ids = Tensor::from_vector(rows, {static_cast<int64_t>(rows.size())});
  const Setup cpu = setup(lists, features, labels, Device::cpu(), sampling::Residence::Device, options);
  training::InferenceOptions inference;
  inference.chunk_rows = 500;
  const Tensor expected = training::infer_layerwise(cpu_model, *cpu.graph, *cpu.features, row_ids, inference);
  for (const sampling::Residence residence : {sampling::Residence::Device, sampling::Residence::Host}) {
    CAPTURE(sampling::residence_name(residence));
    const Setup gpu = setup(lists, features, labels, kGpu, residence, options);
    for (const int64_t budget : {int64_t{-1}, int64_t{0}}) {  // hidden tables on the device, then in host memory
      inference.device_budget_bytes = budget;
      const Tensor got = training::infer_layerwise(gpu_model, *gpu.graph, *gpu.features, row_ids, inference);
      CHECK(sgnn::testing::relative_error(got.to(Device::cpu()), expected) < 1e-5);
    }
  }
}

TEST_CASE("GPU batch pipeline: the plans of every batch in flight stay cached until it trains") {
  // Three batches of three blocks: 18 plans registered (a CSR and its
  // transpose a block), more than the cache's own 16, so batch 0's first
  // plans would be pushed out by batches 1 and 2 without the pipeline's
  // reservation, and rebuilt on the host when batch 0 trains.
  const AdjacencyLists lists = sgnn::testing::random_lists(3000, 1500, 30, 15, 311);
  const Tensor features = sgnn::testing::random_tensor({3000, 16}, 312);
  const Tensor labels = sgnn::testing::random_indices({3000}, 313, 0, 5, DType::Int32);
  sampling::SamplerOptions options;
  options.fanouts = {8, 4, 2};
  options.seed = 5;
  const Setup gpu = setup(lists, features, labels, kGpu, sampling::Residence::Device, options);
  std::vector<int32_t> train(1200);
  for (int32_t i = 0; i < 1200; ++i) train[static_cast<std::size_t>(i)] = i;
  const Tensor order = sampling::shuffled(Tensor::from_vector(train, {1200}), 2, 1);
  REQUIRE(static_cast<std::size_t>(2 * 3 * sampling::kPipelineDepth) > ops::kPlanCacheSize);
  sampling::BatchPipeline pipeline({gpu.sampler.get(), gpu.features.get(), gpu.labels.get()}, order, 100, 0);
  std::optional<sampling::MiniBatch> batch = pipeline.next();
  REQUIRE(batch.has_value());
  // Time for the pipeline's threads to sample the next two batches (the
  // check holds however far they got; the pause lets them register theirs).
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const int64_t built = ops::sparse_plans_built();
  for (const sampling::Block& block : batch->blocks) {
    ops::sparse_plan(block.adjacency.csr);
    ops::sparse_plan(block.adjacency.transpose);
  }
  CHECK(ops::sparse_plans_built() == built);
  pipeline.release(*batch);
  while ((batch = pipeline.next())) pipeline.release(*batch);
}

TEST_CASE("a graph whose CSR does not fit under the device-memory limit trains through the host path on Cora") {
  training::MinibatchOptions options = sgnn::testing::cora_minibatch_options();
  options.device = "cuda";
  const training::MinibatchResult on_device = training::run_minibatch_experiment(options);
  CHECK(on_device.graph_residence == "device");
  CHECK(on_device.feature_residence == "device");
  options.device_memory_limit = 1024;  // bytes: neither the CSR (about 42 KB) nor the features fit
  options.feature_cache_bytes = 100 * 1433 * 4;
  const training::MinibatchResult on_host = training::run_minibatch_experiment(options);
  CHECK(on_host.graph_residence == "host");
  CHECK(on_host.feature_residence == "host");
  CHECK(on_host.cached_feature_rows == 100);
  MESSAGE("Cora on the GPU: device path ", on_device.test_accuracy, ", host path ", on_host.test_accuracy);
  CHECK(on_device.test_accuracy >= 0.78);
  CHECK(on_host.test_accuracy >= 0.78);
  // The same blocks and inputs: the same training up to the order of float sums.
  REQUIRE(on_host.fit.history.size() == on_device.fit.history.size());
  for (std::size_t e = 0; e < on_host.fit.history.size(); ++e) {
    CHECK(on_host.fit.history[e].sampled_edges == on_device.fit.history[e].sampled_edges);
    CHECK(on_host.fit.history[e].train_loss == doctest::Approx(on_device.fit.history[e].train_loss).epsilon(1e-3));
  }
}

TEST_CASE("mini-batch GCN and GAT train on Cora on the GPU, features on the device and in host memory") {
  for (const char* model : {"gcn", "gat"}) {
    for (const bool host : {false, true}) {
      CAPTURE(model);
      CAPTURE(host);
      training::MinibatchOptions options = sgnn::testing::cora_minibatch_options();
      options.device = "cuda";
      options.model = model;
      if (std::string(model) == "gat") {
        options.hidden = 8;
        options.heads = 8;
        options.dropout = 0.6f;
        options.epochs = 20;
      }
      if (host) options.device_memory_limit = 1024;  // bytes: the CSR and the features stay in host memory
      const training::MinibatchResult result = training::run_minibatch_experiment(options);
      const std::string path = host ? " (host path)" : "";
      MESSAGE("mini-batch ", std::string(model), " Cora on the GPU", path, ": test accuracy ", result.test_accuracy);
      CHECK(result.feature_residence == (host ? "host" : "device"));
      CHECK(result.test_accuracy >= 0.78);
    }
  }
}
