// Backend entry points of ops/normalization.hpp (see ops/backend.hpp).
//
// x is viewed as [rows, columns] (row-major, float32 or bfloat16). The
// statistics mean and inverse_std = 1 / √(var + eps) are float32, per column
// (batch norm: [columns]) or per row (layer norm: [rows]). weight and bias are
// float32 [columns] or undefined (1 and 0). Outputs are preallocated.
#pragma once

#include "ops/backend.hpp"

namespace sgnn::ops {

// Batch norm statistics. Training: mean and inverse_std of x's columns over
// its rows (rows >= 2; biased variance) and, when running_mean is defined,
// running_mean/running_var updated in place (unbiased variance, momentum)
// and *batches (when defined, int64 []) incremented. Evaluation: mean =
// running_mean, inverse_std = 1 / √(running_var + eps); nothing updated.
void batch_norm_statistics(Cpu, const Tensor& x, bool training, float momentum, float eps, const Tensor& running_mean,
                           const Tensor& running_var, const Tensor& batches, Tensor& mean, Tensor& inverse_std);
void batch_norm_statistics(Cuda, const Tensor& x, bool training, float momentum, float eps, const Tensor& running_mean,
                           const Tensor& running_var, const Tensor& batches, Tensor& mean, Tensor& inverse_std);

// y[r, c] = (x[r, c] − mean[c]) · inverse_std[c] · weight[c] + bias[c],
// x's shape and dtype.
void batch_norm_forward(Cpu, const Tensor& x, const Tensor& mean, const Tensor& inverse_std, const Tensor& weight,
                        const Tensor& bias, Tensor& y);
void batch_norm_forward(Cuda, const Tensor& x, const Tensor& mean, const Tensor& inverse_std, const Tensor& weight,
                        const Tensor& bias, Tensor& y);

// sums [2, columns] float32: row 0 Σ_r grad_y[r, c], row 1 Σ_r grad_y[r, c] ·
// x̂[r, c] with x̂ = (x − mean) · inverse_std, the statistics per row
// (per_row_statistics, layer norm) or per column (batch norm). These are the
// bias and weight gradients, and batch norm's training backward needs them.
void normalization_sums(Cpu, const Tensor& grad_y, const Tensor& x, const Tensor& mean, const Tensor& inverse_std,
                        bool per_row_statistics, Tensor& sums);
void normalization_sums(Cuda, const Tensor& grad_y, const Tensor& x, const Tensor& mean, const Tensor& inverse_std,
                        bool per_row_statistics, Tensor& sums);

// grad_x of batch norm (x's dtype). Training: weight · inverse_std ·
// (grad − Σgrad / rows − x̂ · Σ(grad · x̂) / rows) from `sums`; evaluation:
// weight · inverse_std · grad (sums unused, may be undefined).
void batch_norm_backward(Cpu, bool training, const Tensor& grad_y, const Tensor& x, const Tensor& mean,
                         const Tensor& inverse_std, const Tensor& weight, const Tensor& sums, Tensor& grad_x);
void batch_norm_backward(Cuda, bool training, const Tensor& grad_y, const Tensor& x, const Tensor& mean,
                         const Tensor& inverse_std, const Tensor& weight, const Tensor& sums, Tensor& grad_x);

// Layer norm over each row: y, and the row statistics mean and inverse_std [rows].
void layer_norm_forward(Cpu, const Tensor& x, const Tensor& weight, const Tensor& bias, float eps, Tensor& y,
                        Tensor& mean, Tensor& inverse_std);
void layer_norm_forward(Cuda, const Tensor& x, const Tensor& weight, const Tensor& bias, float eps, Tensor& y,
                        Tensor& mean, Tensor& inverse_std);

// grad_x of layer norm: inverse_std · (w·g − mean_row(w·g) − x̂ · mean_row(w·g·x̂)).
void layer_norm_backward(Cpu, const Tensor& grad_y, const Tensor& x, const Tensor& mean, const Tensor& inverse_std,
                         const Tensor& weight, Tensor& grad_x);
void layer_norm_backward(Cuda, const Tensor& grad_y, const Tensor& x, const Tensor& mean, const Tensor& inverse_std,
                         const Tensor& weight, Tensor& grad_x);

}  // namespace sgnn::ops
