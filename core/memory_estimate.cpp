#include "core/memory_estimate.hpp"

#include <algorithm>
#include <atomic>

#include "core/error.hpp"
#include "core/hrpb.hpp"
#ifdef SGNN_WITH_CUDA
#include "core/cuda_runtime.hpp"
#endif

namespace sgnn::memory {

namespace {

constexpr int64_t kFloat = 4;
constexpr int64_t kIndex = 4;  // int32 ids; offsets switch to int64 only past 2^31 entries
constexpr int64_t kKey = 8;    // the (row << 32 | col) sort keys of preparation

int64_t offset_bytes(int64_t nnz) { return nnz < (int64_t{1} << 31) ? 4 : 8; }

// One CSR: indptr, indices, row_order.
int64_t csr_bytes(int64_t rows, int64_t nnz) {
  return (rows + 1) * offset_bytes(nnz) + nnz * kIndex + rows * kIndex;
}

// An upper bound of one HRPB layout (core/hrpb.hpp): a panel of 16 rows has
// at most one 16-column block per 16 of its entries plus one, so
// blocks ≤ nnz / 16 + panels; each block holds at most 4 bricks.
int64_t hrpb_blocks(int64_t rows, int64_t nnz) {
  return nnz / hrpb::kBlockCols + (rows + hrpb::kPanelRows - 1) / hrpb::kPanelRows;
}

int64_t hrpb_bytes(int64_t rows, int64_t nnz) {
  const int64_t panels = (rows + hrpb::kPanelRows - 1) / hrpb::kPanelRows;
  const int64_t blocks = hrpb_blocks(rows, nnz);
  const int64_t words_per_block = hrpb::kColPtrWords + 3 * hrpb::kMaxBricks + 2;  // colPtr, rows, patterns, pads
  return (panels + 1) * 4                      // blocked_row_ptr
         + blocks * hrpb::kBlockCols * 4      // active_cols
         + (blocks + 1) * 8                   // size_ptr
         + (blocks * words_per_block + nnz) * 4  // packed blocks: headers and values
         + (panels + 1) * 4 * 5;              // the schedule, at most a few words per panel
}

std::atomic<int64_t> free_override{-1};

}  // namespace

int64_t Estimate::total_bytes() const {
  int64_t persistent = 0;
  int64_t transient = 0;
  for (const EstimatePart& part : parts) {
    if (part.transient) transient = std::max(transient, part.bytes);
    else persistent += part.bytes;
  }
  return persistent + transient;
}

std::string mebibytes(int64_t bytes) {
  constexpr int64_t kMiB = int64_t{1} << 20;
  return detail::concat((bytes + kMiB - 1) / kMiB, " MiB");
}

std::string Estimate::describe() const {
  std::string text;
  for (const EstimatePart& part : parts) {
    if (part.bytes == 0) continue;
    text += (text.empty() ? "" : ", ") + part.what + " " + mebibytes(part.bytes) + (part.transient ? " (transient)" : "");
  }
  return text;
}

int64_t prepared_nnz_bound(const GraphShape& graph) {
  return (graph.symmetrize ? 2 * graph.edges : graph.edges) + (graph.self_loops ? graph.nodes : 0);
}

Estimate estimate_graph(const GraphShape& graph) {
  SGNN_CHECK(graph.nodes >= 0 && graph.edges >= 0 && graph.features >= 0 && graph.nnz >= 0,
             "estimate_graph: negative size (nodes ", graph.nodes, ", edges ", graph.edges, ", features ",
             graph.features, ", nnz ", graph.nnz, ")");
  const int64_t nnz = graph.nnz > 0 ? graph.nnz : prepared_nnz_bound(graph);
  const int64_t candidates = graph.symmetrize ? 2 * graph.edges : graph.edges;
  Estimate estimate;
  // Freed once the CSR is built: the edge list copied to the device and the
  // (row << 32 | col) sort keys of the candidate entries with their
  // deduplicated copy (csr_builder.hpp).
  // Edge features add the entries' edge ids riding with the keys and the
  // features as read, copied to the device before their gather.
  const int64_t edge_feature_workspace =
      graph.edge_features > 0 ? candidates * kKey + graph.edges * graph.edge_features * kFloat : 0;
  estimate.parts.push_back({"preparation workspace",
                            graph.edges * 2 * kIndex + 2 * candidates * kKey + edge_feature_workspace, true});
  // A symmetrised pattern is its own transpose (graph_io shares the arrays,
  // and symmetric weights such as GCN's D^-1/2 A D^-1/2 with them).
  const int64_t edge_map = graph.edge_map ? nnz * offset_bytes(nnz) : 0;
  if (graph.symmetrize) {
    estimate.parts.push_back({"CSR (its own transpose)", csr_bytes(graph.nodes, nnz) + edge_map, false});
  } else {
    estimate.parts.push_back({"CSR and transpose", 2 * csr_bytes(graph.nodes, nnz) + edge_map, false});
  }
  if (graph.edge_weights) estimate.parts.push_back({"edge weights", (graph.symmetrize ? 1 : 2) * nnz * kFloat, false});
  if (graph.hrpb) {
    // A and Aᵀ; one layout when they are the same matrix (graph_io::build_hrpb
    // shares it, and the HRPB cache keeps it shared), as for the weights above.
    const int64_t layouts = graph.symmetrize ? 1 : 2;
    estimate.parts.push_back({"HRPB layout", layouts * hrpb_bytes(graph.nodes, nnz), false});
    // Mixed precision: the BF16 kernel's A fragments (ops/cuda/hrpb_bf16_fragments.cuh), 512 bytes a block.
    if (graph.training_feature_bytes == 2) {
      estimate.parts.push_back({"HRPB BF16 A fragments", layouts * hrpb_blocks(graph.nodes, nnz) * 512, false});
    }
  }
  // In the entries' order, float32 and (mixed precision) the bfloat16 copy the model reads.
  if (graph.edge_features > 0) {
    const int64_t copy = graph.training_feature_bytes == kFloat ? 0 : graph.training_feature_bytes;
    estimate.parts.push_back({"edge features", nnz * graph.edge_features * (kFloat + copy), false});
  }
  // As stored and row-normalised (two copies), labels and the three splits.
  estimate.parts.push_back({"features and labels",
                            graph.nodes * graph.features * (kFloat + graph.training_feature_bytes) +
                                2 * graph.nodes * kIndex,
                            false});
  return estimate;
}

Estimate estimate_model(int64_t parameters, int64_t activation_bytes, bool bfloat16_compute_copies) {
  SGNN_CHECK(parameters >= 0 && activation_bytes >= 0, "estimate_model: negative size (parameters ", parameters,
             ", activation bytes ", activation_bytes, ")");
  const int64_t copy_bytes = bfloat16_compute_copies ? 2 : 0;
  Estimate estimate;
  estimate.parts.push_back({"parameters and optimizer state", parameters * (5 * kFloat + copy_bytes), false});
  estimate.parts.push_back({"activations", activation_bytes, false});
  return estimate;
}

Estimate estimate_training(const GraphShape& graph, const Estimate& model) {
  Estimate estimate = estimate_graph(graph);
  estimate.parts.insert(estimate.parts.end(), model.parts.begin(), model.parts.end());
  return estimate;
}

std::optional<int64_t> free_bytes(Device device) {
  const int64_t override_bytes = free_override.load();
  if (override_bytes >= 0) return override_bytes;
  if (!device.is_cuda()) return std::nullopt;
#ifdef SGNN_WITH_CUDA
  cuda::DeviceGuard guard(device);
  std::size_t free_memory = 0;
  std::size_t total_memory = 0;
  SGNN_CUDA_CHECK(cudaMemGetInfo(&free_memory, &total_memory));
  // Freed tensors stay in the default pool (core/memory.cpp), which the
  // driver counts as used; the library can reuse them.
  cudaMemPool_t pool = nullptr;
  SGNN_CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, device.index));
  uint64_t reserved = 0;
  uint64_t used = 0;
  SGNN_CUDA_CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &reserved));
  SGNN_CUDA_CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used));
  return static_cast<int64_t>(free_memory) + static_cast<int64_t>(reserved > used ? reserved - used : 0);
