// NeighborSampler: GraphSAGE's uniform neighbour sampling (Hamilton et al.
// 2017), as PyG's NeighborLoader and DGL's NeighborSampler do it, on the
// CPU (OpenMP, the reference) or a GPU.
//
// sample(seeds, batch) draws, hop by hop from the seeds, up to fanouts[h]
// in-neighbours of every node of hop h (fanouts in PyG's num_neighbors
// order: fanouts[0] for the seeds' own neighbours; -1 = all of them), and
// returns one Block per hop, input layer first: blocks.back() has the seeds
// as destinations, blocks[h - 1]'s destinations are blocks[h]'s sources.
// Sampling is uniform without replacement (Floyd's algorithm,
// sampling/sample_math.hpp), or with replacement when asked (then a row may
// repeat a source). Node ids are relabelled on the sampling device (a
// stable radix sort, no host round trip): a block's sources are its
// destinations in their order, then the other sampled nodes by increasing
// global id; each row's columns sorted.
//
// Reproducible: blocks depend only on (seed, batch, seeds, graph, fanouts,
// replace), not on the thread count; the CPU and CUDA backends give the
// same blocks bit for bit.
//
// seeds: int32 [B] distinct node ids on the graph's device (B may be 0).
// On the CPU ids out of range or repeated are InvalidArgument; on a GPU they
// are not checked (that would read them back every batch).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "sampling/block.hpp"
#include "sampling/sampling_graph.hpp"
#include "sampling/work_context.hpp"

namespace sgnn::sampling {

struct SamplerOptions {
  std::vector<int64_t> fanouts{15, 10, 5};  // per hop from the seeds; each >= 1, or -1 for all
  bool replace = false;
  uint64_t seed = 0;
};

// InvalidArgument naming the problem (no fanouts, a fanout of 0 or below -1,
// more than kHopsPerBatch hops).
void check_sampler_options(const SamplerOptions& options);

class NeighborSampler {
 public:
  NeighborSampler(std::shared_ptr<const SamplingGraph> graph, SamplerOptions options);

  std::vector<Block> sample(const Tensor& seeds, uint64_t batch) const;
  // The same in `context` (the pipeline's arena and stream).
  std::vector<Block> sample(const Tensor& seeds, uint64_t batch, const WorkContext& context) const;

  const SamplingGraph& graph() const { return *graph_; }
  const SamplerOptions& options() const { return options_; }
  int64_t num_hops() const { return static_cast<int64_t>(options_.fanouts.size()); }

 private:
  std::shared_ptr<const SamplingGraph> graph_;
  SamplerOptions options_;
};

}  // namespace sgnn::sampling
