#include <doctest/doctest.h>

#include <map>
#include <numeric>

#include "sampling/neighbor_sampler.hpp"
#include "sampling_graphs.hpp"

namespace {

using namespace sgnn;
using sgnn::testing::AdjacencyLists;

std::shared_ptr<const sampling::SamplingGraph> host_graph(const AdjacencyLists& lists, bool wide = false) {
  return std::make_shared<const sampling::SamplingGraph>(sgnn::testing::csr_of(lists, wide), Device::cpu(),
                                                          sampling::Residence::Device);
}

Tensor ids(const std::vector<int32_t>& values) {
  return Tensor::from_vector(values, {static_cast<int64_t>(values.size())});
}

// Samples `seeds` and checks every block and the chain between them.
std::vector<sampling::Block> sample_and_check(const sampling::NeighborSampler& sampler, const AdjacencyLists& lists,
                                              const std::vector<int32_t>& seeds, uint64_t batch) {
  const std::vector<sampling::Block> blocks = sampler.sample(ids(seeds), batch);
  REQUIRE(blocks.size() == sampler.options().fanouts.size());
  std::vector<int32_t> destinations = seeds;
  for (std::size_t hop = 0; hop < blocks.size(); ++hop) {
    const sampling::Block& block = blocks[blocks.size() - 1 - hop];
    sgnn::testing::check_block(block, lists, destinations, sampler.options().fanouts[hop], sampler.options().replace);
    destinations = block.source_ids.to_vector<int32_t>();
  }
  return blocks;
}

bool same_blocks(const std::vector<sampling::Block>& a, const std::vector<sampling::Block>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].source_ids.to_vector<int32_t>() != b[i].source_ids.to_vector<int32_t>() ||
        a[i].adjacency.csr.indptr.to_vector<int32_t>() != b[i].adjacency.csr.indptr.to_vector<int32_t>() ||
        a[i].adjacency.csr.indices.to_vector<int32_t>() != b[i].adjacency.csr.indices.to_vector<int32_t>()) {
      return false;
    }
  }
  return true;
}

}  // namespace

TEST_CASE("neighbour sampler: blocks hold graph edges only, respect the fanouts, and chain hop to hop") {
  const AdjacencyLists lists = sgnn::testing::random_lists(3000, 2000, 25, 12, 11);
  for (const bool wide : {false, true}) {
    sampling::SamplerOptions options;
    options.fanouts = {15, 10, 5};
    options.seed = 3;
    const sampling::NeighborSampler sampler(host_graph(lists, wide), options);
    // The hub, isolated nodes, ordinary ones.
    const std::vector<int32_t> seeds{0, 2999, 2980, 17, 1000, 5, 2500};
    sample_and_check(sampler, lists, seeds, 0);
    sample_and_check(sampler, lists, seeds, 1);
  }
}

TEST_CASE("neighbour sampler: with replacement every row with neighbours keeps exactly its fanout") {
  const AdjacencyLists lists = sgnn::testing::random_lists(500, 300, 10, 3, 12);
  sampling::SamplerOptions options;
  options.fanouts = {8, 4};
  options.replace = true;
  const sampling::NeighborSampler sampler(host_graph(lists), options);
  sample_and_check(sampler, lists, {0, 1, 2, 495, 499, 100}, 7);
}

TEST_CASE("neighbour sampler: fanout -1 keeps every neighbour in order") {
  const AdjacencyLists lists = sgnn::testing::random_lists(400, 350, 5, 6, 13);
  sampling::SamplerOptions options;
  options.fanouts = {-1, 3};
  const sampling::NeighborSampler sampler(host_graph(lists), options);
  const auto blocks = sample_and_check(sampler, lists, {0, 398, 42}, 0);
  CHECK(blocks.back().num_edges() == static_cast<int64_t>(lists[0].size() + lists[42].size()));
}

