// Device-memory estimates made before anything is allocated, and the check
// that refuses a run that cannot fit with a message saying what would.
//
// The estimates are from shapes only (no data touched): the prepared graph
// (edges copied to the device, the sort workspace of preparation, CSR and
// transpose, edge weights, an HRPB layout when asked, features and labels)
// and a model's training step (parameters, gradients, Adam's two moments,
// the trainer's copy of the best parameters, and the activations one
// forward + backward keeps alive, as the model's kind counts them). Given the real entry count they aim at
// the peak of memory::usage()
// within a factor of 2 (tests/training/memory_estimate_test.cpp checks that on
// the CPU); allocations outside sparsegnn tensors (cuBLAS, Thrust's sort
// scratch) are not counted.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/device.hpp"

namespace sgnn::memory {

struct GraphShape {
  int64_t nodes = 0;
  int64_t edges = 0;          // as stored in the dataset, before symmetrizing
  int64_t features = 0;       // feature columns (0: none)
  int64_t edge_features = 0;  // edge feature columns carried into the entries' order (0: none)
  bool symmetrize = true;     // the prepared graph may hold up to 2·edges + nodes entries
  bool self_loops = true;
  bool edge_weights = false;  // GCN normalisation: values and transpose_values
  bool edge_map = true;       // Adjacency::transpose_to_csr kept (GCN drops it)
  bool hrpb = false;          // the HRPB layout of A and Aᵀ is built too
  int64_t nnz = 0;            // entries of the prepared adjacency when known; 0: prepared_nnz_bound
  // Bytes per element of the features the model reads (the row-normalised
  // copy): 4 for float32, 2 for bfloat16 (mixed precision); the features as
  // loaded are float32 either way.
  int64_t training_feature_bytes = 4;
};

struct EstimatePart {
  std::string what;
  int64_t bytes = 0;
  bool transient = false;  // freed before the next part is allocated (a workspace)
};

struct Estimate {
  std::vector<EstimatePart> parts;
  // The peak: every persistent part plus the largest transient one.
  int64_t total_bytes() const;
  std::string describe() const;  // "CSR and transpose 12 MiB, features 4 MiB, ..."
};

// The number of entries of the prepared adjacency, at most: 2·edges + nodes
// when symmetrizing, which is twice the real count for a dataset that
// already stores both directions of every edge (most do). Cheap (no data
// read); the experiment's check replaces it by the exact count
// (graph_io::count_prepared_entries) before it refuses a run.
int64_t prepared_nnz_bound(const GraphShape& graph);
Estimate estimate_graph(const GraphShape& graph);
// A model's training step from what its kind estimates (the model registry,
// training/nn/model_registry.hpp, holds each kind's own count): its
// parameters, each with its gradient, Adam's two moments and the trainer's
// best copy (5 float32), plus a 2-byte compute copy when
// `bfloat16_compute_copies` (mixed precision); and its activations.
// InvalidArgument for negative counts.
Estimate estimate_model(int64_t parameters, int64_t activation_bytes, bool bfloat16_compute_copies);
// Both, as one list.
Estimate estimate_training(const GraphShape& graph, const Estimate& model);

// Bytes free on `device` now: cudaMemGetInfo for a CUDA device; none for
// the CPU (no check there) unless a test override is set.
std::optional<int64_t> free_bytes(Device device);
// Test only: makes free_bytes() return `bytes` on every device (nullopt:
// back to the real query), so that the refusal path runs on the CPU tier.
void set_free_bytes_override(std::optional<int64_t> bytes);

// One change of the run and what it would need (always_fits: needs no check
// here, e.g. training on the CPU).
struct FitOption {
  std::string change;  // "the CSR format instead of HRPB (--spmm csr)"
  Estimate estimate;
  bool always_fits = false;
};

// Throws OutOfMemoryError when free_bytes(device) is known and smaller than
// estimate.total_bytes(): the message gives `what`, needed vs free bytes, the
// estimate's parts, and which of `alternatives` would fit. Does nothing when
// the free bytes are unknown (the CPU).
void require_fits(const Estimate& estimate, Device device, const std::string& what,
                  const std::vector<FitOption>& alternatives);

// "123 MiB" (rounded up, so that a non-zero size never reads as 0 MiB).
std::string mebibytes(int64_t bytes);

}  // namespace sgnn::memory
