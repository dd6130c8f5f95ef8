// SamplingGraph: the CSR a sampler reads, where its kernels can reach it.
//
// Row v lists the in-neighbours of node v (core/adjacency.hpp's convention),
// so sampling row v picks the nodes whose messages reach v. indptr int32 or
// int64 (nnz >= 2^31: papers100M-scale), indices int32, num_rows ==
// num_cols (one node set).
//
// Residence:
//   Device  the arrays on the sampling device (the CPU, or a GPU: copied
//           there once if they are not)
//   Host    the arrays stay in host memory and a GPU's sampling kernels read
//           them over unified addressing (sampling/host_access.hpp): for
//           graphs whose CSR does not fit beside the training state. On the
//           CPU the same as Device.
// choose_residence() decides from a device-memory budget, which a test sets
// low to force the host path.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/csr.hpp"

namespace sgnn::sampling {

class HostAccess;

enum class Residence : unsigned char { Device, Host };
const char* residence_name(Residence residence);  // "device", "host"

// What the backends read: device pointers, or host pointers a GPU may read.
struct CsrView {
  const void* indptr = nullptr;
  bool wide_indptr = false;  // int64 indptr
  const int32_t* indices = nullptr;
  int64_t num_nodes = 0;
  int64_t nnz = 0;
};

// Bytes of the CSR's indptr and indices.
int64_t csr_bytes(const Csr& csr);
// Device when the CSR fits in `budget_bytes` (< 0: no limit), else Host.
Residence choose_residence(const Csr& csr, int64_t budget_bytes);

class SamplingGraph {
 public:
  // `csr` on any device; InvalidArgument when it is not square or its dtypes
  // are not a CSR's.
  SamplingGraph(const Csr& csr, Device device, Residence residence);
  ~SamplingGraph();
  SamplingGraph(const SamplingGraph&) = delete;
  SamplingGraph& operator=(const SamplingGraph&) = delete;

  Device device() const { return device_; }
  Residence residence() const { return residence_; }
  int64_t num_nodes() const { return csr_.num_rows; }
  int64_t nnz() const { return csr_.nnz; }
  // The arrays as stored (host tensors when the residence is Host on a GPU).
  const Csr& csr() const { return csr_; }
  CsrView view() const { return view_; }
  // In-degree of every node, on the host (for the feature cache's choice).
  std::vector<int64_t> degrees() const;

 private:
  Csr csr_;
  Device device_;
  Residence residence_;
  std::unique_ptr<HostAccess> indptr_access_, indices_access_;
  CsrView view_;
};

}  // namespace sgnn::sampling
