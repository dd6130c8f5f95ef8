#include "sampling/device_arena.hpp"

#include <algorithm>

#include "core/memory.hpp"

namespace sgnn::sampling {

namespace {

constexpr int64_t kAlignmentBytes = 256;

int64_t aligned_elements(int64_t elements, DType dtype) {
  const int64_t step = kAlignmentBytes / static_cast<int64_t>(dtype_size(dtype));
  return (elements + step - 1) / step * step;
}

}  // namespace

DeviceArena::DeviceArena(Device device) : device_(device) {}

Tensor DeviceArena::take(const Shape& shape, DType dtype) {
  const int64_t elements = shape_numel(shape);
  const int64_t padded = aligned_elements(std::max<int64_t>(elements, 1), dtype);
  Pool& pool = pools_[static_cast<std::size_t>(dtype)];
  const int64_t capacity = pool.buffer.defined() ? pool.buffer.numel() : 0;
  if (pool.used + padded > capacity) {
    // Half again what this round has asked for so far: a few growths reach any batch size.
    const int64_t wanted = aligned_elements((pool.round_elements + padded) * 3 / 2, dtype);
    if (pool.buffer.defined()) pool.retired.push_back(pool.buffer);
    pool.buffer = Tensor::empty({wanted}, dtype, device_);
    pool.used = 0;
    ++growths_;
    memory::synchronize(device_);  // the allocation is complete before another stream writes it
  }
  Tensor view = pool.buffer.narrow_rows(pool.used, pool.used + elements).view(shape);
  pool.used += padded;
  pool.round_elements += padded;
  return view;
}

void DeviceArena::reset() {
  bool reallocated = false;
  for (std::size_t d = 0; d < pools_.size(); ++d) {
    Pool& pool = pools_[d];
    if (!pool.retired.empty()) {
      // Outgrown this round: one buffer of the round's whole size from now on.
      const auto dtype = static_cast<DType>(d);
      pool.retired.clear();
      pool.buffer = Tensor();
      pool.buffer = Tensor::empty({aligned_elements(pool.round_elements * 5 / 4, dtype)}, dtype, device_);
      reallocated = true;
    }
    pool.used = 0;
    pool.round_elements = 0;
  }
  if (reallocated) memory::synchronize(device_);
}

int64_t DeviceArena::capacity_bytes() const {
  int64_t bytes = 0;
  for (const Pool& pool : pools_) {
    if (pool.buffer.defined()) bytes += static_cast<int64_t>(pool.buffer.nbytes());
    for (const Tensor& old : pool.retired) bytes += static_cast<int64_t>(old.nbytes());
  }
  return bytes;
}

}  // namespace sgnn::sampling
