#include <doctest/doctest.h>

#include <fstream>
#include <numeric>
#include <sstream>
#include <set>

#include "core/autograd.hpp"
#include "ops/spmm.hpp"
#include "graph_io/load_dataset.hpp"
#include "sampling/batch_pipeline.hpp"
#include "sampling/destination_rows.hpp"
#include "cora_minibatch.hpp"
#include "sampling_graphs.hpp"
#include "tests/graph_io/temp_files.hpp"
#include "tests/support/testing.hpp"
#include "examples/external_project/max_block_model.hpp"
#include "training/minibatch_experiment.hpp"
#include "training/minibatch_gat.hpp"
#include "training/minibatch_gcn.hpp"
#include "training/minibatch_sage.hpp"

namespace {

using namespace sgnn;
using sgnn::testing::AdjacencyLists;

Tensor ids(const std::vector<int32_t>& values) { return Tensor::from_vector(values, {static_cast<int64_t>(values.size())}); }

std::shared_ptr<const sampling::SamplingGraph> host_graph(const AdjacencyLists& lists) {
  return std::make_shared<const sampling::SamplingGraph>(sgnn::testing::csr_of(lists), Device::cpu(),
                                                          sampling::Residence::Device);
}

// A block model as a user writes it against the installed headers
// (examples/external_project, docs/extending.md section 7).
using max_block::MaxBlockModel;

void randomize(training::Module& module, uint64_t seed) {
  for (Tensor& parameter : module.parameters()) {
    const Tensor values = sgnn::testing::random_tensor(parameter.shape(), seed++, -0.5, 0.5);
    training::copy_into(parameter, values);
  }
}

}  // namespace

TEST_CASE("SAGEConv on a block: neighbour mean times W_neighbours plus the destination times W_root plus b") {
  const AdjacencyLists lists = sgnn::testing::random_lists(40, 12, 3, 4, 31);
  sampling::SamplerOptions options;
  options.fanouts = {3};
  const sampling::NeighborSampler sampler(host_graph(lists), options);
  const sampling::Block block = sampler.sample(ids({0, 5, 38, 12}), 2).front();
  Generator generator(1);
  training::SAGEConv conv(6, 5, generator);
  randomize(conv, 40);
  const Tensor x = sgnn::testing::random_tensor({block.num_sources(), 6}, 32);
  const Tensor y = conv.forward(block, x);
  REQUIRE(y.shape() == Shape{4, 5});
  // float64 reference from the block's pattern alone.
  const std::vector<double> xs = sgnn::testing::to_double(x);
  const auto named = conv.named_parameters();
  const std::vector<double> w_neighbours = sgnn::testing::to_double(named[0].second);
  const std::vector<double> w_root = sgnn::testing::to_double(named[1].second);
  const std::vector<double> bias = sgnn::testing::to_double(named[2].second);
  const std::vector<int32_t> indptr = block.adjacency.csr.indptr.to_vector<int32_t>();
  const std::vector<int32_t> indices = block.adjacency.csr.indices.to_vector<int32_t>();
  std::vector<double> expected(20, 0.0);
  for (int64_t i = 0; i < 4; ++i) {
    std::vector<double> mean(6, 0.0);
    const int32_t begin = indptr[static_cast<std::size_t>(i)], end = indptr[static_cast<std::size_t>(i) + 1];
    for (int32_t e = begin; e < end; ++e) {
      for (std::size_t f = 0; f < 6; ++f) mean[f] += xs[static_cast<std::size_t>(indices[static_cast<std::size_t>(e)]) * 6 + f] / (end - begin);
    }
    for (std::size_t o = 0; o < 5; ++o) {
      double sum = bias[o];
      for (std::size_t f = 0; f < 6; ++f) sum += mean[f] * w_neighbours[f * 5 + o] + xs[static_cast<std::size_t>(i) * 6 + f] * w_root[f * 5 + o];
      expected[static_cast<std::size_t>(i) * 5 + o] = sum;
    }
  }
  CHECK(sgnn::testing::relative_error(y, expected) < 1e-5);
  // Gradients of every parameter and of x through the block's transpose.
  Tensor leaf = x.clone().set_requires_grad(true);
  std::vector<Tensor> inputs = conv.parameters();
  inputs.push_back(leaf);
  const double error =
      sgnn::testing::gradient_error([&](const std::vector<Tensor>&) { return conv.forward(block, leaf); }, inputs);
  CHECK(error < 2e-2);
}

