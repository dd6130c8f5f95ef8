// Host side of the generalized g-SpMM (gspmm_kernel.cuh) and its helpers:
// the Max/Min backward and mean's row scaling.
#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "ops/choice_keys.hpp"
#include "ops/cuda/gspmm_kernel.cuh"
#include "ops/gspmm_backend.hpp"
#include "ops/kernel_choices.hpp"
#include "ops/kernel_timer.hpp"
#include "ops/sparse_plan.hpp"
#include "ops/spmm_tile.hpp"

namespace sgnn::ops {

namespace {

using gspmm_cuda::DeviceOperand;
using gspmm_cuda::device_operand;
using gspmm_cuda::vector_ready;
using gspmm_cuda::GspmmKernelArguments;
using gspmm_cuda::GspmmTile;
using sparse_cuda::offsets_of;



// The rule: the widest access every operand allows, and the fewest lanes of
// {4, 8, 32} that cover a head's features (narrow heads share a warp).
GspmmTile choose_tile(const GspmmOperands& operands, int wide) {
  const bool vector = operands.features % wide == 0 && vector_ready(operands.u, operands.u_layout, wide) &&
                      vector_ready(operands.e, operands.e_layout, wide);
  const int vec = vector ? wide : 1;
  const int64_t lanes = (operands.features + vec - 1) / vec;
  return {vec, lanes <= 4 ? 4 : lanes <= 8 ? 8 : 32};
}

template <typename T>
void gspmm_as(const Csr& csr, const GspmmOperands& operands, Tensor& out, Tensor& argument) {
  const Device device = out.device();
  cuda::DeviceGuard guard(device);
  const std::shared_ptr<const SparsePlan> plan = sparse_plan(csr);
  const bool extreme = reduce_keeps_argument(operands.reduce);
  const int64_t width = operands.heads * operands.features;
  const GspmmTile tile = choose_tile(operands, 16 / static_cast<int>(sizeof(T)));
  const Tensor partial_values =
      plan->split_segments > 0 ? Tensor::empty({plan->split_segments, width}, DType::Float32, device) : Tensor();
  const Tensor partial_arguments = plan->split_segments > 0 && extreme
                                       ? Tensor::empty({plan->split_segments, width}, DType::Int32, device)
                                       : Tensor();
  GspmmKernelArguments<T> args;
  args.indptr = offsets_of(csr.indptr);
  args.indices = csr.indices.data<int32_t>();
  args.segments = sparse_cuda::segment_list(*plan, false);
  args.message = operands.message;
  args.sign = operands.reduce == ReduceKind::Min ? -1.0f : 1.0f;
  args.average = operands.reduce == ReduceKind::Mean;
  args.heads = static_cast<int>(operands.heads);
  args.features = operands.features;
  args.tiles = (operands.features + tile.vec * tile.sub - 1) / (tile.vec * tile.sub);
  args.u = device_operand(operands.u, operands.u_layout);
  args.e = device_operand(operands.e, operands.e_layout);
  args.edge_map = operands.edge_map.defined() ? operands.edge_map.data<int32_t>() : nullptr;
  args.out = out.data<T>();
  args.argument = extreme ? argument.data<int32_t>() : nullptr;
  args.partial_values = partial_values.defined() ? partial_values.data<float>() : nullptr;
  args.partial_arguments = partial_arguments.defined() ? partial_arguments.data<int32_t>() : nullptr;
  if constexpr (std::is_same_v<T, float>) {
    gspmm_cuda::launch_gspmm_of<float>(tile, extreme, args, *plan, device);
  } else {
    gspmm_cuda::launch_gspmm(tile, extreme, args, *plan, device);
  }
}

using gspmm_cuda::ExtremeLaunch;

std::string extreme_launch_name(const ExtremeLaunch& launch) {
  std::string name = launch.light ? "light" : "heavy";
  if (launch.light && launch.light_registers != 32) name += std::to_string(launch.light_registers);
  name += ' ';
  name += std::to_string(launch.tile.sub);
  if (launch.repeat > 1) {
    name += 'x';
    name += std::to_string(launch.repeat);
  }
  name += launch.slices ? " slices" : "";
  name += launch.by_row ? " rows" : " plan";
  return name;
}

// The candidates of the values-only kernel on this graph and shape: the
// rule's tile (choose_tile) heavy, and for float u where its accesses are
// 16 bytes wide and the graph fits 32-bit counting, light tiles of 8, 16 and 32 lanes that
// a head's features fill; each in both orders of the work items. Rows in
// graph order share the dense rows they gather in L2 where the numbering has
// locality (meshes, blocks), the plan's longest-first order balances heavy
// tails (the plan's order ran 1.42-1.66x the sum SpMM on a quadratic FEM
// mesh, whose sum took the row order); light tiles keep more gathers in
// flight where they wait on DRAM (the heavy kernel ran 1.37-1.41x the sum on
// random graphs at width 128: 40 warps an SM against the sum's 64); slices
// of a row's features keep more of a skewed graph's hot rows in L2, where
// the sum takes them (a bipartite power-law graph at width 128).
template <typename T>
std::vector<ExtremeLaunch> extreme_launches(const Csr& csr, const SparsePlan& plan, const GspmmOperands& operands) {
  constexpr int kWide = 16 / static_cast<int>(sizeof(T));
  GspmmOperands rows = operands;  // u's row is the output's layout; the weights need no vector loads
  rows.e = Tensor();
  const GspmmTile rule = choose_tile(rows, kWide);
  std::vector<ExtremeLaunch> shapes = {{rule, false, false, false}};
  // The light kernel indexes per-head weights in 32 bits too: nnz · heads must fit.
  const bool per_head_weights = operands.e.defined() && operands.e_layout.head_stride != 0;
  const bool weights_fit = !per_head_weights || csr.nnz * operands.heads < kLightTileCountBound;
  if (rule.vec == kWide && std::is_same_v<T, float> && weights_fit) {
    for (int sub : {8, 16, 32}) {
      const int64_t tile_width = int64_t{sub} * kWide;
      if (tile_width > operands.features ||
          !light_spmm_tiles_fit(csr, plan, operands.heads, operands.features, tile_width)) {
        continue;
      }
      // 8 lanes also under 40 and 64 registers, as the sum's narrow light twins.
      for (int registers : sub == 8 ? std::vector<int>{32, 40, 64} : std::vector<int>{32}) {
        shapes.push_back({{kWide, sub}, true, false, false, registers});
        if (tile_width < operands.features) shapes.push_back({{kWide, sub}, true, false, true, registers});
      }
      // The sum's RoDe-shaped tile at width 128: 8 lanes of two accesses
      // each under 64 registers, in slices of 2 · 8 · kWide columns.
      const int64_t double_width = 2 * tile_width;
      if (sub == 8 && double_width <= operands.features &&
          light_spmm_tiles_fit(csr, plan, operands.heads, operands.features, double_width)) {
        shapes.push_back({{kWide, sub}, true, false, double_width < operands.features, 64, 2});
      }
    }
  }
  std::vector<ExtremeLaunch> launches;
  for (bool by_row : {false, true}) {
    for (ExtremeLaunch launch : shapes) {
      launch.by_row = by_row;
      launches.push_back(launch);
    }
  }
  return launches;
}

template <typename T>
void extreme_values_as(const Csr& csr, const GspmmOperands& operands, Tensor& out) {
  const Device device = out.device();
  cuda::DeviceGuard guard(device);
  // The kernels store a lane's features in one access (gspmm_backend.hpp: out is a fresh tensor).
  SGNN_CHECK(sparse_cuda::aligned16(out.raw_data()), "gspmm_extreme_values: out is not 16-byte aligned");
  const std::shared_ptr<const SparsePlan> plan = sparse_plan(csr);
  const int64_t width = operands.heads * operands.features;
  // Float out takes split rows' segments with atomics (gspmm_kernel.cuh's atomic_extreme).
  const Tensor partials = plan->split_segments > 0 && !std::is_same_v<T, float>
                              ? Tensor::empty({plan->split_segments, width}, DType::Float32, device)
                              : Tensor();
  gspmm_cuda::ExtremeArguments<T> args;
  args.indptr = offsets_of(csr.indptr);
  args.indices = csr.indices.data<int32_t>();
  args.heads = static_cast<int>(operands.heads);
  args.features = operands.features;
  args.u = operands.u.data<T>();
  if (operands.e.defined()) {
    if (operands.e.dtype() == DType::BFloat16) args.bf16_weights = operands.e.data<bfloat16>();
    else args.weights = operands.e.data<float>();
    args.weight_heads = operands.e_layout.head_stride == 0 ? 1 : args.heads;
  }
  args.sign = operands.reduce == ReduceKind::Min ? -1.0f : 1.0f;
  args.out = out.data<T>();
  args.partials = partials.defined() ? partials.data<float>() : nullptr;
  const auto run = [&](const ExtremeLaunch& launch) {
    if constexpr (std::is_same_v<T, float>) {
      gspmm_cuda::launch_extreme_of<float>(launch, args, *plan, device);
    } else {
      gspmm_cuda::launch_extreme(launch, args, *plan, device);
    }
  };
  const std::vector<ExtremeLaunch> launches = extreme_launches<T>(csr, *plan, operands);
  // The launch, timed once per graph and shape where timing pays
  // (ops/kernel_choices.hpp), as the sum's tiles are; a recorded name that is
  // not among this call's candidates is timed again.
  const std::string key = gspmm_extreme_choice_key(operands.heads, operands.features, dtype_of<T>(),
                                                   launches.front().tile.vec > 1);
  const std::optional<std::string> recorded = plan->choices->find(key);
  for (const ExtremeLaunch& launch : launches) {
    if (recorded && *recorded == extreme_launch_name(launch)) return run(launch);
  }
  if (!may_tune(csr, *plan->choices, stream_capturing(device))) return run(launches.front());
  double best_ms = std::numeric_limits<double>::infinity();
  const ExtremeLaunch* best = &launches.front();
  for (const ExtremeLaunch& launch : launches) {
    const std::string name = extreme_launch_name(launch);
    const double ms = candidate_ms(device, [&] { run(launch); }, key + " " + name, best_ms);
    if (ms < best_ms) {
      best_ms = ms;
      best = &launch;
    }
  }
  plan->choices->set(key, extreme_launch_name(*best));
  run(*best);
}

template <typename T>
std::vector<std::string> extreme_launch_names(const Csr& csr, const GspmmOperands& operands) {
  const std::shared_ptr<const SparsePlan> plan = sparse_plan(csr);
  std::vector<std::string> names;
  for (const ExtremeLaunch& launch : extreme_launches<T>(csr, *plan, operands)) {
    names.push_back(extreme_launch_name(launch));
  }
  return names;
}

// Output element i = (row, head, feature) with winner k: its gradient terms
// for u and e and their flat positions, as both backward forms use them.
struct ExtremeTerm {
  int64_t u_at, e_at;
  float u_term, e_term;
};

struct ExtremeTermInputs {
  const int32_t* indices;
  const int32_t* edge_map;
  DeviceOperand gradient, u, e;
  MessageKind message;
  int64_t heads, features;