TEST_CASE("neighbour sampler: the same seed and batch give the same blocks, another batch or seed others") {
  const AdjacencyLists lists = sgnn::testing::random_lists(2000, 1500, 0, 20, 14);
  sampling::SamplerOptions options;
  options.fanouts = {10, 10};
  options.seed = 5;
  const auto graph = host_graph(lists);
  const sampling::NeighborSampler sampler(graph, options);
  const Tensor seeds = ids({0, 1, 2, 3, 4, 5, 6, 7});
  const auto first = sampler.sample(seeds, 4);
  CHECK(same_blocks(first, sampler.sample(seeds, 4)));
  CHECK(same_blocks(first, sampling::NeighborSampler(graph, options).sample(seeds, 4)));
  CHECK_FALSE(same_blocks(first, sampler.sample(seeds, 5)));
  options.seed = 6;
  CHECK_FALSE(same_blocks(first, sampling::NeighborSampler(graph, options).sample(seeds, 4)));
}

TEST_CASE("neighbour sampler: neighbours are drawn uniformly, with or without replacement") {
  // 2000 destinations with the same 40 neighbours, fanout 10, over 10
  // batches: each neighbour is kept 5000 times in expectation. Pearson's
  // statistic over the 40 counts stays near 39 · (1 - 10/40) ≈ 29 (standard
  // deviation about 8) for a uniform sampler; an off-by-one in Floyd's bound
  // (the last positions 8 % too rare) gives about 400.
  constexpr int32_t kDestinations = 2000;
  AdjacencyLists lists(kDestinations + 40);
  std::vector<int32_t> seeds(kDestinations);
  std::iota(seeds.begin(), seeds.end(), 0);
  for (int32_t v = 0; v < kDestinations; ++v) {
    for (int32_t u = 0; u < 40; ++u) lists[static_cast<std::size_t>(v)].push_back(kDestinations + u);
  }
  for (const bool replace : {false, true}) {
    sampling::SamplerOptions options;
    options.fanouts = {10};
    options.replace = replace;
    const sampling::NeighborSampler sampler(host_graph(lists), options);
    std::map<int32_t, int64_t> kept;
    constexpr int64_t kBatches = 10;
    for (uint64_t batch = 0; batch < kBatches; ++batch) {
      const sampling::Block block = sampler.sample(ids(seeds), batch).front();
      const std::vector<int32_t> sources = block.source_ids.to_vector<int32_t>();
      for (const int32_t local : block.adjacency.csr.indices.to_vector<int32_t>()) {
        ++kept[sources[static_cast<std::size_t>(local)]];
      }
    }
    REQUIRE(kept.size() == 40);
    const double expected = kBatches * kDestinations * 10.0 / 40.0;
    double statistic = 0;
    for (const auto& [node, count] : kept) statistic += (static_cast<double>(count) - expected) * (static_cast<double>(count) - expected) / expected;
    INFO("replace " << replace << ", Pearson statistic " << statistic);
    CHECK(statistic < 100.0);
  }
}

TEST_CASE("neighbour sampler: bad options and seeds are refused") {
  const AdjacencyLists lists = sgnn::testing::random_lists(50, 10, 0, 3, 15);
  const auto graph = host_graph(lists);
  for (const std::vector<int64_t>& fanouts : {std::vector<int64_t>{}, {0}, {5, -2}}) {
    sampling::SamplerOptions options;
    options.fanouts = fanouts;
    CHECK_THROWS_AS(sampling::NeighborSampler(graph, options), InvalidArgument);
  }
  const sampling::NeighborSampler sampler(graph, {});
  CHECK_THROWS_AS(sampler.sample(ids({1, 2, 1}), 0), InvalidArgument);
  CHECK_THROWS_AS(sampler.sample(ids({50}), 0), InvalidArgument);
  CHECK_THROWS_AS(sampler.sample(Tensor::zeros({2}, DType::Int64), 0), InvalidArgument);
  CHECK(sampler.sample(ids({}), 0).front().num_sources() == 0);
}
