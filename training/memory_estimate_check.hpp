// The memory check of run_experiment: before the graph is prepared, estimate
// what the prepared graph and one model's training need on the device
// (core/memory_estimate.hpp, with the model's own count from its registry
// entry) and refuse with OutOfMemoryError — needed vs free bytes, and which
// of the CSR format, a smaller hidden size, bf16 or the CPU would fit —
// instead of failing inside a kernel later.
#pragma once

#include <optional>

#include "core/memory_estimate.hpp"
#include "graph_io/dataset.hpp"
#include "training/nn/model_registry.hpp"

namespace sgnn::training {

// The shapes the experiment will allocate for `dataset` prepared as `entry`
// asks (hrpb: the HRPB layout may be built, i.e. --spmm hrpb, or auto for a
// model of fixed weights) at `precision` (bytes per feature element).
memory::GraphShape experiment_graph_shape(const ModelEntry& entry, const graph_io::Dataset& dataset, bool hrpb,
                                          Precision precision = Precision::Fp32);
// The training step of `description`'s model on `graph` (no parts when its
// kind has no estimate).
memory::Estimate experiment_model_estimate(const ModelDescription& description, const GraphSize& graph);

// Entries of the adjacency the experiment will prepare, counted exactly from
// the edges (graph_io::count_prepared_entries: one host sort of the edges).
int64_t experiment_prepared_entries(const ModelEntry& entry, const graph_io::Dataset& dataset);

// No-op where free memory is unknown (the CPU, unless a test override is set).
// `known_entries`: the prepared entry count when already known (the
// adjacency cache records it), used as is. Otherwise the shapes use the cheap
// nnz bound first; only when that would not fit are the real entries counted
// (experiment_prepared_entries), so a dataset that stores both directions of
// its edges is not refused on a bound twice too high.
void require_experiment_fits(const ModelDescription& description, const graph_io::Dataset& dataset, bool hrpb,
                             Device device, std::optional<int64_t> known_entries = std::nullopt);

}  // namespace sgnn::training
