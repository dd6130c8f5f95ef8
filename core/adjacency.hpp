// Adjacency: a graph's sparse matrix A prepared once for the ops, kept on its
// device and reused by every layer and epoch.
//
// Convention: row i of A lists the in-neighbours of node i, so aggregation is
// out = A · X (PyG's A[dst, src]).
//
//   csr               A
//   transpose         Aᵀ (the CSC of A), used by backward passes; for a
//                     symmetric pattern the same arrays as csr (shared, not
//                     copied), and transpose_values then shares values when
//                     they are symmetric too (graph_io builds it so)
//   transpose_to_csr  [nnz] int32 (int64 when nnz ≥ 2^31): entry k of Aᵀ is entry
//                     transpose_to_csr[k] of A; gathers per-edge tensors from
//                     A's edge order into Aᵀ's without atomics
//   values            optional [nnz] float32 weights in A's edge order (e.g. the
//                     GCN normalisation D^-1/2 (A+I) D^-1/2)
//   transpose_values  the same weights in Aᵀ's order (defined iff values is)
//   symmetric_scale   optional, instead of values: [num_rows] float64 stored in
//                     an int64 tensor's bytes (Tensor has no float64 dtype),
//                     the s = D^-1/2 of GCN's normalisation; entry (r, c) of A
//                     and of Aᵀ then weighs float(s[r] · s[c]), bitwise the
//                     value graph_io would store, computed where it is used
//                     (graph_io::PrepareOptions::symmetric_scale): nnz floats
//                     fewer on the device
//   hrpb              optional: the HRPB layout of (csr, values) and of its
//                     transpose (graph_io::attach_hrpb), for the tensor-core SpMM
//   spmm_format       which SpMM ops::spmm(adjacency, b) runs: Csr (FP32
//                     scalar kernel), Hrpb (TF32 tensor cores; needs hrpb), or
//                     Auto (HRPB where its brick density makes it pay, see
//                     ops/spmm_format.hpp)
#pragma once

#include <memory>
#include <string_view>

#include "core/csr.hpp"
#include "core/hrpb.hpp"

namespace sgnn {

enum class SpmmFormat : unsigned char { Csr, Hrpb, Auto };
// "csr", "hrpb", "auto" (and back); parse throws InvalidArgument on other text.
SpmmFormat parse_spmm_format(std::string_view text);
const char* spmm_format_name(SpmmFormat format);

struct Adjacency {
  Csr csr;
  Csr transpose;
  Tensor transpose_to_csr;
  Tensor values;
  Tensor transpose_values;
  Tensor symmetric_scale;
  std::shared_ptr<const HrpbAdjacency> hrpb;
  SpmmFormat spmm_format = SpmmFormat::Csr;

  int64_t num_rows() const { return csr.num_rows; }
  int64_t num_cols() const { return csr.num_cols; }
  int64_t nnz() const { return csr.nnz; }
  Device device() const { return csr.device(); }
  bool has_values() const { return values.defined(); }
  // Weights of some kind: stored values or the symmetric scale.
  bool weighted() const { return values.defined() || symmetric_scale.defined(); }
  // symmetric_scale as a pointer (nullptr when undefined); its device's memory.
  const double* scale_data() const;
  Adjacency to(Device device) const;
  // Checks both patterns, that they are transposes of each other through
  // transpose_to_csr, and the value shapes. Host-side; for tests and loaders.
  void validate() const;
};

}  // namespace sgnn