TEST_CASE("mean_with_self on a block: (the destination + the sum of its sampled sources) / (row length + 1)") {
  const AdjacencyLists lists = sgnn::testing::random_lists(40, 12, 3, 4, 41);
  sampling::SamplerOptions options;
  options.fanouts = {3};
  const sampling::NeighborSampler sampler(host_graph(lists), options);
  // Node 39 is past the 12 nodes with neighbours: an empty row, whose mean is the destination itself.
  const sampling::Block block = sampler.sample(ids({0, 5, 39, 11}), 2).front();
  const Tensor x = sgnn::testing::random_tensor({block.num_sources(), 6}, 42);
  const Tensor y = training::mean_with_self(block.adjacency, x, sampling::destination_rows(x, 4));
  REQUIRE(y.shape() == Shape{4, 6});
  const std::vector<double> xs = sgnn::testing::to_double(x);
  const std::vector<int32_t> indptr = block.adjacency.csr.indptr.to_vector<int32_t>();
  const std::vector<int32_t> indices = block.adjacency.csr.indices.to_vector<int32_t>();
  CHECK(indptr[3] == indptr[2]);
  std::vector<double> expected(24, 0.0);
  for (std::size_t i = 0; i < 4; ++i) {
    const int32_t begin = indptr[i], end = indptr[i + 1];
    for (std::size_t f = 0; f < 6; ++f) {
      double sum = xs[i * 6 + f];
      for (int32_t e = begin; e < end; ++e) sum += xs[static_cast<std::size_t>(indices[static_cast<std::size_t>(e)]) * 6 + f];
      expected[i * 6 + f] = sum / (end - begin + 1);
    }
  }
  CHECK(sgnn::testing::relative_error(y, expected) < 1e-6);
  // Through a GCN block model: gradients of every parameter and of x (both sides of the mean).
  Generator generator(2);
  training::BlockModelConfig config;
  config.in_features = 6;
  config.classes = 3;
  config.hidden = 5;
  config.layers = 1;
  config.dropout = 0.0f;
  training::GcnBlockModel model(config, generator);
  randomize(model, 43);
  Tensor leaf = x.clone().set_requires_grad(true);
  std::vector<Tensor> inputs = model.parameters();
  inputs.push_back(leaf);
  const double error = sgnn::testing::gradient_error(
      [&](const std::vector<Tensor>&) { return model.forward({block}, leaf); }, inputs);
  CHECK(error < 2e-2);
  CHECK_THROWS_WITH_AS(training::mean_with_self(block.adjacency, x, x), doctest::Contains("x_destination must be [4, F]"),
                       InvalidArgument);
}

TEST_CASE("GATConv on a block (destinations x sources): gradients of every parameter and of both sides") {
  const AdjacencyLists lists = sgnn::testing::random_lists(40, 12, 3, 4, 44);
  sampling::SamplerOptions options;
  options.fanouts = {3};
  const sampling::NeighborSampler sampler(host_graph(lists), options);
  const sampling::Block block = sampler.sample(ids({0, 5, 39, 11}), 2).front();
  Generator generator(4);
  training::GATOptions gat;
  gat.heads = 2;
  training::GATConv conv(6, 3, generator, gat);
  randomize(conv, 45);
  Tensor source = sgnn::testing::random_tensor({block.num_sources(), 6}, 46).set_requires_grad(true);
  Tensor destination = sgnn::testing::random_tensor({4, 6}, 47).set_requires_grad(true);
  CHECK(conv.forward(block.adjacency, source, destination).shape() == Shape{4, 6});
  std::vector<Tensor> inputs = conv.parameters();
  inputs.push_back(source);
  inputs.push_back(destination);
  const double error = sgnn::testing::gradient_error(
      [&](const std::vector<Tensor>&) { return conv.forward(block.adjacency, source, destination); }, inputs);
  CHECK(error < 2e-2);
  CHECK_THROWS_WITH_AS(conv.forward(block.adjacency, destination, destination), doctest::Contains("x_source has 4 rows"),
                       InvalidArgument);
}

TEST_CASE("destination_rows: a view of the first rows whose gradient pads zero rows") {
  Tensor x = sgnn::testing::random_tensor({6, 3}, 33).set_requires_grad(true);
  const Tensor head = sampling::destination_rows(x, 4);
  CHECK(head.shape() == Shape{4, 3});
  const std::vector<float> all = x.to_vector<float>();
  CHECK(head.to_vector<float>() == std::vector<float>(all.begin(), all.begin() + 12));
  const double error = sgnn::testing::gradient_error(
      [&](const std::vector<Tensor>&) { return sampling::destination_rows(x, 4); }, {x});
  CHECK(error < 1e-3);
  CHECK_THROWS_AS(sampling::destination_rows(x, 7), InvalidArgument);
}

