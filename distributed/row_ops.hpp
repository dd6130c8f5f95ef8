// Row movement of the halo exchange, on the host or a CUDA device (the
// tensors' device). Not differentiable: the exchange's autograd node calls
// them in both directions.
//
//   gather_rows(x, index)             out[i] = x[index[i]]: x [n, F] float32,
//                                     index int32 [m] in [0, n) -> [m, F]
//   scatter_add_rows(target, index, rows)
//                                     target[index[i]] += rows[i]: target [n, F],
//                                     rows [m, F]; index int32 [m] in [0, n)
//                                     without repeats (no atomics on the GPU;
//                                     repeats -> InvalidArgument on the host,
//                                     a race on the GPU)
// Same device for all; InvalidArgument on shapes, dtypes, devices, and (host)
// indices out of range.
#pragma once

#include "core/tensor.hpp"

namespace sgnn::distributed {

Tensor gather_rows(const Tensor& x, const Tensor& index);
void scatter_add_rows(Tensor& target, const Tensor& index, const Tensor& rows);

}  // namespace sgnn::distributed
