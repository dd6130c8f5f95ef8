#include "sampling/sampling_graph.hpp"

#include "sampling/host_access.hpp"

namespace sgnn::sampling {

const char* residence_name(Residence residence) { return residence == Residence::Device ? "device" : "host"; }

int64_t csr_bytes(const Csr& csr) {
  return static_cast<int64_t>(csr.indptr.nbytes() + csr.indices.nbytes());
}

Residence choose_residence(const Csr& csr, int64_t budget_bytes) {
  return budget_bytes < 0 || csr_bytes(csr) <= budget_bytes ? Residence::Device : Residence::Host;
}

SamplingGraph::SamplingGraph(const Csr& csr, Device device, Residence residence)
    : device_(device), residence_(device.is_cpu() ? Residence::Device : residence) {
  check_defined(csr.indptr, "SamplingGraph", "csr.indptr");
  check_defined(csr.indices, "SamplingGraph", "csr.indices");
  SGNN_CHECK(csr.num_rows == csr.num_cols, "SamplingGraph: the CSR is ", csr.num_rows, " x ", csr.num_cols,
             "; sampling needs one node set (a square adjacency)");
  SGNN_CHECK(csr.indptr.dtype() == DType::Int64 || (csr.indptr.dtype() == DType::Int32 && csr.nnz < (int64_t{1} << 31)),
             "SamplingGraph: csr.indptr must be int64, or int32 below 2^31 entries; got ", dtype_name(csr.indptr.dtype()),
             " for ", csr.nnz, " entries");
  check_dtype(csr.indices, DType::Int32, "SamplingGraph", "csr.indices");
  SGNN_CHECK(csr.indptr.numel() == csr.num_rows + 1 && csr.indices.numel() == csr.nnz,
             "SamplingGraph: CSR arrays of ", csr.indptr.numel(), " and ", csr.indices.numel(), " entries for ",
             csr.num_rows, " rows and ", csr.nnz, " entries");
  require_available(device);
  csr_.num_rows = csr.num_rows;
  csr_.num_cols = csr.num_cols;
  csr_.nnz = csr.nnz;
  const Device home = residence_ == Residence::Device ? device : Device::cpu();
  csr_.indptr = csr.indptr.to(home);
  csr_.indices = csr.indices.to(home);
  view_.wide_indptr = csr_.indptr.dtype() == DType::Int64;
  view_.num_nodes = csr_.num_rows;
  view_.nnz = csr_.nnz;
  if (residence_ == Residence::Host) {
    csr_.indptr = make_host_readable(csr_.indptr, device, indptr_access_);
    csr_.indices = make_host_readable(csr_.indices, device, indices_access_);
    view_.indptr = indptr_access_->device_pointer();
    view_.indices = static_cast<const int32_t*>(indices_access_->device_pointer());
  } else {
    view_.indptr = csr_.indptr.raw_data();
    view_.indices = csr_.indices.data<int32_t>();
  }
}

SamplingGraph::~SamplingGraph() = default;

std::vector<int64_t> SamplingGraph::degrees() const {
  const Tensor offsets = csr_.indptr.to(Device::cpu());  // the offsets only, not the indices
  std::vector<int64_t> out(static_cast<std::size_t>(csr_.num_rows));
  const auto rows = static_cast<int64_t>(out.size());
  if (offsets.dtype() == DType::Int64) {
    const int64_t* indptr = offsets.data<int64_t>();
#pragma omp parallel for schedule(static)
    for (int64_t v = 0; v < rows; ++v) out[static_cast<std::size_t>(v)] = indptr[v + 1] - indptr[v];
  } else {
    const int32_t* indptr = offsets.data<int32_t>();
#pragma omp parallel for schedule(static)
    for (int64_t v = 0; v < rows; ++v) out[static_cast<std::size_t>(v)] = indptr[v + 1] - indptr[v];
  }
  return out;
}

}  // namespace sgnn::sampling
