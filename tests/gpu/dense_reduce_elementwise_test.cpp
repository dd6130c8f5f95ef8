#include <doctest/doctest.h>

#include "ops/elementwise.hpp"
#include "ops/reduce.hpp"
#include "ops/reduce_backend.hpp"
#include "ops/shape.hpp"
#include "ops/shape_backend.hpp"
#include "tests/support/gpu_testing.hpp"
#include "tests/support/testing.hpp"

using namespace sgnn;
using namespace sgnn::testing;

TEST_CASE("GPU axis sums match the CPU backend, split (two-pass) and short-axis layouts, empty extents included") {
  // Short axes (a thread per output): rows ({100000, 8, 1}, {3000, 41, 1},
  // {1000, 64, 1}), columns ({2000, 8, 16}, {20000, 1, 41}: a mean over one
  // head), and just past the limits ({300, 65, 1}, {5, 40, 50}, {255, 2, 1}).
  const ops::AxisLayout layouts[] = {
      {1, 1, 1},      {1, 257, 1},    {17, 3, 1},     {1, 300000, 1}, {3, 17, 5},   {1, 20000, 257},
      {2, 100000, 3}, {4000, 17, 1},  {7, 0, 3},      {1, 0, 1},      {2, 5, 33},   {100000, 8, 1},
      {256, 32, 1},   {300, 0, 1},    {3000, 41, 1},  {1000, 64, 1},  {2000, 8, 16}, {20000, 1, 41},
      {300, 65, 1},   {5, 40, 50},    {255, 2, 1}};
  for (const ops::AxisLayout& layout : layouts) {
    CAPTURE(layout.outer);
    CAPTURE(layout.extent);
    CAPTURE(layout.inner);
    const Tensor x = random_tensor({layout.outer, layout.extent, layout.inner}, 3);
    for (float factor : {1.0f, 0.25f}) {
      Tensor cpu = Tensor::empty({layout.outer, layout.inner});
      ops::sum_axis(ops::Cpu{}, x, layout, factor, cpu);
      Tensor gpu = poisoned({layout.outer, layout.inner}, kGpu);
      ops::sum_axis(ops::Cuda{}, x.to(kGpu), layout, factor, gpu);
      CHECK(relative_error(gpu, cpu) < 1e-5);
    }
    const Tensor g = random_tensor({layout.outer, layout.inner}, 4);
    Tensor spread_cpu = Tensor::empty(x.shape());
    ops::broadcast_axis(ops::Cpu{}, g, layout, 0.5f, spread_cpu);
    Tensor spread_gpu = poisoned(x.shape(), kGpu);
    ops::broadcast_axis(ops::Cuda{}, g.to(kGpu), layout, 0.5f, spread_gpu);
    CHECK(relative_error(spread_gpu, spread_cpu) < 1e-7);
  }
}

TEST_CASE("GPU sums are reproducible run to run") {
  const Tensor x = random_tensor({1, 300000, 1}, 5, -1.0, 1.0, kGpu);
  const double first = ops::sum(x).item();
  for (int i = 0; i < 3; ++i) CHECK(ops::sum(x).item() == first);
}

TEST_CASE("GPU bias add and mean record nodes whose backward matches the CPU") {
  const Tensor x0 = random_tensor({257, 17}, 6);
  const Tensor b0 = random_tensor({17}, 7);
  const Tensor g = random_tensor({17}, 8);
  Tensor x_cpu = x0.clone().set_requires_grad(true), b_cpu = b0.clone().set_requires_grad(true);
  ops::mean(ops::mul(ops::add(x_cpu, b_cpu), b_cpu), 0).backward(g);
  Tensor x_gpu = x0.to(kGpu).set_requires_grad(true), b_gpu = b0.to(kGpu).set_requires_grad(true);
  ops::mean(ops::mul(ops::add(x_gpu, b_gpu), b_gpu), 0).backward(g.to(kGpu));
  CHECK(relative_error(x_gpu.grad(), x_cpu.grad()) < 1e-5);
  CHECK(relative_error(b_gpu.grad(), b_cpu.grad()) < 1e-5);
}

TEST_CASE("GPU concat and its gradient match the CPU") {
  const Tensor a0 = random_tensor({3, 17, 2}, 9);
  const Tensor b0 = random_tensor({3, 1, 2}, 10);
  const Tensor g = random_tensor({3, 18, 2}, 11);
  Tensor a_cpu = a0.clone().set_requires_grad(true), b_cpu = b0.clone().set_requires_grad(true);
  const Tensor c_cpu = ops::concat({a_cpu, b_cpu}, 1);
  c_cpu.backward(g);
  Tensor a_gpu = a0.to(kGpu).set_requires_grad(true), b_gpu = b0.to(kGpu).set_requires_grad(true);
  const Tensor c_gpu = ops::concat({a_gpu, b_gpu}, 1);
  c_gpu.backward(g.to(kGpu));
  CHECK(relative_error(c_gpu, c_cpu) == 0.0);
  CHECK(relative_error(a_gpu.grad(), a_cpu.grad()) == 0.0);
  CHECK(relative_error(b_gpu.grad(), b_cpu.grad()) == 0.0);
}
