#include "sampling/gather.hpp"

#include "sampling/gather_backend.hpp"

namespace sgnn::sampling {

void gather_rows(const RowSource& source, const Tensor& ids, Tensor& out, const WorkContext& context,
                 const RowCache& cache) {
  constexpr const char* kOp = "gather_rows";
  check_dtype(ids, DType::Int32, kOp, "ids");
  check_dim(ids, 1, kOp, "ids");
  check_defined(out, kOp, "out");
  SGNN_CHECK(source.rows != nullptr || source.num_rows == 0, kOp, ": the source table has no rows pointer");
  SGNN_CHECK(source.row_elements >= 1, kOp, ": rows of ", source.row_elements, " elements");
  SGNN_CHECK(ids.device() == context.device && out.device() == context.device, kOp, ": ids on ",
             ids.device().str(), " and out on ", out.device().str(), ", the context on ", context.device.str());
  const bool floating = is_floating(source.dtype);
  SGNN_CHECK(floating ? is_floating(out.dtype()) : out.dtype() == source.dtype, kOp, ": a ",
             dtype_name(source.dtype), " table cannot be gathered into ", dtype_name(out.dtype()));
  SGNN_CHECK(source.dtype != DType::Int64, kOp, ": int64 tables are not gathered (ids and labels are int32)");
  const Shape expected = source.row_elements == 1 && out.dim() == 1 ? Shape{ids.numel()}
                                                                     : Shape{ids.numel(), source.row_elements};
  SGNN_CHECK(out.shape() == expected, kOp, ": out has shape ", shape_str(out.shape()), ", expected ",
             shape_str(expected));
  if (ids.numel() == 0) return;
  SGNN_DISPATCH(context.device, gather_rows, source, ids, out, context, cache);
}

}  // namespace sgnn::sampling
