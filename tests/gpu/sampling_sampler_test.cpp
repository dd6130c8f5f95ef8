// The CUDA sampler against the CPU reference: the same blocks bit for bit
// (same seed), each block valid against the graph, the launch plans built on
// the GPU equal to the ones ops::sparse_plan builds on the host, and SpMM on
// a GPU block equal to the CPU's. Graphs on the device and in host memory
// (unified addressing), int32 and int64 row offsets.
#include <doctest/doctest.h>

#include "ops/sparse_plan.hpp"
#include "ops/spmm.hpp"
#include "sampling/neighbor_sampler.hpp"
#include "tests/sampling/sampling_graphs.hpp"
#include "tests/support/gpu_testing.hpp"
#include "tests/support/testing.hpp"

namespace {

using namespace sgnn;
using sgnn::testing::AdjacencyLists;
using sgnn::testing::kGpu;

Tensor ids(const std::vector<int32_t>& values, Device device) {
  return Tensor::from_vector(values, {static_cast<int64_t>(values.size())}, device);
}

template <typename T>
void check_same(const Tensor& gpu, const Tensor& cpu, const char* what) {
  INFO(what);
  CHECK(gpu.shape() == cpu.shape());
  CHECK(gpu.to(Device::cpu()).to_vector<T>() == cpu.to_vector<T>());
}

void check_same_block(const sampling::Block& gpu, const sampling::Block& cpu) {
  REQUIRE(gpu.device() == kGpu);
  check_same<int32_t>(gpu.source_ids, cpu.source_ids, "source_ids");
  check_same<int32_t>(gpu.adjacency.csr.indptr, cpu.adjacency.csr.indptr, "indptr");
  check_same<int32_t>(gpu.adjacency.csr.indices, cpu.adjacency.csr.indices, "indices");
  check_same<float>(gpu.adjacency.values, cpu.adjacency.values, "values");
  check_same<int32_t>(gpu.adjacency.transpose.indptr, cpu.adjacency.transpose.indptr, "transpose indptr");
  check_same<int32_t>(gpu.adjacency.transpose.indices, cpu.adjacency.transpose.indices, "transpose indices");
  check_same<int32_t>(gpu.adjacency.transpose_to_csr, cpu.adjacency.transpose_to_csr, "transpose_to_csr");
  check_same<float>(gpu.adjacency.transpose_values, cpu.adjacency.transpose_values, "transpose values");
}

// The registered plan of `csr` against the plan the host builds for a copy of it.
void check_plan(const Csr& csr) {
  const int64_t built_before = ops::sparse_plans_built();
  const std::shared_ptr<const ops::SparsePlan> registered = ops::sparse_plan(csr);
  REQUIRE(ops::sparse_plans_built() == built_before);  // registered by the sampler, not built now
  Csr copy = csr;
  copy.indptr = csr.indptr.clone();
  const std::shared_ptr<const ops::SparsePlan> host = ops::sparse_plan(copy);
  REQUIRE(ops::sparse_plans_built() == built_before + 1);  // the copy's plan came from the host
  CHECK(registered->num_rows == host->num_rows);
  CHECK(registered->nnz == host->nnz);
  CHECK(registered->max_row_length == host->max_row_length);
  CHECK(registered->segment_length == host->segment_length);
  CHECK(registered->segments == host->segments);
  CHECK(registered->split_segments == host->split_segments);
  CHECK(registered->num_split_rows == host->num_split_rows);
  check_same<int32_t>(registered->row_order, host->row_order.to(Device::cpu()), "row_order");
  check_same<int32_t>(registered->segment_row, host->segment_row.to(Device::cpu()), "segment_row");
  check_same<int64_t>(registered->segment_begin, host->segment_begin.to(Device::cpu()), "segment_begin");
  check_same<int32_t>(registered->split_rows, host->split_rows.to(Device::cpu()), "split_rows");
  check_same<int64_t>(registered->split_offsets, host->split_offsets.to(Device::cpu()), "split_offsets");
  CHECK(registered->entry_row.defined() == host->entry_row.defined());
  if (host->entry_row.defined()) check_same<int32_t>(registered->entry_row, host->entry_row.to(Device::cpu()), "entry_row");
}

void compare_backends(const AdjacencyLists& lists, const sampling::SamplerOptions& options,
                      const std::vector<int32_t>& seeds, bool wide, sampling::Residence residence) {
  const Csr csr = sgnn::testing::csr_of(lists, wide);
  const sampling::NeighborSampler cpu(
      std::make_shared<const sampling::SamplingGraph>(csr, Device::cpu(), sampling::Residence::Device), options);
  const sampling::NeighborSampler gpu(std::make_shared<const sampling::SamplingGraph>(csr, kGpu, residence), options);
  for (const uint64_t batch : {uint64_t{0}, uint64_t{9}}) {
    const auto expected = cpu.sample(ids(seeds, Device::cpu()), batch);
    const auto got = gpu.sample(ids(seeds, kGpu), batch);
    REQUIRE(got.size() == expected.size());
    std::vector<int32_t> destinations = seeds;
    for (std::size_t hop = 0; hop < got.size(); ++hop) {
      const std::size_t layer = got.size() - 1 - hop;
      CAPTURE(hop);
      check_same_block(got[layer], expected[layer]);
      sgnn::testing::check_block(got[layer], lists, destinations, options.fanouts[hop], options.replace);
      check_plan(got[layer].adjacency.csr);
      check_plan(got[layer].adjacency.transpose);
      destinations = expected[layer].source_ids.to_vector<int32_t>();
    }
    // The SpMM on a GPU block (registered plans) equals the CPU's on the same block.
    const sampling::Block& input = got.front();
    const Tensor x = sgnn::testing::random_tensor({input.num_sources(), 24}, 5);
    const Tensor on_gpu = ops::spmm(input.adjacency, x.to(kGpu));
    const Tensor on_cpu = ops::spmm(expected.front().adjacency, x);
    CHECK(sgnn::testing::relative_error(on_gpu.to(Device::cpu()), on_cpu) < 1e-6);
  }
}

}  // namespace