TEST_CASE("layer-wise inference equals the model on full-neighbourhood blocks, in any chunking: GraphSAGE (mean, "
          "max-pool), GCN, GAT and a user's block model") {
  const AdjacencyLists lists = sgnn::testing::random_lists(120, 60, 4, 5, 34);
  const auto graph = host_graph(lists);
  const Tensor features = sgnn::testing::random_tensor({120, 8}, 35);
  const sampling::FeatureStore store(features, Device::cpu(), {});
  Generator generator(3);
  training::BlockModelConfig config;
  config.in_features = 8;
  config.classes = 4;
  config.hidden = 16;
  config.layers = 3;
  training::SageModel mean_model(config, generator);
  training::SageModel pool_model(config, generator, training::SAGEAggregator::MaxPool);
  MaxBlockModel user_model(config, generator);
  training::GcnBlockModel gcn_model(config, generator);
  config.heads = 3;
  config.output_heads = 2;
  training::GatBlockModel gat_model(config, generator);
  // max-pool's layers carry the pool's weight and bias besides mean's three parameters
  CHECK(pool_model.named_parameters().size() == mean_model.named_parameters().size() + 2 * 3);
  sampling::SamplerOptions every;
  every.fanouts = {-1, -1, -1};
  const sampling::NeighborSampler sampler(graph, every);
  const std::vector<int32_t> rows{0, 119, 7, 33, 64, 5};
  const std::vector<sampling::Block> blocks = sampler.sample(ids(rows), 0);
  const autograd::NoGradGuard no_grad;
  for (training::BlockModel* model : std::initializer_list<training::BlockModel*>{&mean_model, &pool_model, &user_model,
                                                                                  &gcn_model, &gat_model}) {
    model->eval();
    const Tensor expected = model->forward(blocks, store.gather(blocks.front().source_ids));
    CHECK(expected.shape() == Shape{6, 4});
    for (const int64_t chunk : {int64_t{7}, int64_t{1000}}) {
      training::InferenceOptions options;
      options.chunk_rows = chunk;
      const Tensor got = training::infer_layerwise(*model, *graph, store, ids(rows), options);
      CHECK(sgnn::testing::relative_error(got, expected) < 1e-5);
    }
  }
}

TEST_CASE("run_minibatch_experiment trains a user's block model from its factory on Cora; refuses a null or "
          "misshapen model" * doctest::test_suite("accuracy")) {
  training::MinibatchOptions options = sgnn::testing::cora_minibatch_options();
  options.model = "max-block";
  int built = 0;
  const training::MinibatchResult result = training::run_minibatch_experiment(
      options, [&](const training::BlockModelConfig& config, Generator& generator) {
        ++built;
        CHECK(config.in_features == 1433);
        CHECK(config.classes == 7);
        CHECK(config.layers == 2);
        CHECK(config.hidden == 128);
        return std::make_unique<MaxBlockModel>(config, generator);
      });
  MESSAGE("user block model (max aggregation) Cora: test accuracy ", result.test_accuracy, " at epoch ",
          result.fit.best_epoch);
  CHECK(built == 1);
  CHECK(result.fit.history.size() == 10);
  CHECK(result.test_accuracy >= 0.70);
  // In BF16 the experiment sets the model's precision: the features are gathered as bfloat16 for it.
  options.epochs = 3;
  options.precision = training::Precision::Bf16;
  const training::MinibatchResult bf16 = training::run_minibatch_experiment(
      options, [](const training::BlockModelConfig& config, Generator& generator) {
        return std::make_unique<MaxBlockModel>(config, generator);
      });
  MESSAGE("user block model in BF16, 3 epochs: test accuracy ", bf16.test_accuracy);
  CHECK(bf16.precision == "bf16");
  CHECK(bf16.test_accuracy >= 0.5);
  options.precision = training::Precision::Fp32;
  options.epochs = 1;
  CHECK_THROWS_WITH_AS(training::run_minibatch_experiment(
                           options, [](const training::BlockModelConfig&, Generator&) {
                             return std::unique_ptr<training::BlockModel>();
                           }),
                       doctest::Contains("the model factory returned no model"), InvalidArgument);
  CHECK_THROWS_WITH_AS(training::run_minibatch_experiment(
                           options, [](const training::BlockModelConfig& config, Generator& generator) {
                             training::BlockModelConfig three = config;
                             three.layers = 3;
                             return std::make_unique<MaxBlockModel>(three, generator);
                           }),
                       doctest::Contains("has 3 layers, 1433 inputs and 7 outputs; the run needs 2 (one per fanout)"),
                       InvalidArgument);
}

