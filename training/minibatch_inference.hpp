// Layer-wise full-neighbour inference (as DGL's and PyG's GraphSAGE
// examples evaluate): layer 1 for every node from all its neighbours, in
// chunks of destination rows, then layer 2 from layer 1's outputs, and so
// on; the last layer only for the rows asked for. Every node sees its whole
// neighbourhood, so the accuracy is not a sampled one, and each layer costs
// one pass over the graph instead of the L-hop neighbourhood per node.
//
// A chunk's aggregation reads its rows of the whole graph
// (sampling::neighbourhood_rows) and the previous layer's table directly
// when that table is on the device; a table in host memory (features kept
// there, or hidden layers too large for the device budget) is gathered per
// chunk through a full-neighbourhood block instead. Runs without a tape in
// eval mode (the model's mode is restored).
#pragma once

#include <cstdint>

#include "sampling/feature_store.hpp"
#include "sampling/sampling_graph.hpp"
#include "training/block_model.hpp"

namespace sgnn::training {

struct InferenceOptions {
  int64_t chunk_rows = 16384;        // destination rows per chunk
  int64_t device_budget_bytes = -1;  // for the hidden layers' tables; < 0: no limit
};

// Logits [rows.numel(), classes] (the model's activation dtype, on its
// device) of the nodes `rows` (host int32). InvalidArgument when the graph,
// features and model disagree in size or device.
Tensor infer_layerwise(BlockModel& model, const sampling::SamplingGraph& graph, const sampling::FeatureStore& features,
                       const Tensor& rows, const InferenceOptions& options = {});

}  // namespace sgnn::training
