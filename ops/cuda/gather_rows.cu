// CUDA gather, atomic scatter-sum, the Max/Min backward, the index checks'
// facts and the rows of CSR entries (ops/gather_scatter_backend.hpp).
//  - gather_rows and scatter_sum_atomic: one subwarp per row (the fewest
//    lanes that cover it, up to 32), each lane moving the widest unit that
//    divides the row and both base addresses (16 bytes where it can); a
//    bad index value is never dereferenced (a NaN row; no add).
//  - scatter_sum_atomic adds 16 bytes at a time where it can (sm_90's
//    float4 atomicAdd), else floats: its order of adds varies run to run.
#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <vector>

#include "core/cuda/launch.cuh"
#include "ops/cuda/sparse_device.cuh"
#include "ops/gather_scatter_backend.hpp"

namespace sgnn::ops {

namespace {

using sparse_cuda::Offsets;
using sparse_cuda::offsets_of;

// Lanes of a subwarp covering `units` per row (a power of two ≤ 32).
int row_lanes(int64_t units) { return sparse_cuda::next_power_of_two(std::min<int64_t>(units, 32), 32); }

template <typename U>
__global__ void gather_rows_kernel(Offsets index, const U* __restrict__ x, U* __restrict__ out, int64_t count,
                                   int64_t units, int64_t rows, U nan, int lanes) {
  const int lane = static_cast<int>(threadIdx.x) & (lanes - 1);
  for (int64_t m = sparse_cuda::global_subwarp(lanes); m < count; m += sparse_cuda::subwarp_count(lanes)) {
    const int64_t row = index[m];
    const bool valid = row >= 0 && row < rows;
    for (int64_t u = lane; u < units; u += lanes) out[m * units + u] = valid ? x[row * units + u] : nan;
  }
}

// `bits` repeated to fill a unit U (the NaN of a row of float32 or bfloat16).
template <typename U>
U repeated(uint32_t bits) {
  if constexpr (sizeof(U) == 16) return make_uint4(bits, bits, bits, bits);
  else if constexpr (sizeof(U) == 8) return make_uint2(bits, bits);
  else if constexpr (sizeof(U) == 4) return bits;
  else return static_cast<uint16_t>(bits);
}

// Calls move(U{}) with the widest of 16, 8, 4 or 2 bytes dividing the row
// bytes and aligning every pointer.
template <typename Move>
void with_row_unit(int64_t row_bytes, std::initializer_list<const void*> pointers, const Move& move) {
  const auto fits = [&](std::size_t bytes) {
    if (row_bytes % static_cast<int64_t>(bytes) != 0) return false;
    for (const void* pointer : pointers) {
      if (reinterpret_cast<uintptr_t>(pointer) % bytes != 0) return false;
    }
    return true;
  };
  if (fits(16)) move(uint4{});
  else if (fits(8)) move(uint2{});
  else if (fits(4)) move(uint32_t{});
  else move(uint16_t{});
}

template <typename U>
__global__ void scatter_sum_atomic_kernel(Offsets index, const U* __restrict__ src, U* __restrict__ out,
                                          int64_t count, int64_t units, int64_t rows, int lanes) {
  const int lane = static_cast<int>(threadIdx.x) & (lanes - 1);
  for (int64_t e = sparse_cuda::global_subwarp(lanes); e < count; e += sparse_cuda::subwarp_count(lanes)) {
    const int64_t row = index[e];
    if (row < 0 || row >= rows) continue;
    for (int64_t u = lane; u < units; u += lanes) {
      const U value = src[e * units + u];
      U* target = out + row * units + u;
      if constexpr (sizeof(U) == 16) {
#if __CUDA_ARCH__ >= 900
        atomicAdd(reinterpret_cast<float4*>(target), *reinterpret_cast<const float4*>(&value));
#else
        float* floats = reinterpret_cast<float*>(target);
        const float4 v = *reinterpret_cast<const float4*>(&value);
        atomicAdd(floats, v.x);
        atomicAdd(floats + 1, v.y);
        atomicAdd(floats + 2, v.z);
        atomicAdd(floats + 3, v.w);
#endif
      } else {
        atomicAdd(target, value);
      }
    }
  }
}

// grad_src[argument[i], i % width] = grad_out[i] where argument[i] ≥ 0
// (grad_src cleared before); elements of T moved as their bits.
template <typename Bits>
__global__ void argument_backward_kernel(const int32_t* __restrict__ argument, const Bits* __restrict__ grad_out,
                                         Bits* __restrict__ grad_src, int64_t count, int64_t width, int64_t rows) {
  for (int64_t i = grid_stride_begin(); i < count; i += grid_stride_step()) {
    const int64_t row = argument[i];
    if (row >= 0 && row < rows) grad_src[row * width + i % width] = grad_out[i];
  }
}

// facts: [min, max, descents, first, last], min and max preset to the extremes.
template <typename I>
__global__ void index_facts_kernel(const I* __restrict__ values, int64_t count, long long* __restrict__ facts) {
  long long low = std::numeric_limits<long long>::max();
  long long high = std::numeric_limits<long long>::min();
  unsigned long long descents = 0;
  for (int64_t i = grid_stride_begin(); i < count; i += grid_stride_step()) {
    const long long value = values[i];
    low = value < low ? value : low;
    high = value > high ? value : high;
    if (i > 0 && value < static_cast<long long>(values[i - 1])) ++descents;
  }
  for (int offset = 16; offset > 0; offset /= 2) {
    const long long other_low = __shfl_xor_sync(0xffffffffu, low, offset);
    const long long other_high = __shfl_xor_sync(0xffffffffu, high, offset);
    low = other_low < low ? other_low : low;
    high = other_high > high ? other_high : high;
    descents += __shfl_xor_sync(0xffffffffu, descents, offset);
  }
  if ((threadIdx.x & 31u) == 0) {
    atomicMin(facts, low);
    atomicMax(facts + 1, high);
    if (descents != 0) atomicAdd(reinterpret_cast<unsigned long long*>(facts + 2), descents);
  }
  if (grid_stride_begin() == 0) {
    facts[3] = values[0];
    facts[4] = values[count - 1];
  }
}

// rows[p] = the last s with offsets[s] ≤ p (a binary search per entry: no
// serial walk along a hub row).
__global__ void expand_offsets_kernel(Offsets offsets, int64_t segments, int64_t count, int32_t* __restrict__ rows) {
  for (int64_t p = grid_stride_begin(); p < count; p += grid_stride_step()) {
    int64_t low = 0, high = segments;  // offsets[low] ≤ p < offsets[high]
    while (high - low > 1) {
      const int64_t middle = low + (high - low) / 2;
      if (offsets[middle] <= p) low = middle;
      else high = middle;
    }
    rows[p] = static_cast<int32_t>(low);
  }
}

}  // namespace

void gather_rows_forward(Cuda, const Tensor& x, const Tensor& index, Tensor& out) {
  const int64_t count = index.numel();
  if (out.numel() == 0) return;
  const Device device = x.device();
  cuda::DeviceGuard guard(device);
  const int64_t row_bytes = out.numel() / count * static_cast<int64_t>(dtype_size(x.dtype()));
  const uint32_t nan_bits = x.dtype() == DType::BFloat16 ? 0x7FC07FC0u : 0x7FC00000u;
  with_row_unit(row_bytes, {x.raw_data(), out.raw_data()}, [&](auto unit) {
    using U = decltype(unit);
    const int64_t units = row_bytes / static_cast<int64_t>(sizeof(U));
    const int lanes = row_lanes(units);
    gather_rows_kernel<U><<<sparse_cuda::subwarp_blocks(count, lanes, device), sparse_cuda::kBlockThreads, 0,
                            cuda::stream(device)>>>(offsets_of(index), static_cast<const U*>(x.raw_data()),
                                                    static_cast<U*>(out.raw_data()), count, units, x.size(0),
                                                    repeated<U>(nan_bits), lanes);
  });
  SGNN_CUDA_CHECK_LAUNCH("gather_rows_kernel");
}

void scatter_sum_atomic(Cuda, const Tensor& src, const Tensor& index, Tensor& out) {
  if (out.numel() == 0) return;
  const Device device = src.device();
  cuda::DeviceGuard guard(device);
  cudaStream_t stream = cuda::stream(device);
  SGNN_CUDA_CHECK(cudaMemsetAsync(out.raw_data(), 0, out.nbytes(), stream));
  const int64_t count = index.numel();
  if (src.numel() == 0) return;
  const int64_t width = src.numel() / count;
  const auto launch = [&](auto unit) {
    using U = decltype(unit);
    const int64_t units = width * 4 / static_cast<int64_t>(sizeof(U));
    const int lanes = row_lanes(units);
    scatter_sum_atomic_kernel<U><<<sparse_cuda::subwarp_blocks(count, lanes, device), sparse_cuda::kBlockThreads, 0,
                                   stream>>>(offsets_of(index), static_cast<const U*>(src.raw_data()),
                                             static_cast<U*>(out.raw_data()), count, units, out.size(0), lanes);
  };
  if (width % 4 == 0 && sparse_cuda::aligned16(src.raw_data()) && sparse_cuda::aligned16(out.raw_data())) {
    launch(uint4{});
  } else {
    launch(float{});
  }
  SGNN_CUDA_CHECK_LAUNCH("scatter_sum_atomic_kernel");
}

void segment_argument_backward(Cuda, const Tensor& argument, const Tensor& grad_out, Tensor& grad_src) {
  if (grad_src.numel() == 0) return;
  const Device device = grad_out.device();
  cuda::DeviceGuard guard(device);
  cudaStream_t stream = cuda::stream(device);
  SGNN_CUDA_CHECK(cudaMemsetAsync(grad_src.raw_data(), 0, grad_src.nbytes(), stream));
  const int64_t count = argument.numel();
  if (count == 0) return;
  const int64_t width = argument.size(1);
  const LaunchShape shape = elementwise_launch_shape(count, device);
  const auto launch = [&](auto bits) {
    using Bits = decltype(bits);
    argument_backward_kernel<Bits><<<shape.blocks, shape.threads, 0, stream>>>(
        argument.data<int32_t>(), static_cast<const Bits*>(grad_out.raw_data()), static_cast<Bits*>(grad_src.raw_data()),
        count, width, grad_src.numel() / width);
  };
  if (grad_out.dtype() == DType::BFloat16) launch(uint16_t{});
  else launch(uint32_t{});
  SGNN_CUDA_CHECK_LAUNCH("argument_backward_kernel");
}

IndexFacts index_facts(Cuda, const Tensor& index) {
  const Device device = index.device();
  cuda::DeviceGuard guard(device);
  const std::vector<int64_t> preset{std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min(), 0, 0, 0};
  Tensor facts = Tensor::from_vector(preset, {5}, device);
  const LaunchShape shape = elementwise_launch_shape(index.numel(), device);
  with_offsets(index, [&](const auto* values) {
    index_facts_kernel<<<shape.blocks, shape.threads, 0, cuda::stream(device)>>>(
        values, index.numel(), reinterpret_cast<long long*>(facts.data<int64_t>()));
  });
  SGNN_CUDA_CHECK_LAUNCH("index_facts_kernel");
  const std::vector<int64_t> read = facts.to_vector<int64_t>();
  return {read[0], read[1], read[3], read[4], read[2]};
}

void expand_offsets(Cuda, const Tensor& offsets, Tensor& rows) {
  if (rows.numel() == 0) return;
  const Device device = offsets.device();
  cuda::DeviceGuard guard(device);
  const LaunchShape shape = elementwise_launch_shape(rows.numel(), device);
  expand_offsets_kernel<<<shape.blocks, shape.threads, 0, cuda::stream(device)>>>(
      offsets_of(offsets), offsets.numel() - 1, rows.numel(), rows.data<int32_t>());
  SGNN_CUDA_CHECK_LAUNCH("expand_offsets_kernel");
}

}  // namespace sgnn::ops