TEST_CASE("mini-batch GraphSAGE with the max-pool aggregator trains on Cora (seed 0)" *
          doctest::test_suite("accuracy")) {
  training::MinibatchOptions options = sgnn::testing::cora_minibatch_options();
  options.aggregator = "max-pool";
  const training::MinibatchResult result = training::run_minibatch_experiment(options);
  MESSAGE("mini-batch GraphSAGE max-pool Cora: test accuracy ", result.test_accuracy, " at epoch ",
          result.fit.best_epoch);
  CHECK(result.test_accuracy >= 0.70);
  options.aggregator = "sum";
  CHECK_THROWS_WITH_AS(training::run_minibatch_experiment(options), doctest::Contains("unknown aggregator \"sum\""),
                       InvalidArgument);
}

TEST_CASE("mini-batch GCN trains on Cora (seed 0)" * doctest::test_suite("accuracy")) {
  training::MinibatchOptions options = sgnn::testing::cora_minibatch_options();
  options.model = "gcn";
  const training::MinibatchResult result = training::run_minibatch_experiment(options);
  MESSAGE("mini-batch GCN Cora: test accuracy ", result.test_accuracy, " at epoch ", result.fit.best_epoch);
  CHECK(result.test_accuracy >= 0.78);
  CHECK(result.edges == 2 * 5278);  // Cora's undirected edges both ways, no loops
  // A user's self_loops holds for the built-in models that do not need it.
  options.self_loops = true;
  options.epochs = 1;
  CHECK(training::run_minibatch_experiment(options).edges == 2 * 5278 + 2708);
  options.model = "sgc";
  CHECK_THROWS_WITH_AS(
      training::run_minibatch_experiment(options),
      doctest::Contains("no built-in model \"sgc\" whose layers take sampled blocks (there are sage, gcn, gat)"),
      InvalidArgument);
}

TEST_CASE("mini-batch GAT trains on Cora (seed 0), sampling from a graph with self loops" *
          doctest::test_suite("accuracy")) {
  training::MinibatchOptions options = sgnn::testing::cora_minibatch_options();
  options.model = "gat";
  options.hidden = 8;
  options.heads = 8;
  options.dropout = 0.6f;
  options.epochs = 20;
  const training::MinibatchResult result = training::run_minibatch_experiment(options);
  MESSAGE("mini-batch GAT Cora: test accuracy ", result.test_accuracy, " at epoch ", result.fit.best_epoch);
  // The sampling graph carries Cora's 5,278 undirected edges both ways and a loop on each of its 2,708 nodes.
  CHECK(result.edges == 2 * 5278 + 2708);
  CHECK(result.test_accuracy >= 0.78);
}

