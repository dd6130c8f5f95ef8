// The bfloat16-output launches of the generalized g-SpMM (gspmm_kernel.cuh),
// in a translation unit of their own so both element types compile in parallel.
#include "ops/cuda/gspmm_kernel.cuh"

namespace sgnn::ops::gspmm_cuda {

void launch_gspmm(const GspmmTile& tile, bool extreme, const GspmmKernelArguments<bfloat16>& args,
                  const SparsePlan& plan, Device device) {
  launch_gspmm_of<bfloat16>(tile, extreme, args, plan, device);
}

void launch_extreme(const ExtremeLaunch& launch, const ExtremeArguments<bfloat16>& args, const SparsePlan& plan,
                    Device device) {
  launch_extreme_of<bfloat16>(launch, args, plan, device);
}

}  // namespace sgnn::ops::gspmm_cuda
