#include "core/sparse_rows.hpp"

#include <algorithm>
#include <vector>

namespace sgnn {

std::optional<bool> SparsePattern::sparse_product_faster(int64_t width) const {
  const std::lock_guard<std::mutex> lock(mutex_);
  const auto it = faster_by_width_.find(width);
  if (it == faster_by_width_.end()) return std::nullopt;
  return it->second;
}

void SparsePattern::record_sparse_product_faster(int64_t width, bool faster) const {
  const std::lock_guard<std::mutex> lock(mutex_);
  faster_by_width_[width] = faster;
}

}  // namespace sgnn

namespace sgnn {

namespace {

// The fraction of non-zeros in 64 evenly spaced rows (all rows when fewer).
double sampled_fraction(const Tensor& x) {
  const int64_t rows = x.size(0), cols = x.size(1);
  const int64_t samples = std::min<int64_t>(rows, 64);
  int64_t nonzero = 0;
  for (int64_t s = 0; s < samples; ++s) {
    const int64_t row = s * rows / samples;
    const Tensor host = x.narrow_rows(row, row + 1).to(Device::cpu());
    const float* values = host.data<float>();
    for (int64_t c = 0; c < cols; ++c) nonzero += values[c] != 0.0f;
  }
  return static_cast<double>(nonzero) / static_cast<double>(samples * cols);
}

}  // namespace

std::shared_ptr<const SparseRows> make_sparse_rows(const Tensor& x, double max_fraction) {
  check_dtype(x, DType::Float32, "make_sparse_rows", "x");
  check_dim(x, 2, "make_sparse_rows", "x");
  const int64_t rows = x.size(0), cols = x.size(1);
  if (x.numel() == 0 || sampled_fraction(x) > max_fraction) return nullptr;
  const Tensor host = x.device().is_cpu() ? x : x.to(Device::cpu());
  const float* dense = host.data<float>();
  std::vector<int64_t> row_nnz(static_cast<std::size_t>(rows));
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < rows; ++r) {
    int64_t count = 0;
    for (int64_t c = 0; c < cols; ++c) count += dense[r * cols + c] != 0.0f;
    row_nnz[static_cast<std::size_t>(r)] = count;
  }
  std::vector<int64_t> offsets(static_cast<std::size_t>(rows) + 1, 0);
  for (int64_t r = 0; r < rows; ++r) offsets[static_cast<std::size_t>(r) + 1] = offsets[static_cast<std::size_t>(r)] + row_nnz[static_cast<std::size_t>(r)];
  const int64_t nnz = offsets.back();
  if (nnz >= (int64_t{1} << 31) || static_cast<double>(nnz) > max_fraction * static_cast<double>(x.numel())) {
    return nullptr;
  }
  // A: entries row by row, columns ascending; the element index of each; its values.
  std::vector<int32_t> indptr(offsets.begin(), offsets.end());
  std::vector<int32_t> indices(static_cast<std::size_t>(nnz));
  std::vector<int64_t> positions(static_cast<std::size_t>(nnz));
  std::vector<float> values(static_cast<std::size_t>(nnz));
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < rows; ++r) {
    auto k = static_cast<std::size_t>(offsets[static_cast<std::size_t>(r)]);
    for (int64_t c = 0; c < cols; ++c) {
      const float value = dense[r * cols + c];
      if (value == 0.0f) continue;
      indices[k] = static_cast<int32_t>(c);
      positions[k] = r * cols + c;
      values[k] = value;
      ++k;
    }
  }
  // Aᵀ by a stable counting sort by column (rows ascend within a column) and its edge map.
  std::vector<int32_t> transpose_indptr(static_cast<std::size_t>(cols) + 1, 0);
  for (const int32_t c : indices) ++transpose_indptr[static_cast<std::size_t>(c) + 1];
  for (int64_t c = 0; c < cols; ++c) transpose_indptr[static_cast<std::size_t>(c) + 1] += transpose_indptr[static_cast<std::size_t>(c)];
  std::vector<int32_t> transpose_indices(static_cast<std::size_t>(nnz)), transpose_to_csr(static_cast<std::size_t>(nnz));
  std::vector<int32_t> cursor(transpose_indptr.begin(), transpose_indptr.end() - 1);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t k = offsets[static_cast<std::size_t>(r)]; k < offsets[static_cast<std::size_t>(r) + 1]; ++k) {
      const auto slot = static_cast<std::size_t>(cursor[static_cast<std::size_t>(indices[static_cast<std::size_t>(k)])]++);
      transpose_indices[slot] = static_cast<int32_t>(r);
      transpose_to_csr[slot] = static_cast<int32_t>(k);
    }
  }
  const Device device = x.device();
  Adjacency matrix;
  matrix.csr.num_rows = rows;
  matrix.csr.num_cols = cols;
  matrix.csr.nnz = nnz;
  matrix.csr.indptr = Tensor::from_vector(indptr, {rows + 1}, device);
  matrix.csr.indices = Tensor::from_vector(indices, {nnz}, device);
  matrix.transpose.num_rows = cols;
  matrix.transpose.num_cols = rows;
  matrix.transpose.nnz = nnz;
  matrix.transpose.indptr = Tensor::from_vector(transpose_indptr, {cols + 1}, device);
  matrix.transpose.indices = Tensor::from_vector(transpose_indices, {nnz}, device);
  matrix.transpose_to_csr = Tensor::from_vector(transpose_to_csr, {nnz}, device);
  auto pattern = std::make_shared<const SparsePattern>(std::move(matrix), Tensor::from_vector(positions, {nnz}, device));
  return std::make_shared<const SparseRows>(SparseRows{std::move(pattern), Tensor::from_vector(values, {nnz}, device)});
}

}  // namespace sgnn
