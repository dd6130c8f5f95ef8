#include <algorithm>

#include "distributed/row_ops_backend.hpp"

namespace sgnn::distributed {

void gather_rows(ops::Cpu, const Tensor& x, const Tensor& index, Tensor& out) {
  const int64_t width = x.size(1);
  const float* source = x.data<float>();
  const int32_t* ids = index.data<int32_t>();
  float* destination = out.data<float>();
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < index.numel(); ++i) {
    std::copy_n(source + ids[i] * width, width, destination + i * width);
  }
}

void scatter_add_rows(ops::Cpu, Tensor& target, const Tensor& index, const Tensor& rows) {
  const int64_t width = target.size(1);
  float* destination = target.data<float>();
  const int32_t* ids = index.data<int32_t>();
  const float* source = rows.data<float>();
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < index.numel(); ++i) {
    float* out = destination + ids[i] * width;
    const float* in = source + i * width;
    for (int64_t j = 0; j < width; ++j) out[j] += in[j];
  }
}

}  // namespace sgnn::distributed
