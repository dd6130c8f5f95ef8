// The bfloat16 kernels of the CSR SpMM (ops/cuda/spmm_kernel.cuh): B and C
// in bfloat16, 8 elements per 16-byte access, float accumulation.
#include "ops/cuda/spmm_kernel.cuh"

namespace sgnn::ops::spmm_cuda {

void launch_tile(const SpmmTile& tile, const SpmmArguments<bfloat16>& args, bool wide_index, Device device) {
  launch_tile_of<bfloat16>(tile, args, wide_index, device);
}

}  // namespace sgnn::ops::spmm_cuda
