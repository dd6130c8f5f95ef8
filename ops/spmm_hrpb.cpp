#include "ops/spmm_hrpb.hpp"

#include "core/autograd.hpp"
#include "ops/spmm_hrpb_backend.hpp"

namespace sgnn::ops {

namespace {

constexpr int64_t kAssumedConcurrentBlocks = 132 * 8;

Tensor multiply(const Hrpb& a, const Tensor& b, const char* argument, HrpbRowStaging staging) {
  check_floating(b, "spmm_hrpb", argument);
  check_dim(b, 2, "spmm_hrpb", argument);
  SGNN_CHECK(b.size(0) == a.num_cols, "spmm_hrpb: ", argument, " has ", b.size(0),
             " rows but the sparse matrix has ", a.num_cols, " columns");
  SGNN_CHECK(b.device() == a.device(), "spmm_hrpb: ", argument, " is on ", b.device().str(),
             " but the HRPB is on ", a.device().str());
  Tensor c = Tensor::empty({a.num_rows, b.size(1)}, b.dtype(), b.device());
  if (c.numel() == 0) return c;
  if (b.dtype() == DType::BFloat16) {
    SGNN_DISPATCH(b.device(), spmm_hrpb_bf16_forward, a, b, c, staging);
  } else {
    SGNN_DISPATCH(b.device(), spmm_hrpb_forward, a, b, c);
  }
  return c;
}

}  // namespace

bool hrpb_row_staging_matters(DType dtype, int64_t width) {
  return dtype == DType::BFloat16 && (width + 7) / 8 * 8 >= kHrpbBf16BulkMinimumColumns;
}

Tensor spmm_hrpb(const HrpbAdjacency& hrpb, const Tensor& b, HrpbRowStaging staging) {
  check_defined(b, "spmm_hrpb", "b");
  SGNN_CHECK(hrpb.transpose.num_rows == hrpb.forward.num_cols && hrpb.transpose.num_cols == hrpb.forward.num_rows,
             "spmm_hrpb: the transpose HRPB is ", hrpb.transpose.num_rows, "x", hrpb.transpose.num_cols,
             ", not the transpose of the ", hrpb.forward.num_rows, "x", hrpb.forward.num_cols, " forward HRPB");
  Tensor c = multiply(hrpb.forward, b, "b", staging);
  if (autograd::needs_recording({b})) {
    // The backward stages as the forward does: the timed choice was the forward's (ops/spmm.cpp).
    autograd::record("spmm_hrpb", {b}, c, [hrpb, staging](const Tensor& grad_c, const autograd::NeedsGrad&) {
      return std::vector<Tensor>{multiply(hrpb.transpose, grad_c, "grad_output", staging)};
    });
  }
  return c;
}

int64_t spmm_hrpb_concurrent_blocks(Device device, int64_t width) {
  SGNN_CHECK(width >= 1, "spmm_hrpb_concurrent_blocks: width must be positive, got ", width);
#ifdef SGNN_WITH_CUDA
  if (device.is_cuda()) return spmm_hrpb_occupancy(Cuda{}, device, width);
#endif
  (void)device;
  return kAssumedConcurrentBlocks;
}

}  // namespace sgnn::ops
