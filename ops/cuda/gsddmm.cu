// The generalized g-SDDMM kernel (ops/gspmm_backend.hpp): out[k] = op(lhs at k,
// rhs at k) for every entry k, in one pass.
//  - work items are the plan's balanced segments × heads, one subwarp each
//    (ops/sparse_segments.hpp): a segment's entries share one destination
//    row, so a V operand is read from one row the whole segment (L1 keeps
//    it) while U and E operands stream;
//  - each lane stages one entry (its column) of a chunk and the subwarp
//    broadcasts it, as the SpMM does; a lane owns kVec consecutive features
//    of a head and walks the head's width in steps of the subwarp's;
//  - Dot sums a lane's products and then the subwarp's; the others store
//    each element (16-byte stores where the output row allows).
// Against PyG's x[src] op x[dst] (two [nnz, D] gathers written out, then a
// third pass) this reads each operand once and writes the output once.
#include "ops/cuda/gspmm_kernel.cuh"
#include "ops/gspmm_backend.hpp"
#include "ops/sparse_plan.hpp"

namespace sgnn::ops {

namespace {

using gspmm_cuda::DeviceOperand;
using gspmm_cuda::device_operand;
using gspmm_cuda::vector_ready;
using sparse_cuda::Offsets;
using sparse_cuda::offsets_of;

struct GsddmmKernelArguments {
  Offsets indptr;
  const int32_t* indices = nullptr;
  sparse_cuda::SegmentList segments;
  BinaryKind op = BinaryKind::Add;
  int heads = 1;
  int64_t features = 1;
  DeviceOperand lhs, rhs;
  Target lhs_target = Target::U, rhs_target = Target::V;
};

__device__ __forceinline__ int64_t item_of(Target target, int64_t row, int64_t column, int64_t entry) {
  return target == Target::U ? column : target == Target::V ? row : entry;
}

template <typename T, int kVec>
__device__ __forceinline__ void store_vector(T* pointer, const float (&v)[kVec]) {
  if constexpr (kVec == 1) {
    *pointer = store_as<T>(v[0]);
  } else if constexpr (std::is_same_v<T, float>) {
#pragma unroll
    for (int i = 0; i < kVec; i += 4) {
      *reinterpret_cast<float4*>(pointer + i) = make_float4(v[i], v[i + 1], v[i + 2], v[i + 3]);
    }
  } else {
#pragma unroll
    for (int i = 0; i < kVec; i += 8) {
      unsigned words[4];
#pragma unroll
      for (int w = 0; w < 4; ++w) {
        words[w] = unsigned{bfloat16::round_bits(v[i + 2 * w])} | (unsigned{bfloat16::round_bits(v[i + 2 * w + 1])} << 16);
      }
      *reinterpret_cast<uint4*>(pointer + i) = make_uint4(words[0], words[1], words[2], words[3]);
    }
  }
}

template <typename T, int kVec, int kSub>
__global__ void __launch_bounds__(sparse_cuda::kBlockThreads) gsddmm_kernel(GsddmmKernelArguments args, T* out) {
  const unsigned mask = sparse_cuda::subwarp_mask<kSub>();
  const int lane = static_cast<int>(threadIdx.x) & (kSub - 1);
  const bool dot = args.op == BinaryKind::Dot;
  const int64_t out_width = dot ? args.heads : args.heads * args.features;
  const int64_t items = args.segments.count * args.heads;
  for (int64_t item = sparse_cuda::global_subwarp(kSub); item < items; item += sparse_cuda::subwarp_count(kSub)) {
    const int head = static_cast<int>(item % args.heads);
    const sparse_cuda::SegmentRange range = sparse_cuda::segment_range(args.segments, args.indptr, item / args.heads);
    if (range.skip) continue;
    for (int64_t chunk = range.begin; chunk < range.end; chunk += kSub) {
      const int64_t position = chunk + lane;
      const int32_t column = position < range.end ? __ldg(args.indices + position) : 0;
      const int staged = range.end - chunk < kSub ? static_cast<int>(range.end - chunk) : kSub;
      for (int k = 0; k < staged; ++k) {
        const int64_t entry = chunk + k;
        const int64_t c = __shfl_sync(mask, int64_t{column}, k, kSub);
        const int64_t l = item_of(args.lhs_target, range.row, c, entry);
        const int64_t r = item_of(args.rhs_target, range.row, c, entry);
        float sum = 0.0f;
        for (int64_t feature = lane * kVec; feature < args.features; feature += kSub * kVec) {
          float a[kVec], b[kVec], value[kVec];
          args.lhs.template load<kVec>(args.lhs.at(l, head, feature), a);
          args.rhs.template load<kVec>(args.rhs.at(r, head, feature), b);
#pragma unroll
          for (int v = 0; v < kVec; ++v) value[v] = apply_binary(args.op, a[v], b[v]);
          if (dot) {
#pragma unroll
            for (int v = 0; v < kVec; ++v) sum += value[v];
          } else {
            store_vector<T, kVec>(out + entry * out_width + head * args.features + feature, value);
          }
        }
        if (dot) {
          sum = sparse_cuda::subwarp_sum<kSub>(sum, mask);
          if (lane == 0) out[entry * out_width + head] = store_as<T>(sum);
        }
      }
    }
  }
}



template <typename T, int kVec>
void launch_sub(int sub, const GsddmmKernelArguments& args, T* out, Device device) {
  const int64_t items = args.segments.count * args.heads;
  const auto go = [&](auto kernel, int lanes) {
    kernel<<<sparse_cuda::subwarp_blocks(items, lanes, device), sparse_cuda::kBlockThreads, 0, cuda::stream(device)>>>(
        args, out);
    SGNN_CUDA_CHECK_LAUNCH("gsddmm_kernel");
  };
  if (sub == 4) return go(gsddmm_kernel<T, kVec, 4>, 4);
  if (sub == 8) return go(gsddmm_kernel<T, kVec, 8>, 8);
  go(gsddmm_kernel<T, kVec, 32>, 32);
}

template <typename T>
void gsddmm_as(const Csr& csr, const GsddmmOperands& operands, Tensor& out) {
  const Device device = out.device();
  cuda::DeviceGuard guard(device);
  const std::shared_ptr<const SparsePlan> plan = sparse_plan(csr);
  constexpr int kWide = 16 / static_cast<int>(sizeof(T));
  const bool dot = operands.op == BinaryKind::Dot;
  // 16-byte accesses where every operand and the output rows allow them.
  const bool vector = operands.features % kWide == 0 && vector_ready(operands.lhs, operands.lhs_layout, kWide) &&
                      vector_ready(operands.rhs, operands.rhs_layout, kWide) &&
                      (dot || sparse_cuda::aligned16(out.raw_data()));
  const int vec = vector ? kWide : 1;
  const int64_t lanes = (operands.features + vec - 1) / vec;
  const int sub = lanes <= 4 ? 4 : lanes <= 8 ? 8 : 32;
  GsddmmKernelArguments args;
  args.indptr = offsets_of(csr.indptr);
  args.indices = csr.indices.data<int32_t>();
  args.segments = sparse_cuda::segment_list(*plan, false);
  args.op = operands.op;
  args.heads = static_cast<int>(operands.heads);
  args.features = operands.features;
  args.lhs = device_operand(operands.lhs, operands.lhs_layout);
  args.rhs = device_operand(operands.rhs, operands.rhs_layout);
  args.lhs_target = operands.lhs_target;
  args.rhs_target = operands.rhs_target;
  if (vector) launch_sub<T, kWide>(sub, args, out.data<T>(), device);
  else launch_sub<T, 1>(sub, args, out.data<T>(), device);
}

}  // namespace

void gsddmm_forward(Cuda, const Csr& csr, const GsddmmOperands& operands, Tensor& out) {
  if (out.numel() == 0) return;
  if (out.dtype() == DType::BFloat16) return gsddmm_as<bfloat16>(csr, operands, out);
  gsddmm_as<float>(csr, operands, out);
}

}  // namespace sgnn::ops
