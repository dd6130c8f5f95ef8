// Backend entry points of ops/softmax.hpp (see ops/backend.hpp). x, y are
// viewed as [rows, cols], the softmax running along each row.
#pragma once

#include <cstdint>

#include "ops/backend.hpp"

namespace sgnn::ops {

void softmax_forward(Cpu, bool log, const Tensor& x, int64_t cols, Tensor& y);
void softmax_forward(Cuda, bool log, const Tensor& x, int64_t cols, Tensor& y);

// From the forward output y: softmax: gx = y ⊙ (g − Σ g⊙y); log_softmax:
// gx = g − exp(y) · Σ g (sums per row).
void softmax_backward(Cpu, bool log, const Tensor& y, const Tensor& grad_y, int64_t cols, Tensor& grad_x);
void softmax_backward(Cuda, bool log, const Tensor& y, const Tensor& grad_y, int64_t cols, Tensor& grad_x);

}  // namespace sgnn::ops
