#include "ops/sparse_checks.hpp"

namespace sgnn::ops {

void check_adjacency(const Adjacency& adjacency, const char* op) {
  const Csr& csr = adjacency.csr;
  SGNN_CHECK(csr.indptr.defined() && csr.indices.defined(), op, ": the adjacency has no CSR (prepare it with ",
             "graph_io::prepare_adjacency)");
  check_dtype(csr.indptr, csr_offset_dtype(csr.nnz), op, "adjacency.csr.indptr");
  check_dtype(csr.indices, DType::Int32, op, "adjacency.csr.indices");
  SGNN_CHECK(csr.indptr.numel() == csr.num_rows + 1 && csr.indices.numel() == csr.nnz, op,
             ": adjacency CSR arrays do not match its size (indptr ", shape_str(csr.indptr.shape()), ", indices ",
             shape_str(csr.indices.shape()), " for ", csr.num_rows, " rows and ", csr.nnz, " entries)");
  check_same_device(csr.indptr, csr.indices, op);
}

void check_transpose(const Adjacency& adjacency, const char* op, bool moves_edge_tensors) {
  const Csr& transpose = adjacency.transpose;
  SGNN_CHECK(transpose.indptr.defined() && transpose.indices.defined(), op,
             ": backward needs adjacency.transpose (built by graph_io::prepare_adjacency)");
  SGNN_CHECK(transpose.num_rows == adjacency.num_cols() && transpose.num_cols == adjacency.num_rows() &&
                 transpose.nnz == adjacency.nnz(),
             op, ": adjacency.transpose is ", transpose.num_rows, " x ", transpose.num_cols, " with ", transpose.nnz,
             " entries, not the transpose of a ", adjacency.num_rows(), " x ", adjacency.num_cols(), " matrix with ",
             adjacency.nnz());
  check_dtype(transpose.indptr, csr_offset_dtype(transpose.nnz), op, "adjacency.transpose.indptr");
  SGNN_CHECK(transpose.device() == adjacency.device(), op, ": adjacency.transpose is not on the adjacency's device ",
             adjacency.device().str());
  if (!moves_edge_tensors) return;
  SGNN_CHECK(adjacency.transpose_to_csr.defined(), op,
             ": backward moves per-edge tensors into Aᵀ's order through adjacency.transpose_to_csr, and this "
             "adjacency was prepared without it (PrepareOptions::edge_map off, as gcn_graph_options() sets); "
             "prepare it with edge_map on (gat_graph_options(), or PrepareOptions{} defaults)");
  SGNN_CHECK(adjacency.transpose_to_csr.numel() == adjacency.nnz(), op, ": adjacency.transpose_to_csr has ",
             adjacency.transpose_to_csr.numel(), " entries, not nnz = ", adjacency.nnz());
  check_dtype(adjacency.transpose_to_csr, csr_offset_dtype(adjacency.nnz()), op, "adjacency.transpose_to_csr");
  SGNN_CHECK(adjacency.transpose_to_csr.device() == adjacency.device(), op,
             ": adjacency.transpose_to_csr is not on the adjacency's device ", adjacency.device().str());
}

void check_dense_operand(const Tensor& tensor, const Adjacency& adjacency, int64_t rows, const char* op,
                         const char* argument) {
  check_floating(tensor, op, argument);
  SGNN_CHECK(tensor.device() == adjacency.device(), op, ": argument '", argument, "' is on ", tensor.device().str(),
             " but the adjacency is on ", adjacency.device().str(), "; move it with .to(device)");
  SGNN_CHECK(tensor.dim() >= 1 && tensor.size(0) == rows, op, ": argument '", argument, "' has shape ",
             shape_str(tensor.shape()), ", its first axis must be ", rows, " (the adjacency is ",
             adjacency.num_rows(), " x ", adjacency.num_cols(), ")");
}

int64_t check_edge_tensor(const Tensor& tensor, const Adjacency& adjacency, const char* op, const char* argument) {
  check_dense_operand(tensor, adjacency, adjacency.nnz(), op, argument);
  SGNN_CHECK(tensor.dim() == 1 || (tensor.dim() == 2 && tensor.size(1) >= 1), op, ": argument '", argument,
             "' must be [nnz] or [nnz, heads], got ", shape_str(tensor.shape()));
  return tensor.dim() == 1 ? 1 : tensor.size(1);
}

void check_dense_operands(const Adjacency& adjacency, const Tensor& x, const Tensor& y, const char* op) {
  check_adjacency(adjacency, op);
  check_defined(x, op, "x");
  check_dense_operand(x, adjacency, adjacency.num_rows(), op, "x");
  check_dense_operand(y, adjacency, adjacency.num_cols(), op, "y");
  SGNN_CHECK(y.dtype() == x.dtype(), op, ": x and y must have one dtype, got ", dtype_name(x.dtype()), " and ",
             dtype_name(y.dtype()));
}

int64_t check_edge_sum_operands(const Adjacency& adjacency, const Tensor& x, const Tensor& y, const char* op) {
  check_dense_operands(adjacency, x, y, op);
  SGNN_CHECK(x.dim() == 2 && y.dim() == 2 && x.size(1) == y.size(1) && x.size(1) >= 1, op,
             ": x and y must be [n_rows, H] and [n_cols, H] with the same H, got ", shape_str(x.shape()), " and ",
             shape_str(y.shape()));
  return x.size(1);
}

}  // namespace sgnn::ops
