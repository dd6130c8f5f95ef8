// The Edges path of sddmm_dot (ops/sddmm_path.hpp), for small graphs
// (Cora: 13K entries), where the Segments kernel's time is its critical
// path, not its traffic: a 16-entry hub segment walked four entries at a
// time is ten dependent loads. Here one thread per (entry, head) reads its
// row from the plan's entry_row and its column from the CSR (independent
// loads), then x[row] and y[col] (16-byte vectors when vectorizable), and writes the
// whole dot product: two dependent loads, no shuffles. Consecutive threads
// take consecutive outputs, so the store is coalesced. One thread writes
// each output in a fixed order of additions: deterministic, no atomics.
// Grid-stride: any number of entries.
#include <cstdint>

#include "core/error.hpp"
#include "ops/cuda/sddmm_arguments.cuh"
#include "ops/cuda/sparse_device.cuh"

namespace sgnn::ops::sddmm_cuda {

namespace {

template <int kVec, typename T>
__global__ void __launch_bounds__(sparse_cuda::kBlockThreads) sddmm_edges_kernel(SddmmArguments<T> args) {
  const int64_t width = args.heads * args.features;
  const int64_t items = args.nnz * args.heads;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t item = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; item < items; item += stride) {
    const int64_t entry = item / args.heads;
    const int64_t head = item - entry * args.heads;
    const int64_t row = __ldg(args.entry_row + entry);
    const int64_t col = __ldg(args.indices + entry);
    const T* x_row = args.x + row * width + head * args.features;
    const T* y_row = args.y + col * width + head * args.features;
    float sum = 0.0f;
    if constexpr (kVec == 1) {
#pragma unroll 8
      for (int64_t f = 0; f < args.features; ++f) sum += dot_slice<1>(x_row + f, y_row + f);
    } else {
#pragma unroll 4
      for (int64_t f = 0; f < args.features; f += kVec) sum += dot_slice<kVec>(x_row + f, y_row + f);
    }
    args.out.store(item, sum);
  }
}

template <int kVec, typename T>
void launch(const SddmmArguments<T>& args, Device device) {
  const unsigned blocks = sparse_cuda::subwarp_blocks(args.nnz * args.heads, 1, device);  // a thread per item
  sddmm_edges_kernel<kVec><<<blocks, sparse_cuda::kBlockThreads, 0, cuda::stream(device)>>>(args);
  SGNN_CUDA_CHECK_LAUNCH("sddmm_edges_kernel");
}

}  // namespace

template <typename T>
void launch_edges(const SddmmArguments<T>& args, bool vectorized, Device device) {
  SGNN_CHECK(args.entry_row != nullptr, "sddmm_dot: the Edges path needs the plan's entry rows");
  if (vectorized) launch<kVectorElements<T>>(args, device);
  else launch<1>(args, device);
}

template void launch_edges(const SddmmArguments<float>&, bool, Device);
template void launch_edges(const SddmmArguments<bfloat16>&, bool, Device);

}  // namespace sgnn::ops::sddmm_cuda