TEST_CASE("GPU sampler gives the CPU's blocks: fanouts 15,10,5 with a hub and isolated nodes, graph on the device") {
  const AdjacencyLists lists = sgnn::testing::random_lists(20000, 15000, 40, 20, 101);
  sampling::SamplerOptions options;
  options.fanouts = {15, 10, 5};
  options.seed = 17;
  std::vector<int32_t> seeds{0, 19999, 19970, 3, 4096, 12345};
  for (int32_t v = 100; v < 1100; ++v) seeds.push_back(v);
  for (const bool wide : {false, true}) {
    CAPTURE(wide);
    compare_backends(lists, options, seeds, wide, sampling::Residence::Device);
  }
}

TEST_CASE("GPU sampler gives the CPU's blocks with the graph in host memory (unified addressing)") {
  const AdjacencyLists lists = sgnn::testing::random_lists(5000, 4000, 20, 10, 102);
  sampling::SamplerOptions options;
  options.fanouts = {10, 5};
  options.seed = 2;
  std::vector<int32_t> seeds{0, 4999, 7};
  for (int32_t v = 10; v < 600; v += 3) seeds.push_back(v);
  compare_backends(lists, options, seeds, true, sampling::Residence::Host);
}

TEST_CASE("GPU sampler gives the CPU's blocks with replacement, with every neighbour, and fanouts above 32") {
  const AdjacencyLists lists = sgnn::testing::random_lists(3000, 2500, 10, 40, 103);
  std::vector<int32_t> seeds{0, 2999, 1, 2, 3};
  for (int32_t v = 50; v < 450; ++v) seeds.push_back(v);
  for (const std::vector<int64_t>& fanouts : {std::vector<int64_t>{8, 4}, {-1, 3}, {70, 2}}) {
    for (const bool replace : {false, true}) {
      CAPTURE(replace);
      sampling::SamplerOptions options;
      options.fanouts = fanouts;
      options.replace = replace;
      options.seed = 8;
      compare_backends(lists, options, seeds, false, sampling::Residence::Device);
    }
  }
}

TEST_CASE("GPU sampler: no seeds give empty blocks") {
  const AdjacencyLists lists = sgnn::testing::random_lists(100, 20, 0, 3, 104);
  const sampling::NeighborSampler gpu(
      std::make_shared<const sampling::SamplingGraph>(sgnn::testing::csr_of(lists), kGpu, sampling::Residence::Device),
      {});
  const auto blocks = gpu.sample(Tensor::empty({0}, DType::Int32, kGpu), 0);
  for (const sampling::Block& block : blocks) {
    CHECK(block.num_sources() == 0);
    CHECK(block.num_edges() == 0);
  }
}
