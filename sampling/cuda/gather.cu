// Row gathers on the GPU (sampling/gather.hpp): a group of lanes per row,
// as many as the row has 16-byte vectors (up to a warp), so a warp reads
// up to 512 contiguous bytes per load instruction. From host memory over
// unified addressing each group's loads become a few large bus requests of
// one row; many groups in flight keep the bus busy. Rows whose bytes or
// address do not allow 16-byte accesses take the element path (labels).
// A host table is read in ascending id order: the ids sorted with their
// positions (one radix sort, small beside the rows it orders), row i of the
// sorted ids written to out[position i].
#include "core/bfloat16.hpp"
#include "sampling/cuda/sampling_device.cuh"
#include "sampling/gather_backend.hpp"

namespace sgnn::sampling {

namespace {

using namespace cuda_detail;

template <typename In, typename Out>
__device__ __forceinline__ void convert_vector(const uint4& bits, Out* out) {
  if constexpr (std::is_same_v<In, Out>) {
    *reinterpret_cast<uint4*>(out) = bits;
  } else {
    constexpr int kIn = 16 / sizeof(In);
    const In* values = reinterpret_cast<const In*>(&bits);
#pragma unroll
    for (int k = 0; k < kIn; ++k) out[k] = store_as<Out>(load_float(values[k]));
  }
}

template <typename In, typename Out>
__device__ __forceinline__ Out convert_element(In value) {
  if constexpr (std::is_same_v<In, Out>) {
    return value;
  } else {
    return store_as<Out>(load_float(value));
  }
}

template <typename In, typename Out, bool kVector>
__global__ void gather_kernel(const In* __restrict__ table, const int32_t* __restrict__ ids, int64_t count,
                              int64_t width, int group, const int32_t* __restrict__ slot_of_row,
                              const In* __restrict__ cached, const int32_t* __restrict__ out_rows,
                              Out* __restrict__ out) {
  constexpr int64_t kPerVector = 16 / sizeof(In);
  const int64_t thread = grid_stride_begin();
  const int lane = static_cast<int>(thread % group);
  const int64_t groups = grid_stride_step() / group;
  for (int64_t row = thread / group; row < count; row += groups) {
    const int32_t id = ids[row];
    const int32_t slot = slot_of_row != nullptr ? slot_of_row[id] : -1;
    const In* source = slot >= 0 ? cached + static_cast<int64_t>(slot) * width : table + static_cast<int64_t>(id) * width;
    Out* target = out + (out_rows != nullptr ? static_cast<int64_t>(out_rows[row]) : row) * width;
    if constexpr (kVector) {
      const int64_t vectors = width / kPerVector;
      const uint4* words = reinterpret_cast<const uint4*>(source);
      for (int64_t v = lane; v < vectors; v += group) convert_vector<In, Out>(words[v], target + v * kPerVector);
    } else {
      for (int64_t j = lane; j < width; j += group) target[j] = convert_element<In, Out>(source[j]);
    }
  }
}

template <typename In, typename Out>
void launch_gather(const RowSource& source, const Tensor& ids, Tensor& out, const WorkContext& context,
                   const RowCache& cache) {
  constexpr int64_t kPerVector = 16 / sizeof(In);
  const int64_t width = source.row_elements;
  const bool vector = width % kPerVector == 0 && aligned16(source.rows) && aligned16(out.raw_data()) &&
                      (cache.rows == nullptr || aligned16(cache.rows));
  const int64_t units = vector ? width / kPerVector : width;
  int group = 1;
  while (group < 32 && group < units) group *= 2;
  const int64_t count = ids.numel();
  const LaunchShape shape = elementwise_launch_shape(count * group, context.device);
  const auto* table = static_cast<const In*>(source.rows);
  const auto* cached = static_cast<const In*>(cache.rows);
  const cudaStream_t stream = stream_of(context);
  const int32_t* read_ids = ids.data<int32_t>();
  const int32_t* out_rows = nullptr;
  Tensor sorted_ids, positions;
  if (source.in_host_memory && count > 1) {
    Tensor identity = context.allocate({count}, DType::Int32);
    sorted_ids = context.allocate({count}, DType::Int32);
    positions = context.allocate({count}, DType::Int32);
    const LaunchShape iota_shape = elementwise_launch_shape(count, context.device);
    iota_kernel<<<iota_shape.blocks, iota_shape.threads, 0, stream>>>(identity.data<int32_t>(), count);
    SGNN_CUDA_CHECK_LAUNCH("iota_kernel (gather order)");
    run_cub(context, "DeviceRadixSort::SortPairs (gather order)", [&](void* storage, std::size_t& bytes) {
      return cub::DeviceRadixSort::SortPairs(storage, bytes, ids.data<int32_t>(), sorted_ids.data<int32_t>(),
                                             identity.data<int32_t>(), positions.data<int32_t>(), count, 0,
                                             key_bits(source.num_rows), stream);
    });
    read_ids = sorted_ids.data<int32_t>();
    out_rows = positions.data<int32_t>();
  }
  if (vector) {
    gather_kernel<In, Out, true><<<shape.blocks, shape.threads, 0, stream>>>(
        table, read_ids, count, width, group, cache.slot_of_row, cached, out_rows, out.data<Out>());
  } else {
    gather_kernel<In, Out, false><<<shape.blocks, shape.threads, 0, stream>>>(
        table, read_ids, count, width, group, cache.slot_of_row, cached, out_rows, out.data<Out>());
  }
  SGNN_CUDA_CHECK_LAUNCH("gather_kernel");
}

}  // namespace

void gather_rows(ops::Cuda, const RowSource& source, const Tensor& ids, Tensor& out, const WorkContext& context,
                 const RowCache& cache) {
  cuda::DeviceGuard guard(context.device);
  if (source.dtype == DType::Int32) return launch_gather<int32_t, int32_t>(source, ids, out, context, cache);
  visit_floating(source.dtype, [&](auto in_element) {
    using In = decltype(in_element);
    visit_floating(out.dtype(), [&](auto out_element) {
      using Out = decltype(out_element);
      launch_gather<In, Out>(source, ids, out, context, cache);
    });
  });
}

}  // namespace sgnn::sampling
