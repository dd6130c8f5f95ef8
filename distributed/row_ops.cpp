#include "distributed/row_ops.hpp"

#include "distributed/row_ops_backend.hpp"

namespace sgnn::distributed {

namespace {

void check_rows_and_index(const Tensor& x, const Tensor& index, const char* op) {
  check_defined(x, op, "x");
  check_dtype(x, DType::Float32, op, "x");
  check_dim(x, 2, op, "x");
  check_defined(index, op, "index");
  check_dtype(index, DType::Int32, op, "index");
  check_dim(index, 1, op, "index");
  check_same_device(x, index, op);
  if (index.device().is_cpu()) {
    const int32_t* ids = index.data<int32_t>();
    for (int64_t i = 0; i < index.numel(); ++i) {
      SGNN_CHECK(ids[i] >= 0 && ids[i] < x.size(0), op, ": index[", i, "] = ", ids[i], " outside [0, ", x.size(0),
                 ")");
    }
  }
}

}  // namespace

Tensor gather_rows(const Tensor& x, const Tensor& index) {
  check_rows_and_index(x, index, "gather_rows");
  Tensor out = Tensor::empty({index.numel(), x.size(1)}, DType::Float32, x.device());
  SGNN_DISPATCH(x.device(), gather_rows, x, index, out);
  return out;
}

void scatter_add_rows(Tensor& target, const Tensor& index, const Tensor& rows) {
  constexpr const char* kOp = "scatter_add_rows";
  check_rows_and_index(target, index, kOp);
  check_defined(rows, kOp, "rows");
  check_dtype(rows, DType::Float32, kOp, "rows");
  check_same_device(target, rows, kOp);
  SGNN_CHECK(rows.shape() == Shape({index.numel(), target.size(1)}), kOp, ": rows must be [", index.numel(), ", ",
             target.size(1), "], got ", shape_str(rows.shape()));
  if (index.device().is_cpu()) {
    std::vector<char> seen(static_cast<std::size_t>(target.size(0)), 0);
    const int32_t* ids = index.data<int32_t>();
    for (int64_t i = 0; i < index.numel(); ++i) {
      char& mark = seen[static_cast<std::size_t>(ids[i])];
      SGNN_CHECK(!mark, kOp, ": index repeats row ", ids[i], " (at ", i, ")");
      mark = 1;
    }
  }
  SGNN_DISPATCH(target.device(), scatter_add_rows, target, index, rows);
}

}  // namespace sgnn::distributed