TEST_CASE("batch pipeline: an epoch visits every training node once, with its labels and gathered inputs") {
  const AdjacencyLists lists = sgnn::testing::random_lists(300, 100, 10, 6, 36);
  const auto graph = host_graph(lists);
  const Tensor features = sgnn::testing::random_tensor({300, 5}, 37);
  std::vector<int32_t> label_values(300);
  for (int32_t v = 0; v < 300; ++v) label_values[static_cast<std::size_t>(v)] = v % 7;
  const sampling::FeatureStore feature_store(features, Device::cpu(), {});
  sampling::FeatureStoreOptions label_options;
  label_options.dtype = DType::Int32;
  const sampling::FeatureStore label_store(Tensor::from_vector(label_values, {300}), Device::cpu(), label_options);
  sampling::SamplerOptions options;
  options.fanouts = {4, 3};
  const sampling::NeighborSampler sampler(graph, options);
  std::vector<int32_t> train(90);
  std::iota(train.begin(), train.end(), 200);
  const Tensor order = sampling::shuffled(ids(train), 9, 1);
  CHECK(order.to_vector<int32_t>() == sampling::shuffled(ids(train), 9, 1).to_vector<int32_t>());
  CHECK(order.to_vector<int32_t>() != sampling::shuffled(ids(train), 9, 2).to_vector<int32_t>());
  CHECK(order.to_vector<int32_t>() != train);
  sampling::BatchPipeline pipeline({&sampler, &feature_store, &label_store}, order, 32, 0);
  CHECK(pipeline.num_batches() == 3);
  std::multiset<int32_t> visited;
  const std::vector<float> table = features.to_vector<float>();
  while (std::optional<sampling::MiniBatch> batch = pipeline.next()) {
    const std::vector<int32_t> seeds = batch->seeds.to_vector<int32_t>();
    visited.insert(seeds.begin(), seeds.end());
    const std::vector<int32_t> labels = batch->labels.to_vector<int32_t>();
    for (std::size_t i = 0; i < seeds.size(); ++i) CHECK(labels[i] == seeds[i] % 7);
    CHECK(batch->blocks.back().source_ids.narrow_rows(0, batch->seeds.numel()).to_vector<int32_t>() == seeds);
    const std::vector<int32_t> sources = batch->blocks.front().source_ids.to_vector<int32_t>();
    const std::vector<float> inputs = batch->inputs.to_vector<float>();
    REQUIRE(inputs.size() == sources.size() * 5);
    for (std::size_t k = 0; k < sources.size(); ++k) {
      for (std::size_t f = 0; f < 5; ++f) CHECK(inputs[k * 5 + f] == table[static_cast<std::size_t>(sources[k]) * 5 + f]);
    }
    pipeline.release(*batch);
  }
  CHECK(visited == std::multiset<int32_t>(train.begin(), train.end()));
  // On the CPU next() samples and gathers each batch itself: both timed, no waits.
  const sampling::PipelineSeconds seconds = pipeline.seconds();
  CHECK(seconds.sampling > 0.0);
  CHECK(seconds.gathering > 0.0);
  CHECK(seconds.waiting == 0.0);
}

TEST_CASE("mini-batch GraphSAGE reaches at least 78% test accuracy on Cora on the CPU (seed 0)" *
          doctest::test_suite("accuracy")) {
  const training::MinibatchResult result = training::run_minibatch_experiment(sgnn::testing::cora_minibatch_options());
  MESSAGE("mini-batch GraphSAGE Cora: test accuracy ", result.test_accuracy, " at epoch ", result.fit.best_epoch,
          ", validation ", result.fit.best.validation.accuracy);
  CHECK(result.fit.history.size() == 10);
  CHECK(result.fit.history.front().batches == 5);  // 140 training nodes in batches of 32
  const sampling::PipelineSeconds& stages = result.fit.history.front().stages;
  CHECK(stages.sampling > 0.0);
  CHECK(stages.gathering > 0.0);
  CHECK(stages.sampling + stages.gathering <= result.fit.history.front().train_seconds);
  CHECK(result.test_accuracy >= 0.78);
}

TEST_CASE("mini-batch GraphSAGE writes every node's predictions, whose test accuracy is the run's; a missing folder "
          "is refused before training") {
  const sgnn::testing::TempDir dir;
  training::MinibatchOptions options = sgnn::testing::cora_minibatch_options();
  options.epochs = 3;
  options.predictions = (dir.path() / "cora.csv").string();
  const training::MinibatchResult result = training::run_minibatch_experiment(options);
  CHECK(result.predictions == options.predictions);
  CHECK(training::minibatch_json(result, "test").find("\"predictions\":\"" + options.predictions + "\"") !=
        std::string::npos);
  const graph_io::Dataset cora = graph_io::load_dataset(options.dataset);
  std::ifstream in(options.predictions);
  std::string line;
  REQUIRE(std::getline(in, line));
  CHECK(line == "node,class,p0,p1,p2,p3,p4,p5,p6");
  std::vector<int32_t> classes;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string field;
    std::vector<double> values;
    while (std::getline(fields, field, ',')) values.push_back(std::stod(field));
    REQUIRE(values.size() == 9);
    CHECK(values[0] == static_cast<double>(classes.size()));  // every node, by ascending id
    const auto most = std::max_element(values.begin() + 2, values.end());
    CHECK(values[1] == static_cast<double>(most - (values.begin() + 2)));
    CHECK(std::accumulate(values.begin() + 2, values.end(), 0.0) == doctest::Approx(1.0).epsilon(1e-5));
    classes.push_back(static_cast<int32_t>(values[1]));
  }
  REQUIRE(static_cast<int64_t>(classes.size()) == cora.num_nodes());
  const std::vector<int32_t> labels = cora.labels.to_vector<int32_t>();
  int64_t correct = 0;
  for (const int32_t node : cora.test_index.to_vector<int32_t>()) {
    correct += classes[static_cast<std::size_t>(node)] == labels[static_cast<std::size_t>(node)] ? 1 : 0;
  }
  CHECK(static_cast<double>(correct) / static_cast<double>(cora.test_index.numel()) ==
        doctest::Approx(result.test_accuracy).epsilon(1e-12));
  // A folder that does not exist: refused before the dataset loads, nothing written.
  options.predictions = (dir.path() / "missing" / "cora.csv").string();
  CHECK_THROWS_WITH_AS(training::run_minibatch_experiment(options), doctest::Contains("--predictions"), IoError);
  CHECK_FALSE(std::filesystem::exists(dir.path() / "missing"));
}

