// The stable sort of a scatter's index on a CUDA device
// (ops/gather_scatter_backend.hpp, sort_index): CUB's radix sort of
// (value, edge) pairs over only the bits num_outputs needs (LSD radix sort
// is stable, so each output's edges stay in increasing order), then the
// offsets by a binary search per output. Queued on the library's stream,
// temporaries from its pool; cached by the caller (ops/index_plan.hpp).
#include <cub/device/device_radix_sort.cuh>
#include <thrust/binary_search.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/system/cuda/execution_policy.h>
#include <thrust/system_error.h>

#include <cstdint>

#include "core/cuda/launch.cuh"
#include "core/cuda/thrust_allocator.cuh"
#include "ops/gather_scatter_backend.hpp"
#include "ops/sparse_offsets.hpp"

namespace sgnn::ops {

namespace {

// keys[e] = index[e] as unsigned (checked to lie in [0, num_outputs)), edges[e] = e.
template <typename I>
__global__ void sort_input_kernel(const I* __restrict__ index, int64_t count, uint32_t* __restrict__ keys,
                                  int32_t* __restrict__ edges) {
  for (int64_t e = grid_stride_begin(); e < count; e += grid_stride_step()) {
    keys[e] = static_cast<uint32_t>(index[e]);
    edges[e] = static_cast<int32_t>(e);
  }
}

}  // namespace

void sort_index(Cuda, const Tensor& index, int64_t num_outputs, Tensor& offsets, Tensor& order) {
  const Device device = index.device();
  cuda::DeviceGuard guard(device);
  cudaStream_t stream = cuda::stream(device);
  const int64_t count = index.numel();
  const Tensor keys_in = Tensor::empty({count}, DType::Int32, device);
  const Tensor keys_out = Tensor::empty({count}, DType::Int32, device);
  const Tensor edges_in = Tensor::empty({count}, DType::Int32, device);
  auto* unsorted_keys = reinterpret_cast<uint32_t*>(keys_in.data<int32_t>());
  auto* sorted_keys = reinterpret_cast<uint32_t*>(keys_out.data<int32_t>());
  if (count > 0) {
    const LaunchShape shape = elementwise_launch_shape(count, device);
    with_offsets(index, [&](const auto* values) {
      sort_input_kernel<<<shape.blocks, shape.threads, 0, stream>>>(values, count, unsorted_keys,
                                                                    edges_in.data<int32_t>());
    });
    SGNN_CUDA_CHECK_LAUNCH("sort_input_kernel");
    int end_bit = 1;
    while (end_bit < 32 && (int64_t{1} << end_bit) < num_outputs) ++end_bit;
    std::size_t temporary_bytes = 0;
    SGNN_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, temporary_bytes, unsorted_keys, sorted_keys,
                                                    edges_in.data<int32_t>(), order.data<int32_t>(),
                                                    static_cast<int>(count), 0, end_bit, stream));
    const Tensor temporary = Tensor::empty({static_cast<int64_t>(temporary_bytes / 4) + 1}, DType::Int32, device);
    SGNN_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temporary.raw_data(), temporary_bytes, unsorted_keys,
                                                    sorted_keys, edges_in.data<int32_t>(), order.data<int32_t>(),
                                                    static_cast<int>(count), 0, end_bit, stream));
  }
  cuda::ThrustPoolAllocator allocator{device};
  const auto policy = thrust::cuda::par_nosync(allocator).on(stream);
  try {
    thrust::lower_bound(policy, sorted_keys, sorted_keys + count, thrust::counting_iterator<uint32_t>(0),
                        thrust::counting_iterator<uint32_t>(static_cast<uint32_t>(num_outputs + 1)),
                        offsets.data<int32_t>());
  } catch (const thrust::system_error& error) {
    throw CudaError(::sgnn::detail::concat("scatter: sorting the index on ", device.str(), " failed: ", error.what()));
  }
}

}  // namespace sgnn::ops
