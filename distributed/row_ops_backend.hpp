// Backend entry points of distributed/row_ops.hpp (see ops/backend.hpp);
// arguments already checked, outputs allocated by the caller.
#pragma once

#include "ops/backend.hpp"

namespace sgnn::distributed {

void gather_rows(ops::Cpu, const Tensor& x, const Tensor& index, Tensor& out);
void gather_rows(ops::Cuda, const Tensor& x, const Tensor& index, Tensor& out);
void scatter_add_rows(ops::Cpu, Tensor& target, const Tensor& index, const Tensor& rows);
void scatter_add_rows(ops::Cuda, Tensor& target, const Tensor& index, const Tensor& rows);

}  // namespace sgnn::distributed
