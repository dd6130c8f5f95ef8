// One ops::spmm(A, b) forward and backward on fresh random inputs, for tests
// that compare two adjacencies standing for the same matrix bit for bit.
#pragma once

#include <utility>
#include <vector>

#include "core/adjacency.hpp"
#include "ops/cast.hpp"
#include "ops/spmm.hpp"
#include "tests/support/testing.hpp"

namespace sgnn::testing {

// C = A·b and b's gradient for C's gradient g (b and g uniform in [-1, 1)
// from the seeds, in `dtype` on the adjacency's device), both widened to float32.
inline std::pair<std::vector<float>, std::vector<float>> spmm_outputs(const Adjacency& adjacency, int64_t width,
                                                                      DType dtype, uint64_t seed) {
  const Device device = adjacency.device();
  Tensor b = ops::cast(random_tensor({adjacency.num_cols(), width}, seed, -1.0, 1.0, device), dtype);
  b.set_requires_grad(true);
  const Tensor c = ops::spmm(adjacency, b);
  c.backward(ops::cast(random_tensor({adjacency.num_rows(), width}, seed + 1, -1.0, 1.0, device), dtype));
  return {ops::cast(c.detach(), DType::Float32).to_vector<float>(),
          ops::cast(b.grad(), DType::Float32).to_vector<float>()};
}

}  // namespace sgnn::testing
