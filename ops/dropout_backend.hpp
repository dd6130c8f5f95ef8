// Backend entry points of ops/dropout.hpp (see ops/backend.hpp).
#pragma once

#include "core/generator.hpp"
#include "ops/backend.hpp"

namespace sgnn::ops {

// y[i] = s.uniform16(i) >= p ? x[i] · scale : 0 with s = draw.resolve() (the
// offset base, when set, is read when the work runs). Forward (x) and
// backward (the upstream gradient) are the same function of the same draw.
void dropout_apply(Cpu, const Tensor& x, float p, float scale, RandomDraw draw, Tensor& y);
void dropout_apply(Cuda, const Tensor& x, float p, float scale, RandomDraw draw, Tensor& y);

// The same mask at chosen elements: y[k] = s.uniform16(positions[k]) >= p ?
// x[k] · scale : 0, x and y float32 [nnz], positions int64 [nnz] (the element
// indices of a dense tensor's non-zeros: its dropout's values there, bit for bit).
void dropout_at_positions(Cpu, const Tensor& x, const Tensor& positions, float p, float scale, RandomDraw draw,
                          Tensor& y);
void dropout_at_positions(Cuda, const Tensor& x, const Tensor& positions, float p, float scale, RandomDraw draw,
                          Tensor& y);

}  // namespace sgnn::ops
