#include "core/csr.hpp"

#include <algorithm>

#include "core/adjacency.hpp"

namespace sgnn {

namespace {

Tensor to_if_defined(const Tensor& tensor, Device device) {
  return tensor.defined() ? tensor.to(device) : Tensor();
}

// Reads an int32 or int64 offset tensor as int64 on the host.
std::vector<int64_t> host_offsets(const Tensor& tensor) {
  if (tensor.dtype() == DType::Int64) return tensor.to_vector<int64_t>();
  const std::vector<int32_t> narrow = tensor.to_vector<int32_t>();
  return {narrow.begin(), narrow.end()};
}

}  // namespace

Csr Csr::to(Device device) const {
  Csr moved = *this;
  moved.indptr = to_if_defined(indptr, device);
  moved.indices = to_if_defined(indices, device);
  moved.row_order = to_if_defined(row_order, device);
  return moved;
}

std::vector<int64_t> Csr::row_lengths() const {
  const std::vector<int64_t> offsets = host_offsets(indptr);
  std::vector<int64_t> lengths(static_cast<std::size_t>(num_rows));
  for (std::size_t r = 0; r < lengths.size(); ++r) lengths[r] = offsets[r + 1] - offsets[r];
  return lengths;
}

void Csr::validate() const {
  SGNN_CHECK(num_rows >= 0 && num_cols >= 0 && nnz >= 0, "CSR with negative size: ", num_rows, " x ",
             num_cols, ", nnz ", nnz);
  SGNN_CHECK(num_cols <= (int64_t{1} << 31), "CSR with ", num_cols, " columns: column ids are int32");
  check_dtype(indptr, csr_offset_dtype(nnz), "Csr", "indptr");
  check_dtype(indices, DType::Int32, "Csr", "indices");
  SGNN_CHECK(indptr.shape() == Shape{num_rows + 1}, "CSR indptr has shape ", shape_str(indptr.shape()),
             ", expected [", num_rows + 1, "]");
  SGNN_CHECK(indices.shape() == Shape{nnz}, "CSR indices has shape ", shape_str(indices.shape()),
             ", expected [", nnz, "]");
  SGNN_CHECK(indices.device() == indptr.device(), "CSR indptr and indices on different devices");
  const std::vector<int64_t> offsets = host_offsets(indptr);
  const std::vector<int32_t> columns = indices.to_vector<int32_t>();
  SGNN_CHECK(offsets.front() == 0 && offsets.back() == nnz, "CSR indptr must start at 0 and end at nnz=", nnz,
             ", got ", offsets.front(), " and ", offsets.back());
  for (int64_t row = 0; row < num_rows; ++row) {
    const int64_t begin = offsets[static_cast<std::size_t>(row)];
    const int64_t end = offsets[static_cast<std::size_t>(row + 1)];
    SGNN_CHECK(begin <= end, "CSR indptr decreases at row ", row);
    for (int64_t k = begin; k < end; ++k) {
      const int32_t column = columns[static_cast<std::size_t>(k)];
      SGNN_CHECK(column >= 0 && column < num_cols, "CSR row ", row, " has column ", column, " outside [0, ",
                 num_cols, ")");
      SGNN_CHECK(k == begin || columns[static_cast<std::size_t>(k - 1)] < column, "CSR row ", row,
                 " is not sorted or repeats column ", column);
    }
  }
  if (row_order.defined()) {
    check_dtype(row_order, DType::Int32, "Csr", "row_order");
    SGNN_CHECK(row_order.shape() == Shape{num_rows}, "CSR row_order has shape ", shape_str(row_order.shape()),
               ", expected [", num_rows, "]");
    const std::vector<int32_t> order = row_order.to_vector<int32_t>();
    std::vector<char> seen(static_cast<std::size_t>(num_rows), 0);
    for (std::size_t i = 0; i < order.size(); ++i) {
      const int32_t row = order[i];
      SGNN_CHECK(row >= 0 && row < num_rows && !seen[static_cast<std::size_t>(row)],
                 "CSR row_order is not a permutation of the rows (entry ", i, " = ", row, ")");
      seen[static_cast<std::size_t>(row)] = 1;
      if (i > 0) {
        const int32_t previous = order[i - 1];
        const int64_t previous_length = offsets[static_cast<std::size_t>(previous) + 1] - offsets[static_cast<std::size_t>(previous)];
        const int64_t length = offsets[static_cast<std::size_t>(row) + 1] - offsets[static_cast<std::size_t>(row)];
        SGNN_CHECK(previous_length > length || (previous_length == length && previous < row),
                   "CSR row_order is not by decreasing row length, then row id, at entry ", i);
      }
    }
  }
}

Adjacency Adjacency::to(Device device) const {
  Adjacency moved = *this;
  moved.csr = csr.to(device);
  // A symmetric graph's transpose (and symmetric values) share A's arrays: they stay shared.
  const bool shared_pattern =
      transpose.indices.shares_storage_with(csr.indices) && transpose.indptr.shares_storage_with(csr.indptr);
  moved.transpose = shared_pattern ? moved.csr : transpose.to(device);
  moved.transpose_to_csr = to_if_defined(transpose_to_csr, device);
  moved.values = to_if_defined(values, device);
  moved.transpose_values = values.defined() && transpose_values.shares_storage_with(values)
                               ? moved.values
                               : to_if_defined(transpose_values, device);
  moved.symmetric_scale = to_if_defined(symmetric_scale, device);
  if (hrpb) moved.hrpb = std::make_shared<const HrpbAdjacency>(hrpb->to(device));
  return moved;
}

SpmmFormat parse_spmm_format(std::string_view text) {
  if (text == "csr") return SpmmFormat::Csr;
  if (text == "hrpb") return SpmmFormat::Hrpb;
  if (text == "auto") return SpmmFormat::Auto;
  throw InvalidArgument(detail::concat("unknown SpMM format '", text, "': expected csr, hrpb or auto"));
}

const char* spmm_format_name(SpmmFormat format) {
  switch (format) {
    case SpmmFormat::Csr: return "csr";
    case SpmmFormat::Hrpb: return "hrpb";
    case SpmmFormat::Auto: return "auto";
  }
  return "csr";
}

const double* Adjacency::scale_data() const {
  return symmetric_scale.defined() ? reinterpret_cast<const double*>(symmetric_scale.data<int64_t>()) : nullptr;
}

void Adjacency::validate() const {
  csr.validate();
  transpose.validate();
  SGNN_CHECK(transpose.num_rows == csr.num_cols && transpose.num_cols == csr.num_rows && transpose.nnz == csr.nnz,
             "Adjacency transpose is ", transpose.num_rows, " x ", transpose.num_cols, " with nnz ", transpose.nnz,
             " for a ", csr.num_rows, " x ", csr.num_cols, " matrix with nnz ", csr.nnz);
  const std::vector<int64_t> rows = host_offsets(csr.indptr);
  const std::vector<int32_t> columns = csr.indices.to_vector<int32_t>();
  const std::vector<int64_t> transpose_rows = host_offsets(transpose.indptr);
  std::vector<int64_t> map;
  if (transpose_to_csr.defined()) {
    check_dtype(transpose_to_csr, csr_offset_dtype(csr.nnz), "Adjacency", "transpose_to_csr");
    SGNN_CHECK(transpose_to_csr.shape() == Shape{csr.nnz}, "Adjacency transpose_to_csr has shape ",
               shape_str(transpose_to_csr.shape()), ", expected [", csr.nnz, "]");
    map = host_offsets(transpose_to_csr);
  } else {
    // No stored map (PrepareOptions::edge_map off): the one a transpose with
    // rows in increasing order has, by a stable counting sort of A's entries
    // by column; the checks below then hold iff the transpose is right.
    map.assign(static_cast<std::size_t>(csr.nnz), -1);
    std::vector<int64_t> cursor(transpose_rows.begin(), transpose_rows.end() - 1);
    for (int64_t k = 0; k < csr.nnz; ++k) {
      const auto c = static_cast<std::size_t>(columns[static_cast<std::size_t>(k)]);
      SGNN_CHECK(c < cursor.size() && cursor[c] < transpose_rows[c + 1], "Adjacency transpose has no room for entry ",
                 k, " of A in its row ", c);
      map[static_cast<std::size_t>(cursor[c]++)] = k;
    }
  }
  const std::vector<int32_t> transpose_columns = transpose.indices.to_vector<int32_t>();
  // Row of each entry of A, to check that entry k of Aᵀ at (c, r) is entry map[k] of A at (r, c).
  std::vector<int64_t> row_of(static_cast<std::size_t>(csr.nnz));
  for (int64_t r = 0; r < csr.num_rows; ++r) {
    for (int64_t k = rows[static_cast<std::size_t>(r)]; k < rows[static_cast<std::size_t>(r + 1)]; ++k) {
      row_of[static_cast<std::size_t>(k)] = r;
    }
  }
  std::vector<char> used(static_cast<std::size_t>(csr.nnz), 0);
  for (int64_t c = 0; c < transpose.num_rows; ++c) {
    for (int64_t k = transpose_rows[static_cast<std::size_t>(c)]; k < transpose_rows[static_cast<std::size_t>(c + 1)]; ++k) {
      const int64_t e = map[static_cast<std::size_t>(k)];
      SGNN_CHECK(e >= 0 && e < csr.nnz && !used[static_cast<std::size_t>(e)], "Adjacency transpose_to_csr is not a permutation (entry ", k, ")");
      used[static_cast<std::size_t>(e)] = 1;
      SGNN_CHECK(columns[static_cast<std::size_t>(e)] == c && row_of[static_cast<std::size_t>(e)] == transpose_columns[static_cast<std::size_t>(k)],
                 "Adjacency transpose entry ", k, " does not mirror entry ", e, " of A");
    }
  }
  SGNN_CHECK(values.defined() == transpose_values.defined(), "Adjacency: values and transpose_values must be both set or both empty");
  if (symmetric_scale.defined()) {
    SGNN_CHECK(!values.defined(), "Adjacency: symmetric_scale stands for the values; both are set");
    check_dtype(symmetric_scale, DType::Int64, "Adjacency", "symmetric_scale");
    SGNN_CHECK(csr.num_rows == csr.num_cols && symmetric_scale.shape() == Shape{csr.num_rows},
               "Adjacency symmetric_scale has shape ", shape_str(symmetric_scale.shape()), ", expected [",
               csr.num_rows, "] of a square matrix");
  }
  if (values.defined()) {
    check_dtype(values, DType::Float32, "Adjacency", "values");
    SGNN_CHECK(values.shape() == Shape{csr.nnz} && transpose_values.shape() == Shape{csr.nnz},
               "Adjacency values must have shape [nnz] = [", csr.nnz, "]");
    const std::vector<float> forward = values.to_vector<float>();
    const std::vector<float> backward = transpose_values.to_vector<float>();
    for (std::size_t k = 0; k < backward.size(); ++k) {
      SGNN_CHECK(backward[k] == forward[static_cast<std::size_t>(map[k])], "Adjacency transpose_values[", k,
                 "] differs from the value of its entry of A");
    }
  }
}

}  // namespace sgnn
