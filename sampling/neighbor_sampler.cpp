#include "sampling/neighbor_sampler.hpp"

#include <algorithm>

#include "sampling/sample_math.hpp"
#include "sampling/sampler_backend.hpp"

namespace sgnn::sampling {

namespace {

// The CPU checks what the GPU cannot afford to read back every batch.
void check_seeds_on_host(const Tensor& seeds, int64_t num_nodes) {
  const int32_t* ids = seeds.data<int32_t>();
  std::vector<int32_t> sorted(ids, ids + seeds.numel());
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    SGNN_CHECK(sorted[i] >= 0 && sorted[i] < num_nodes, "NeighborSampler: seed ", sorted[i], " outside [0, ",
               num_nodes, ")");
    SGNN_CHECK(i == 0 || sorted[i] != sorted[i - 1], "NeighborSampler: seed ", sorted[i],
               " given twice (seeds must be distinct)");
  }
}

}  // namespace

void check_sampler_options(const SamplerOptions& options) {
  SGNN_CHECK(!options.fanouts.empty(), "NeighborSampler: no fanouts (one per layer, e.g. 15,10,5)");
  SGNN_CHECK(options.fanouts.size() <= kHopsPerBatch, "NeighborSampler: ", options.fanouts.size(),
             " hops, at most ", kHopsPerBatch);
  for (const int64_t fanout : options.fanouts) {
    SGNN_CHECK(fanout >= 1 || fanout == -1, "NeighborSampler: fanout ", fanout,
               " (each fanout is >= 1, or -1 for every neighbour)");
  }
}

NeighborSampler::NeighborSampler(std::shared_ptr<const SamplingGraph> graph, SamplerOptions options)
    : graph_(std::move(graph)), options_(std::move(options)) {
  SGNN_CHECK(graph_ != nullptr, "NeighborSampler: no graph");
  check_sampler_options(options_);
}

std::vector<Block> NeighborSampler::sample(const Tensor& seeds, uint64_t batch) const {
  return sample(seeds, batch, WorkContext::on(graph_->device()));
}

std::vector<Block> NeighborSampler::sample(const Tensor& seeds, uint64_t batch, const WorkContext& context) const {
  check_dtype(seeds, DType::Int32, "NeighborSampler::sample", "seeds");
  check_dim(seeds, 1, "NeighborSampler::sample", "seeds");
  SGNN_CHECK(seeds.device() == graph_->device() && context.device == graph_->device(),
             "NeighborSampler::sample: seeds on ", seeds.device().str(), " and context on ", context.device.str(),
             ", the graph samples on ", graph_->device().str());
  if (seeds.device().is_cpu()) check_seeds_on_host(seeds, graph_->num_nodes());
  std::vector<Block> blocks;
  blocks.reserve(options_.fanouts.size());
  Tensor destinations = seeds;
  for (std::size_t hop = 0; hop < options_.fanouts.size(); ++hop) {
    HopRequest request;
    request.graph = graph_->view();
    request.fanout = options_.fanouts[hop];
    request.replace = options_.replace;
    request.stream = hop_stream(options_.seed, batch, static_cast<int64_t>(hop));
    Block block = SGNN_DISPATCH(context.device, sample_hop, request, destinations, context);
    destinations = block.source_ids;
    blocks.push_back(std::move(block));
  }
  std::reverse(blocks.begin(), blocks.end());
  return blocks;
}

}  // namespace sgnn::sampling
