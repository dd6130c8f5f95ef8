// Test graphs for the HRPB format and its SpMM: typical (random, banded,
// power-law) and adversarial (empty panels, a full dense panel, one column
// hit by every row, a hub row, no edges, rows not a multiple of 16).
#pragma once

#include <string>
#include <vector>

#include "core/adjacency.hpp"

namespace sgnn::testing {

struct NamedGraph {
  std::string name;
  Adjacency adjacency;  // host; values defined (random or GCN-normalised weights)
};

// Host adjacency of the edges source[k] -> target[k] on n nodes, with random
// positive weights from `seed` (rows are targets).
Adjacency weighted_graph(int64_t n, const std::vector<int32_t>& source, const std::vector<int32_t>& target,
                         uint64_t seed);

std::vector<NamedGraph> hrpb_test_graphs();

// Float64 C = A·B for the CSR A with values (undefined: weight 1) and a host
// float32 B [num_cols, F]; row-major [num_rows, F].
std::vector<double> reference_spmm(const Csr& csr, const Tensor& values, const Tensor& b);

// Per-element bound on |C - reference_spmm| of the BF16 HRPB SpMM
// (ops/spmm_hrpb.hpp) for a host float32 B holding bfloat16 values:
// u·|c| + 1.01·(u + k·2^-22)·(|A|·|B|), u = 2^-8, k the row's non-zeros.
std::vector<double> bf16_spmm_bound(const Csr& csr, const Tensor& values, const Tensor& b);

}  // namespace sgnn::testing
