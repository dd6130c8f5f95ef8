#include "graph_io/csr_edges.hpp"

#include <cstdint>

#include "core/error.hpp"

namespace sgnn::graph_io {

namespace {

template <typename Offset>
void expand_rows(const Offset* indptr, int64_t rows, int32_t* targets) {
#pragma omp parallel for schedule(dynamic, 4096)
  for (int64_t v = 0; v < rows; ++v) {
    for (Offset k = indptr[v]; k < indptr[v + 1]; ++k) targets[k] = static_cast<int32_t>(v);
  }
}

}  // namespace

EdgeList edges_of_csr(const Csr& csr) {
  SGNN_CHECK(csr.indptr.defined() && csr.indices.defined(), "edges_of_csr: the CSR has no indptr or indices");
  SGNN_CHECK(csr.device().is_cpu(), "edges_of_csr: the CSR must be on the host, got ", csr.device().str());
  EdgeList edges;
  edges.num_nodes = csr.num_rows;
  edges.source = csr.indices;  // row v's entries are its in-neighbours: the edges' sources
  edges.target = Tensor::empty({csr.nnz}, DType::Int32);
  int32_t* targets = edges.target.data<int32_t>();
  if (csr.indptr.dtype() == DType::Int64) {
    expand_rows(csr.indptr.data<int64_t>(), csr.num_rows, targets);
  } else {
    expand_rows(csr.indptr.data<int32_t>(), csr.num_rows, targets);
  }
  return edges;
}

}  // namespace sgnn::graph_io
