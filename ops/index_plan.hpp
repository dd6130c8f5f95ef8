// Index plans: what gather, scatter and segment_reduce need to know about an
// index or offsets tensor beyond its values, checked and computed once per
// tensor on CUDA and cached, as ops/sparse_plan.hpp caches a CSR's plan:
//   facts   its range, first and last value and whether it is sorted
//           (IndexFacts), from which every call's check is made on the host
//   sorted  the stable sort of its values per num_outputs a scatter asked
//           for (the offsets and edge order of the CSR it defines)
// On CUDA, computing the facts waits for the stream once per tensor; the
// cache is keyed by the tensor's storage, which it holds so that a freed
// tensor's address can never be mistaken for a new one, and keeps the last
// kIndexPlanCacheSize tensors. A cached tensor must not change in place.
// On the CPU nothing is cached: every call computes (the reference checks
// every call). Thread safe.
#pragma once

#include <cstdint>
#include <string_view>

#include "core/tensor.hpp"

namespace sgnn::ops {

inline constexpr std::size_t kIndexPlanCacheSize = 32;

// Throws InvalidArgument unless `index` is an int32 or int64 vector on
// `device` whose values lie in [0, bound). `bound_text` says where the
// bound comes from ("x of shape [5, 3]"). Inside a CUDA Graph capture a
// tensor never seen before is not checked (the kernels stay in bounds).
void check_index_values(const Tensor& index, int64_t bound, const char* op, const char* argument,
                        std::string_view bound_text);

// Throws InvalidArgument unless `offsets` is an int32 or int64 vector of at
// least one value on `device`, non-decreasing from 0 to `positions`. Inside
// a capture as above.
void check_offsets_values(const Tensor& offsets, int64_t positions, const char* op, const char* argument,
                          std::string_view positions_text);

// The stable sort of a checked index with values in [0, num_outputs):
// offsets int32 [num_outputs + 1] and order int32 [E] (ops/gather_scatter_backend.hpp,
// sort_index). Cached on CUDA; needs E < 2^31 and, on CUDA, an index seen
// outside a capture (InvalidArgument naming `op` otherwise).
struct SortedIndex {
  Tensor offsets;
  Tensor order;
};
SortedIndex sorted_index(const Tensor& index, int64_t num_outputs, const char* op);
// The same sort, neither checked nor cached nor looked up (what the CPU does
// every call; on CUDA for an index made afresh each call, which the cache
// would keep alive: ops/ordered_scatter.hpp). Values must lie in [0, num_outputs).
SortedIndex sorted_index_uncached(const Tensor& index, int64_t num_outputs);

// Index plans computed so far on CUDA (cache misses), for tests.
int64_t index_plans_built();

}  // namespace sgnn::ops