  __device__ __forceinline__ ExtremeTerm operator()(int64_t i, int32_t k) const {
    const int64_t row = i / (heads * features);
    const int64_t head = (i / features) % heads;
    const int64_t feature = i % features;
    const int64_t column = __ldg(indices + k);
    const int64_t edge = edge_map ? int64_t{__ldg(edge_map + k)} : int64_t{k};
    const float g = gradient.scalar(gradient.at(row, head, feature));
    const float u_value = u.scalar(u.at(column, head, feature));
    const float e_value = e.scalar(e.at(edge, head, feature));
    return {u.at(column, head, feature), e.at(edge, head, feature), g * message_gradient_u(message, u_value, e_value),
            g * message_gradient_e(message, u_value, e_value)};
  }
};

ExtremeTermInputs extreme_term_inputs(const Csr& csr, const GspmmOperands& operands, const Tensor& grad_out) {
  const int64_t width = operands.heads * operands.features;
  return {csr.indices.data<int32_t>(),
          operands.edge_map.defined() ? operands.edge_map.data<int32_t>() : nullptr,
          device_operand(grad_out, FeatureLayout{width, operands.features, 1}),
          device_operand(operands.u, operands.u_layout),
          device_operand(operands.e, operands.e_layout),
          operands.message,
          operands.heads,
          operands.features};
}

// One thread per output element whose argument is set: the gradient added at
// the winner's source row and edge (atomics: several outputs may share one).
__global__ void gspmm_extreme_backward_kernel(ExtremeTermInputs inputs, const int32_t* __restrict__ argument,
                                              int64_t total, float* __restrict__ grad_u, float* __restrict__ grad_e) {
  for (int64_t i = grid_stride_begin(); i < total; i += grid_stride_step()) {
    const int32_t k = argument[i];
    if (k < 0) continue;
    const ExtremeTerm term = inputs(i, k);
    if (grad_u) atomicAdd(grad_u + term.u_at, term.u_term);
    if (grad_e) atomicAdd(grad_e + term.e_at, term.e_term);
  }
}

// The same terms written out, one slot per output element (no atomics).
__global__ void gspmm_extreme_terms_kernel(ExtremeTermInputs inputs, const int32_t* __restrict__ argument,
                                           int64_t total, int64_t u_size, int64_t e_size, float* __restrict__ u_term,
                                           int32_t* __restrict__ u_target, float* __restrict__ e_term,
                                           int32_t* __restrict__ e_target) {
  for (int64_t i = grid_stride_begin(); i < total; i += grid_stride_step()) {
    const int32_t k = argument[i];
    const ExtremeTerm term = k < 0 ? ExtremeTerm{u_size, e_size, 0.0f, 0.0f} : inputs(i, k);
    if (u_target) {
      u_term[i] = term.u_term;
      u_target[i] = static_cast<int32_t>(term.u_at);
    }
    if (e_target) {
      e_term[i] = term.e_term;
      e_target[i] = static_cast<int32_t>(term.e_at);
    }
  }
}

template <typename T>
__global__ void scale_rows_kernel(sparse_cuda::Offsets indptr, int64_t rows, int64_t width, T* __restrict__ x) {
  const int64_t total = rows * width;
  for (int64_t i = grid_stride_begin(); i < total; i += grid_stride_step()) {
    const int64_t row = i / width;
    const int64_t length = indptr[row + 1] - indptr[row];
    if (length > 0) x[i] = store_as<T>(load_float(x[i]) * (1.0f / static_cast<float>(length)));
  }
}

}  // namespace

void gspmm_forward(Cuda, const Csr& csr, const GspmmOperands& operands, Tensor& out, Tensor& argument) {
  if (out.numel() == 0) return;
  if (out.dtype() == DType::BFloat16) return gspmm_as<bfloat16>(csr, operands, out, argument);
  gspmm_as<float>(csr, operands, out, argument);
}

void gspmm_extreme_values(Cuda, const Csr& csr, const GspmmOperands& operands, Tensor& out) {
  if (out.numel() == 0) return;
  if (out.dtype() == DType::BFloat16) return extreme_values_as<bfloat16>(csr, operands, out);
  extreme_values_as<float>(csr, operands, out);
}

std::vector<std::string> gspmm_extreme_launches(Cuda, const Csr& csr, const GspmmOperands& operands) {
  cuda::DeviceGuard guard(operands.u.device());
  if (operands.u.dtype() == DType::BFloat16) return extreme_launch_names<bfloat16>(csr, operands);
  return extreme_launch_names<float>(csr, operands);
}

void gspmm_extreme_backward(Cuda, const Csr& csr, const GspmmOperands& operands, const Tensor& argument,
                            const Tensor& grad_out, Tensor& grad_u, Tensor& grad_e) {
  if (argument.numel() == 0) return;
  const Device device = argument.device();
  cuda::DeviceGuard guard(device);
  const LaunchShape shape = elementwise_launch_shape(argument.numel(), device);
  gspmm_extreme_backward_kernel<<<shape.blocks, shape.threads, 0, cuda::stream(device)>>>(
      extreme_term_inputs(csr, operands, grad_out), argument.data<int32_t>(), argument.numel(),
      grad_u.defined() ? grad_u.data<float>() : nullptr, grad_e.defined() ? grad_e.data<float>() : nullptr);
  SGNN_CUDA_CHECK_LAUNCH("gspmm_extreme_backward_kernel");
}

void gspmm_extreme_terms(Cuda, const Csr& csr, const GspmmOperands& operands, const Tensor& argument,
                         const Tensor& grad_out, ExtremeTermTensors& out) {
  if (argument.numel() == 0) return;
  const Device device = argument.device();
  cuda::DeviceGuard guard(device);
  const LaunchShape shape = elementwise_launch_shape(argument.numel(), device);
  gspmm_extreme_terms_kernel<<<shape.blocks, shape.threads, 0, cuda::stream(device)>>>(
      extreme_term_inputs(csr, operands, grad_out), argument.data<int32_t>(), argument.numel(), out.u_size,
      out.e_size, out.u_term.defined() ? out.u_term.data<float>() : nullptr,
      out.u_target.defined() ? out.u_target.data<int32_t>() : nullptr,
      out.e_term.defined() ? out.e_term.data<float>() : nullptr,
      out.e_target.defined() ? out.e_target.data<int32_t>() : nullptr);
  SGNN_CUDA_CHECK_LAUNCH("gspmm_extreme_terms_kernel");
}

void scale_by_inverse_row_length(Cuda, const Csr& csr, Tensor& x) {
  if (x.numel() == 0) return;
  const Device device = x.device();
  cuda::DeviceGuard guard(device);
  const int64_t width = x.numel() / csr.num_rows;
  const LaunchShape shape = elementwise_launch_shape(x.numel(), device);
  visit_floating(x.dtype(), [&](auto element) {
    using T = decltype(element);
    scale_rows_kernel<T><<<shape.blocks, shape.threads, 0, cuda::stream(device)>>>(offsets_of(csr.indptr),
                                                                                  csr.num_rows, width, x.data<T>());
  });
  SGNN_CUDA_CHECK_LAUNCH("scale_rows_kernel");
}

}  // namespace sgnn::ops
