#include "distributed/local_adjacency.hpp"

#include <algorithm>
#include <numeric>

namespace sgnn::distributed {

namespace {

std::vector<int64_t> offsets_of(const Tensor& indptr) {
  if (indptr.dtype() == DType::Int64) return indptr.to_vector<int64_t>();
  const std::vector<int32_t> narrow = indptr.to_vector<int32_t>();
  return {narrow.begin(), narrow.end()};
}

template <typename Offset>
Tensor offsets_tensor(const std::vector<int64_t>& offsets) {
  const std::vector<Offset> narrow(offsets.begin(), offsets.end());
  return Tensor::from_vector(narrow, {static_cast<int64_t>(narrow.size())});
}

// Rows by decreasing length, ties by row id (the Csr::row_order contract).
Tensor row_order_of(const std::vector<int64_t>& indptr) {
  const std::size_t rows = indptr.size() - 1;
  std::vector<int32_t> order(rows);
  std::iota(order.begin(), order.end(), 0);
  const auto length = [&](int32_t row) {
    return indptr[static_cast<std::size_t>(row) + 1] - indptr[static_cast<std::size_t>(row)];
  };
  std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) { return length(a) > length(b); });
  return Tensor::from_vector(order, {static_cast<int64_t>(rows)});
}

Csr make_csr(int64_t rows, int64_t cols, const std::vector<int64_t>& indptr, const std::vector<int32_t>& indices) {
  Csr csr;
  csr.num_rows = rows;
  csr.num_cols = cols;
  csr.nnz = static_cast<int64_t>(indices.size());
  csr.indptr = csr_offset_dtype(csr.nnz) == DType::Int32 ? offsets_tensor<int32_t>(indptr)
                                                          : offsets_tensor<int64_t>(indptr);
  csr.indices = Tensor::from_vector(indices, {csr.nnz});
  csr.row_order = row_order_of(indptr);
  return csr;
}

}  // namespace

HostCsr host_csr(const Csr& csr, const Tensor& values) {
  HostCsr host;
  host.num_rows = csr.num_rows;
  host.num_cols = csr.num_cols;
  host.indptr = offsets_of(csr.indptr);
  host.indices = csr.indices.to_vector<int32_t>();
  if (values.defined()) {
    SGNN_CHECK(values.dtype() == DType::Float32 && values.shape() == Shape{csr.nnz},
               "host_csr: values must be float32 [", csr.nnz, "], got ", shape_str(values.shape()));
    host.values = values.to_vector<float>();
  }
  return host;
}

Adjacency make_adjacency(const HostCsr& csr) {
  const auto nnz = static_cast<int64_t>(csr.indices.size());
  SGNN_CHECK(csr.num_rows >= 0 && csr.num_cols >= 0 && csr.indptr.size() == static_cast<std::size_t>(csr.num_rows) + 1 &&
                 csr.indptr.front() == 0 && csr.indptr.back() == nnz,
             "make_adjacency: indptr of ", csr.indptr.size(), " entries (ending at ",
             csr.indptr.empty() ? -1 : csr.indptr.back(), ") for ", csr.num_rows, " rows and ", nnz, " entries");
  SGNN_CHECK(csr.values.empty() || static_cast<int64_t>(csr.values.size()) == nnz, "make_adjacency: ",
             csr.values.size(), " values for ", nnz, " entries");
  const auto cols = static_cast<std::size_t>(csr.num_cols);

  // Counting sort by column; scanning rows in order keeps each transpose row sorted.
  std::vector<int64_t> transpose_indptr(cols + 1, 0);
  for (const int32_t column : csr.indices) {
    SGNN_CHECK(column >= 0 && static_cast<std::size_t>(column) < cols, "make_adjacency: column ", column,
               " outside [0, ", csr.num_cols, ")");
    ++transpose_indptr[static_cast<std::size_t>(column) + 1];
  }
  std::partial_sum(transpose_indptr.begin(), transpose_indptr.end(), transpose_indptr.begin());
  std::vector<int64_t> cursor(transpose_indptr.begin(), transpose_indptr.end() - 1);
  std::vector<int32_t> transpose_indices(static_cast<std::size_t>(nnz));
  std::vector<int64_t> transpose_to_csr(static_cast<std::size_t>(nnz));
  for (int64_t row = 0; row < csr.num_rows; ++row) {
    for (int64_t k = csr.indptr[static_cast<std::size_t>(row)]; k < csr.indptr[static_cast<std::size_t>(row) + 1]; ++k) {
      const auto slot = static_cast<std::size_t>(cursor[static_cast<std::size_t>(csr.indices[static_cast<std::size_t>(k)])]++);
      transpose_indices[slot] = static_cast<int32_t>(row);
      transpose_to_csr[slot] = k;
    }
  }

  Adjacency adjacency;
  adjacency.csr = make_csr(csr.num_rows, csr.num_cols, csr.indptr, csr.indices);
  adjacency.transpose = make_csr(csr.num_cols, csr.num_rows, transpose_indptr, transpose_indices);
  adjacency.transpose_to_csr = csr_offset_dtype(nnz) == DType::Int32 ? offsets_tensor<int32_t>(transpose_to_csr)
                                                                      : offsets_tensor<int64_t>(transpose_to_csr);
  if (!csr.values.empty()) {
    std::vector<float> transpose_values(static_cast<std::size_t>(nnz));
    for (std::size_t slot = 0; slot < transpose_values.size(); ++slot) {
      transpose_values[slot] = csr.values[static_cast<std::size_t>(transpose_to_csr[slot])];
    }
    adjacency.values = Tensor::from_vector(csr.values, {nnz});
    adjacency.transpose_values = Tensor::from_vector(transpose_values, {nnz});
  }
  return adjacency;
}

}  // namespace sgnn::distributed
