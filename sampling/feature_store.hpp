// FeatureStore: a node table (features [N, F], or labels [N]) where the
// batches' gathers read it (sampling/gather.hpp).
//
//   Residence::Device  the table on the training device (copied there once,
//                      converted to `dtype` on the way for a float table)
//   Residence::Host    the table stays in host memory, read by the GPU over
//                      unified addressing: pinned memory as it is, other host
//                      memory (a mapped processed file) page-locked in place
//                      (copied to pinned memory when that is refused);
//                      with cache_bytes > 0, the rows of the highest-degree
//                      nodes (ties by id) are copied to the device and read
//                      from there (PaGraph/GNNLab's static degree cache: a
//                      neighbour sample reaches a node about in proportion to
//                      its degree); on CUDA each gather's rows are shared
//                      between the GPU and the host's threads at a measured
//                      balance (sampling/gather.hpp's HostGatherSplit)
// On the CPU both are the host table. gather() returns [n, F] ([n] for a
// 1-D table) of `dtype` on the device: float32 or bfloat16 for a float
// table (BF16 features for a model computing in BF16, or widened for FP32),
// int32 for labels.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "sampling/gather.hpp"
#include "sampling/sampling_graph.hpp"

namespace sgnn::sampling {

struct FeatureStoreOptions {
  Residence residence = Residence::Device;
  DType dtype = DType::Float32;  // of the gathered rows
  int64_t cache_bytes = 0;       // Host only: device bytes for cached rows
  double gpu_read_share = -1.0;  // Host only: the GPU's share of a gather's rows in [0, 1]; < 0: measured
};

class FeatureStore {
 public:
  // `table` float32/bfloat16 [N, F] or int32 [N] on the host (or on
  // `device`); `degrees` [N] (the cache's ranking; may be empty without a
  // cache). InvalidArgument for other dtypes or shapes.
  FeatureStore(const Tensor& table, Device device, const FeatureStoreOptions& options,
               const std::vector<int64_t>& degrees = {});
  ~FeatureStore();
  FeatureStore(const FeatureStore&) = delete;
  FeatureStore& operator=(const FeatureStore&) = delete;

  Tensor gather(const Tensor& ids, const WorkContext& context) const;
  Tensor gather(const Tensor& ids) const { return gather(ids, WorkContext::on(device_)); }

  Device device() const { return device_; }
  Residence residence() const { return residence_; }
  DType dtype() const { return dtype_; }
  int64_t num_rows() const { return source_.num_rows; }
  int64_t row_elements() const { return source_.row_elements; }
  int64_t cached_rows() const { return cached_rows_; }
  // Host residence on CUDA: the GPU's share of the next gather's rows (1 otherwise).
  double gpu_read_share() const;
  // Host residence on CUDA with a measured share: what the choice of
  // readers measured (the GPU alone, the best gather shared with host
  // threads, the host threads alone, into whole staging and through a ring), in rows
  // per millisecond (0 until measured; all 0 otherwise). Once chosen, the
  // share is 1 for the GPU alone, 0 for the host threads alone (`ring`
  // says which way) and between for a shared gather.
  struct SplitTrials {
    double gpu_alone_rows_per_ms = 0.0, best_shared_rows_per_ms = 0.0, host_alone_rows_per_ms = 0.0,
           host_ring_rows_per_ms = 0.0;
    bool chosen = false;  // the trials are over; gpu_read_share() is the choice's share
    bool ring = false;    // the next gather's host threads alone copy through the ring
  };
  SplitTrials split_trials() const;
  // Device bytes this store holds (table or cache and its slot map).
  int64_t device_bytes() const;
  // The whole table as stored (a host tensor for Residence::Host).
  const Tensor& table() const { return table_; }

 private:
  Device device_;
  Residence residence_;
  DType dtype_;
  bool one_dimensional_ = false;
  Tensor table_;
  std::unique_ptr<class HostAccess> access_;
  std::unique_ptr<HostGatherSplit> split_;
  RowSource source_;
  Tensor cache_rows_, slot_of_row_;
  int64_t cached_rows_ = 0;
};

// The rows a cache of `cache_bytes` holds for rows of `row_bytes`: the
// highest-degree nodes, ties by the smaller id, in that order.
std::vector<int32_t> nodes_to_cache(const std::vector<int64_t>& degrees, int64_t cache_bytes, int64_t row_bytes);

}  // namespace sgnn::sampling
