#ifndef __CUDACC__
// Thrust's "device" system in this host-only file is OpenMP (as in prepare.cpp).
#define THRUST_DEVICE_SYSTEM THRUST_DEVICE_SYSTEM_OMP
#endif
#pragma GCC diagnostic ignored "-Wnull-dereference"  // inside Thrust's helpers, as in prepare.cpp
#include <thrust/sort.h>
#include <thrust/system/omp/execution_policy.h>
#include <thrust/unique.h>

#include <algorithm>
#include <vector>

#include "graph_io/prepared_entries.hpp"

namespace sgnn::graph_io {

int64_t count_prepared_entries(const EdgeList& edges, const PrepareOptions& options) {
  const Device host = Device::cpu();
  EdgeList here{edges.num_nodes, edges.source.defined() ? edges.source.to(host) : Tensor(),
                edges.target.defined() ? edges.target.to(host) : Tensor(), Tensor()};
  here.validate();
  const auto nodes = static_cast<uint64_t>(here.num_nodes);
  const int64_t count = here.num_edges();
  const int32_t* source = count > 0 ? here.source.data<int32_t>() : nullptr;
  const int32_t* target = count > 0 ? here.target.data<int32_t>() : nullptr;
  // One key per edge that is not a self loop: the unordered pair when
  // symmetrising (its two directions are two entries), else (row, column).
  std::vector<uint64_t> keys;
  keys.reserve(static_cast<std::size_t>(count));
  std::vector<bool> has_loop(options.self_loops == SelfLoops::Keep ? nodes : 0);
  for (int64_t k = 0; k < count; ++k) {
    const auto from = static_cast<uint64_t>(source[k]);
    const auto to = static_cast<uint64_t>(target[k]);
    if (from == to) {
      if (options.self_loops == SelfLoops::Keep) has_loop[from] = true;
      continue;
    }
    const uint64_t row = options.symmetrize ? std::min(from, to) : to;
    const uint64_t column = options.symmetrize ? std::max(from, to) : from;
    keys.push_back(row * nodes + column);
  }
  thrust::sort(thrust::omp::par, keys.begin(), keys.end());
  const auto pairs = static_cast<int64_t>(thrust::unique(thrust::omp::par, keys.begin(), keys.end()) - keys.begin());
  int64_t loops = 0;
  if (options.self_loops == SelfLoops::Add) loops = here.num_nodes;
  if (options.self_loops == SelfLoops::Keep) loops = static_cast<int64_t>(std::count(has_loop.begin(), has_loop.end(), true));
  return (options.symmetrize ? 2 * pairs : pairs) + loops;
}

}  // namespace sgnn::graph_io
