#include "graph_io/adjacency_variants.hpp"

#include <vector>

#include "graph_io/adjacency_from_pattern.hpp"

namespace sgnn::graph_io {

namespace {

const char* loops_name(SelfLoops loops) {
  return loops == SelfLoops::Add ? "one self loop per node" : loops == SelfLoops::Remove ? "no self loops" : "as given";
}

// The pattern with exactly one self loop per row (Add) or none (Remove),
// rows still sorted; built on the host once, moved to the pattern's device.
template <typename Offset>
Csr with_self_loops(const Csr& pattern, SelfLoops loops) {
  const Csr host = pattern.to(Device::cpu());
  const Offset* indptr = host.indptr.data<Offset>();
  const int32_t* indices = host.indices.data<int32_t>();
  std::vector<int64_t> offsets{0};
  std::vector<int32_t> columns;
  columns.reserve(static_cast<std::size_t>(host.nnz + (loops == SelfLoops::Add ? host.num_rows : 0)));
  for (int64_t row = 0; row < host.num_rows; ++row) {
    bool placed = false;
    for (Offset k = indptr[row]; k < indptr[row + 1]; ++k) {
      const int32_t column = indices[k];
      if (column == row) continue;  // re-placed below for Add
      if (loops == SelfLoops::Add && !placed && column > row) {
        columns.push_back(static_cast<int32_t>(row));
        placed = true;
      }
      columns.push_back(column);
    }
    if (loops == SelfLoops::Add && !placed) columns.push_back(static_cast<int32_t>(row));
    offsets.push_back(static_cast<int64_t>(columns.size()));
  }
  Csr result;
  result.num_rows = host.num_rows;
  result.num_cols = host.num_cols;
  result.nnz = static_cast<int64_t>(columns.size());
  if (csr_offset_dtype(result.nnz) == DType::Int32) {
    const std::vector<int32_t> narrow(offsets.begin(), offsets.end());
    result.indptr = Tensor::from_vector(narrow, {result.num_rows + 1});
  } else {
    result.indptr = Tensor::from_vector(offsets, {result.num_rows + 1});
  }
  result.indices = Tensor::from_vector(columns, {result.nnz});
  return result;
}

}  // namespace

AdjacencyVariants::AdjacencyVariants(Adjacency prepared, const PrepareOptions& options)
    : prepared_(std::move(prepared)), options_(options) {
  SGNN_CHECK(prepared_.num_rows() == prepared_.num_cols(), "AdjacencyVariants: the prepared adjacency must be square, got ",
             prepared_.num_rows(), " x ", prepared_.num_cols());
}

std::size_t AdjacencyVariants::derived_count() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return derived_.size();
}

bool AdjacencyVariants::is_prepared(const AdjacencyForm& form) const {
  const SelfLoops loops = form.self_loops == SelfLoops::Keep ? options_.self_loops : form.self_loops;
  return loops == options_.self_loops && form.normalization == options_.normalization;
}

const Adjacency& AdjacencyVariants::get(const AdjacencyForm& form) {
  if (is_prepared(form)) return prepared_;
  const SelfLoops loops = form.self_loops == SelfLoops::Keep ? options_.self_loops : form.self_loops;
  const std::lock_guard<std::mutex> lock(mutex_);
  const std::pair<int, int> key{static_cast<int>(loops), static_cast<int>(form.normalization)};
  if (const auto found = derived_.find(key); found != derived_.end()) return *found->second;
  // Weights survive only where the prepared values are the raw edge weights
  // and the pattern is unchanged.
  const bool weighted = prepared_.values.defined();
  SGNN_CHECK(!weighted || (options_.normalization == Normalization::None && loops == options_.self_loops),
             "AdjacencyVariants: the graph was prepared with normalised edge weights or asked for other self loops (",
             loops_name(loops), "); its raw weights are not kept, so prepare it with normalization none and the "
             "self loops the layers ask for");
  Csr pattern = prepared_.csr;
  if (loops != options_.self_loops) {
    pattern = prepared_.csr.indptr.dtype() == DType::Int32 ? with_self_loops<int32_t>(prepared_.csr, loops)
                                                          : with_self_loops<int64_t>(prepared_.csr, loops);
  }
  PrepareOptions derive = options_;
  derive.normalization = form.normalization;
  derive.self_loops = loops;
  derive.device = prepared_.device();
  derive.edge_map = true;
  derive.symmetric_scale = true;
  auto adjacency = std::make_unique<Adjacency>(
      adjacency_from_pattern(pattern, weighted ? prepared_.values : Tensor(), derive));
  adjacency->spmm_format = SpmmFormat::Csr;
  return *derived_.emplace(key, std::move(adjacency)).first->second;
}

}  // namespace sgnn::graph_io