#else
  return std::nullopt;
#endif
}

void require_fits(const Estimate& estimate, Device device, const std::string& what,
                  const std::vector<FitOption>& alternatives) {
  const std::optional<int64_t> available = free_bytes(device);
  const int64_t needed = estimate.total_bytes();
  if (!available || needed <= *available) return;
  std::string fits;
  for (const FitOption& option : alternatives) {
    const int64_t option_bytes = option.estimate.total_bytes();
    if (option.always_fits || option_bytes <= *available) {
      fits += detail::concat(fits.empty() ? "" : "; ", option.change,
                             option.always_fits ? "" : " (about " + mebibytes(option_bytes) + ")");
    }
  }
  throw OutOfMemoryError(detail::concat(
      "not enough memory on ", device.str(), " for ", what, ": it needs about ", mebibytes(needed), " (",
      estimate.describe(), "), ", mebibytes(*available), " are free. ",
      fits.empty() ? std::string("No smaller setting tried would fit either") : "What would fit: " + fits));
}

void set_free_bytes_override(std::optional<int64_t> bytes) {
  SGNN_CHECK(!bytes || *bytes >= 0, "set_free_bytes_override: negative byte count ", bytes.value_or(0));
  free_override.store(bytes.value_or(-1));
}

}  // namespace sgnn::memory
