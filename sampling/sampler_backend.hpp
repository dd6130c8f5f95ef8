// Backend entry points of the sampler (see ops/backend.hpp for the pattern).
// sample_hop builds one Block from `destinations` (int32 [nd] global ids on
// the context's device): counts, draws (sampling/sample_math.hpp), the
// relabelling and the transpose with its edge map; the CUDA backend also
// registers both CSRs' launch plans. neighbourhood_rows builds rows
// [begin, end) of the whole graph (every neighbour, global column ids, mean
// weights, no transpose): the layer-wise inference's aggregation.
#pragma once

#include "ops/backend.hpp"
#include "sampling/block.hpp"
#include "sampling/sampling_graph.hpp"
#include "sampling/work_context.hpp"

namespace sgnn::sampling {

struct HopRequest {
  CsrView graph;
  int64_t fanout = -1;
  bool replace = false;
  PhiloxStream stream;
};

Block sample_hop(ops::Cpu, const HopRequest& request, const Tensor& destinations, const WorkContext& context);
Block sample_hop(ops::Cuda, const HopRequest& request, const Tensor& destinations, const WorkContext& context);

Adjacency neighbourhood_rows(ops::Cpu, const CsrView& graph, int64_t begin, int64_t end, const WorkContext& context);
Adjacency neighbourhood_rows(ops::Cuda, const CsrView& graph, int64_t begin, int64_t end, const WorkContext& context);

}  // namespace sgnn::sampling
