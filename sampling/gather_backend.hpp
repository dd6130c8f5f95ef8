// Backend entry points of sampling/gather.hpp (arguments checked there).
#pragma once

#include "ops/backend.hpp"
#include "sampling/gather.hpp"

namespace sgnn::sampling {

void gather_rows(ops::Cpu, const RowSource& source, const Tensor& ids, Tensor& out, const WorkContext& context,
                 const RowCache& cache);
void gather_rows(ops::Cuda, const RowSource& source, const Tensor& ids, Tensor& out, const WorkContext& context,
                 const RowCache& cache);

}  // namespace sgnn::sampling