TEST_CASE("minibatch_options refuses models whose layers take no blocks, and full-graph training's options") {
  training::ExperimentOptions experiment;
  experiment.dataset = "cora";
  experiment.model = "appnp";
  const training::MinibatchOptions sampling;
  CHECK(training::minibatch_model_names() == std::vector<std::string>{"sage", "gcn", "gat"});
  CHECK_THROWS_WITH_AS(training::minibatch_options(experiment, sampling),
                       doctest::Contains("take sampled blocks (sage, gcn, gat); the appnp model's layers do not"),
                       InvalidArgument);
  // GAT's heads come from its registry entry (Cora: 8 heads of 8, one output head).
  experiment.model = "gat";
  const training::MinibatchOptions gat = training::minibatch_options(experiment, sampling);
  CHECK(gat.heads == 8);
  CHECK(gat.output_heads == 1);
  CHECK(gat.hidden == 8);
  experiment.model = "sage";
  experiment.predictions = "cora.csv";  // taken: written by layer-wise inference
  experiment.checkpoint = "cora.ckpt";   // taken: written every checkpoint_every epochs and after the last
  experiment.checkpoint_every = 5;
  experiment.resume = "run.ckpt";        // taken: a mini-batch checkpoint continues
  const training::MinibatchOptions taken = training::minibatch_options(experiment, sampling);
  CHECK(taken.predictions == "cora.csv");
  CHECK(taken.checkpoint == "cora.ckpt");
  CHECK(taken.checkpoint_every == 5);
  CHECK(taken.resume == "run.ckpt");
  experiment.runs = 2;
  experiment.embeddings = "x.csv";
  experiment.spmm = "hrpb";
  CHECK_THROWS_WITH_AS(training::minibatch_options(experiment, sampling),
                       doctest::Contains("does not take --runs, --embeddings, --spmm"), InvalidArgument);
}

TEST_CASE("the built-in block models refuse a bad config and a block count other than their layers, naming themselves") {
  Generator generator(7);
  training::BlockModelConfig good;
  good.in_features = 4;
  good.classes = 3;
  good.hidden = 8;
  good.layers = 2;
  const auto make = [&](const std::string& name, const training::BlockModelConfig& config)
      -> std::unique_ptr<training::BlockModel> {
    if (name == "SageModel") return std::make_unique<training::SageModel>(config, generator);
    if (name == "GcnBlockModel") return std::make_unique<training::GcnBlockModel>(config, generator);
    return std::make_unique<training::GatBlockModel>(config, generator);
  };
  for (const std::string name : {"SageModel", "GcnBlockModel", "GatBlockModel"}) {
    CAPTURE(name);
    training::BlockModelConfig bad = good;
    bad.hidden = 0;
    CHECK_THROWS_WITH_AS(make(name, bad), doctest::Contains((name + ": in_features (4), classes (3), hidden (0)").c_str()),
                         InvalidArgument);
    bad = good;
    bad.dropout = 1.0f;
    CHECK_THROWS_WITH_AS(make(name, bad), doctest::Contains((name + ": dropout 1 outside [0, 1)").c_str()), InvalidArgument);
    const std::unique_ptr<training::BlockModel> model = make(name, good);
    CHECK_THROWS_WITH_AS(model->forward({}, Tensor::zeros({3, 4})),
                         doctest::Contains((name + ": 0 blocks for 2 layers").c_str()), InvalidArgument);
  }
  training::BlockModelConfig no_heads = good;
  no_heads.output_heads = 0;
  CHECK_THROWS_WITH_AS(training::GatBlockModel(no_heads, generator),
                       doctest::Contains("GatBlockModel: heads (1) and output heads (0) must be positive"),
                       InvalidArgument);
}
