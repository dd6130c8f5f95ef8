// What tests/tools/section_writer.cpp writes, shared with the kill-mid-write
// test (tests/training/kill_mid_write_test.cpp) so both build the same model
// and graph from the same arguments.
#pragma once

#include <cstdint>
#include <memory>
#include <numeric>
#include <vector>

#include "core/adjacency.hpp"
#include "core/generator.hpp"
#include "training/nn/models.hpp"
#include "training/optimizer.hpp"

namespace sgnn::testing {

// A GCN whose first weight is [in_features, 16]: its checkpoint (parameters,
// Adam's two moments) holds about 12 · in_features · 16 bytes.
inline std::shared_ptr<training::Model> victim_model(int64_t in_features, Generator& generator) {
  return training::make_model({.kind = "gcn", .in_features = in_features, .classes = 2}, generator);
}

// A directed ring on `nodes` nodes (i -> i+1), prepared without any sort:
// a cheap adjacency of any size for the cache writer.
inline Adjacency victim_ring(int64_t nodes) {
  std::vector<int32_t> indptr(static_cast<std::size_t>(nodes + 1));
  std::iota(indptr.begin(), indptr.end(), 0);
  std::vector<int32_t> successor(static_cast<std::size_t>(nodes)), predecessor(static_cast<std::size_t>(nodes));
  for (int64_t i = 0; i < nodes; ++i) {
    successor[static_cast<std::size_t>(i)] = static_cast<int32_t>((i + 1) % nodes);
    predecessor[static_cast<std::size_t>(i)] = static_cast<int32_t>((i + nodes - 1) % nodes);
  }
  Adjacency adjacency;
  for (Csr* csr : {&adjacency.csr, &adjacency.transpose}) {
    csr->num_rows = csr->num_cols = csr->nnz = nodes;
    csr->indptr = Tensor::from_vector(indptr, {nodes + 1});
  }
  // Row i of A holds column i+1; row j of Aᵀ holds column j-1, which is entry j-1 of A.
  adjacency.csr.indices = Tensor::from_vector(successor, {nodes});
  adjacency.transpose.indices = Tensor::from_vector(predecessor, {nodes});
  adjacency.transpose_to_csr = Tensor::from_vector(predecessor, {nodes});
  return adjacency;
}

}  // namespace sgnn::testing
