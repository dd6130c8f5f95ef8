#include "ops/elementwise_broadcast.hpp"

#include <algorithm>
#include <vector>

#include "ops/reduce_backend.hpp"

namespace sgnn::ops {

namespace {

// Extent of `shape` along output axis `axis` of an output of rank `rank` (1 where absent).
int64_t aligned_extent(const Shape& shape, std::size_t rank, std::size_t axis) {
  const std::size_t missing = rank - shape.size();
  return axis < missing ? 1 : shape[axis - missing];
}

}  // namespace

Shape broadcast_shape(const Shape& a, const Shape& b, const char* op) {
  const std::size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (std::size_t axis = 0; axis < rank; ++axis) {
    const int64_t ea = aligned_extent(a, rank, axis);
    const int64_t eb = aligned_extent(b, rank, axis);
    SGNN_CHECK(ea == eb || ea == 1 || eb == 1, op, ": a's shape ", shape_str(a), " and b's shape ", shape_str(b),
               " do not broadcast (trailing axes aligned, extents must be equal or 1; axis ", axis, " of the result: ",
               ea, " against ", eb, ")");
    out[axis] = ea == 1 ? eb : ea;
  }
  return out;
}

BroadcastLayout broadcast_layout(const Shape& a, const Shape& b, const char* op) {
  const Shape out = broadcast_shape(a, b, op);
  const std::size_t rank = out.size();
  BroadcastLayout layout;
  layout.numel = shape_numel(out);
  const Shape* operands[2] = {&a, &b};
  // Operand strides, filled from the innermost axis outwards.
  std::vector<int64_t> strides[2] = {std::vector<int64_t>(rank), std::vector<int64_t>(rank)};
  for (int j = 0; j < 2; ++j) {
    int64_t stride = 1;
    for (std::size_t axis = rank; axis-- > 0;) {
      const int64_t extent = aligned_extent(*operands[j], rank, axis);
      strides[j][axis] = extent == 1 ? 0 : stride;
      stride *= extent;
    }
  }
  bool previous_varies[2] = {false, false};
  for (std::size_t axis = 0; axis < rank; ++axis) {
    if (out[axis] == 1) continue;  // neither operand moves along it
    const bool varies[2] = {strides[0][axis] != 0, strides[1][axis] != 0};
    const bool merge = layout.axes > 0 && varies[0] == previous_varies[0] && varies[1] == previous_varies[1];
    if (!merge) {
      SGNN_CHECK(layout.axes < kMaxBroadcastAxes, op, ": broadcasting a's shape ", shape_str(a), " against b's shape ",
                 shape_str(b), " alternates between repeated and varying axes more than ", kMaxBroadcastAxes,
                 " times; reshape the operands to merge axes");
      layout.extents[layout.axes++] = 1;
    }
    // A merged run keeps its innermost stride: the operands are contiguous.
    const int k = layout.axes - 1;
    layout.extents[k] *= out[axis];
    layout.strides[0][k] = strides[0][axis];
    layout.strides[1][k] = strides[1][axis];
    previous_varies[0] = varies[0];
    previous_varies[1] = varies[1];
  }
  if (layout.axes == 0) {  // one element
    layout.axes = 1;
    layout.extents[0] = 1;
  }
  return layout;
}

Tensor sum_to_operand(const Tensor& full, const BroadcastLayout& layout, int operand, float factor,
                      const Shape& shape, DType dtype) {
  // The operand's own runs: adjacent axes along which it varies (or repeats) merge.
  struct Run {
    int64_t extent;
    bool repeats;
  };
  std::vector<Run> runs;
  for (int k = 0; k < layout.axes; ++k) {
    const bool repeats = layout.strides[operand][k] == 0 && layout.extents[k] != 1;
    if (!runs.empty() && runs.back().repeats == repeats) {
      runs.back().extent *= layout.extents[k];
    } else {
      runs.push_back({layout.extents[k], repeats});
    }
  }
  const auto repeated = static_cast<int64_t>(std::count_if(runs.begin(), runs.end(), [](const Run& r) { return r.repeats; }));
  Tensor current = full;
  if (repeated == 0) {
    if (factor == 1.0f && dtype == full.dtype()) return full.view(shape);
    // Nothing to sum: a copy in the operand's dtype, scaled (sum_axis over an extent of 1).
    Tensor out = Tensor::empty(shape, dtype, full.device());
    SGNN_DISPATCH(full.device(), sum_axis, full, AxisLayout{1, 1, full.numel()}, factor, out);
    return out;
  }
  // Innermost repeated run first; each pass removes one run.
  int64_t passes_left = repeated;
  for (auto run = static_cast<std::ptrdiff_t>(runs.size()) - 1; run >= 0; --run) {
    if (!runs[static_cast<std::size_t>(run)].repeats) continue;
    AxisLayout axis{1, runs[static_cast<std::size_t>(run)].extent, 1};
    for (std::ptrdiff_t k = 0; k < run; ++k) axis.outer *= runs[static_cast<std::size_t>(k)].extent;
    for (std::size_t k = static_cast<std::size_t>(run) + 1; k < runs.size(); ++k) axis.inner *= runs[k].extent;
    const bool last = --passes_left == 0;
    Tensor next = last ? Tensor::empty(shape, dtype, full.device())
                       : Tensor::empty({axis.outer * axis.inner}, DType::Float32, full.device());
    SGNN_DISPATCH(full.device(), sum_axis, current, axis, last ? factor : 1.0f, next);
    runs.erase(runs.begin() + run);
    current = next;
  }
  return current;
}

}  // namespace sgnn::ops
