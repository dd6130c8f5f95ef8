// Backend entry points of ops/loss.hpp (see ops/backend.hpp).
//
// `index` may be undefined (all rows). Forward writes one value per selected
// row into `per_row` [M] (NaN for a row whose index or label is out of
// range); the caller averages it with sum_axis. Backward writes the whole
// gradient [N, C]: rows not selected get 0, a row selected k times k shares.
// `grad_loss` is the upstream gradient, a one-element tensor on the device
// (read by the kernel, never by the host); `inverse_count` is 1/M.
#pragma once

#include "ops/backend.hpp"

namespace sgnn::ops {

enum class LossKind : unsigned char { Nll, CrossEntropy };

void loss_per_row(Cpu, LossKind kind, const Tensor& input, const Tensor& labels, const Tensor& index,
                  Tensor& per_row);
void loss_per_row(Cuda, LossKind kind, const Tensor& input, const Tensor& labels, const Tensor& index,
                  Tensor& per_row);

void loss_backward(Cpu, LossKind kind, const Tensor& input, const Tensor& labels, const Tensor& index,
                   const Tensor& grad_loss, float inverse_count, Tensor& grad_input);
void loss_backward(Cuda, LossKind kind, const Tensor& input, const Tensor& labels, const Tensor& index,
                   const Tensor& grad_loss, float inverse_count, Tensor& grad_input);

}  // namespace sgnn::ops
