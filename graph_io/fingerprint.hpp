// 64-bit fingerprints of inputs (edges, options) that key cache files.
// Not cryptographic; deterministic across runs, machines and thread counts.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/tensor.hpp"

namespace sgnn::graph_io {

// Hash of `bytes` bytes at `data`, mixed with `seed`; computed in parallel
// fixed-size blocks, so the value does not depend on the thread count.
uint64_t hash_bytes(const void* data, std::size_t bytes, uint64_t seed = 0);

// Folds `value` into `state` (order-dependent).
constexpr uint64_t hash_combine(uint64_t state, uint64_t value) {
  uint64_t x = state ^ (value + 0x9e3779b97f4a7c15ull + (state << 6) + (state >> 2));
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  x ^= x >> 33;
  return x;
}

// Hash of a tensor's dtype, shape and elements (host copy if on a device);
// an undefined tensor hashes to a fixed value of its own.
uint64_t hash_tensor(const Tensor& tensor, uint64_t seed = 0);

}  // namespace sgnn::graph_io
