// Multi-tensor Adam on the GPU against single-tensor Adam on the CPU: more
// tensors than one launch takes (32), sizes 0, 1, odd and large.
#include <doctest/doctest.h>

#include "ops/optimizer_step.hpp"
#include "tests/support/gpu_testing.hpp"
#include "tests/support/testing.hpp"

using namespace sgnn;
using namespace sgnn::testing;

TEST_CASE("adam_step_many on CUDA matches adam_step on the CPU for 40 tensors over 3 steps") {
  ops::AdamHyperparameters plain;
  plain.learning_rate = 0.01f;
  plain.weight_decay = 5e-4f;
  ops::AdamHyperparameters decoupled = plain;
  decoupled.decoupled_weight_decay = true;
  const int count = 40;
  std::vector<Tensor> cpu_p, gpu_p, cpu_g, gpu_g, cpu_m(count), cpu_v(count), gpu_m(count), gpu_v(count);
  for (int i = 0; i < count; ++i) {
    const int64_t n = i == 0 ? 0 : i == 1 ? 1 : i == 2 ? 100003 : 17 * i + 3;
    cpu_p.push_back(random_tensor({n}, static_cast<uint64_t>(i)));
    gpu_p.push_back(cpu_p.back().to(kGpu));
    cpu_g.push_back(random_tensor({n}, static_cast<uint64_t>(100 + i)));
    gpu_g.push_back(cpu_g.back().to(kGpu));
  }
  for (int64_t step = 1; step <= 3; ++step) {
    std::vector<ops::AdamUpdate> updates;
    for (int i = 0; i < count; ++i) {
      const ops::AdamHyperparameters& hyper = i % 3 == 0 ? decoupled : plain;
      ops::adam_step(cpu_p[static_cast<std::size_t>(i)], cpu_g[static_cast<std::size_t>(i)],
                     cpu_m[static_cast<std::size_t>(i)], cpu_v[static_cast<std::size_t>(i)], step, hyper);
      updates.push_back(ops::AdamUpdate{&gpu_p[static_cast<std::size_t>(i)], &gpu_g[static_cast<std::size_t>(i)],
                                        &gpu_m[static_cast<std::size_t>(i)], &gpu_v[static_cast<std::size_t>(i)],
                                        hyper, step, nullptr});
    }
    ops::adam_step_many(updates);
  }
  for (std::size_t i = 0; i < static_cast<std::size_t>(count); ++i) {
    CAPTURE(i);
    CHECK(gpu_p[i].device() == kGpu);
    CHECK(relative_error(gpu_p[i], cpu_p[i]) < 1e-6);
    CHECK(relative_error(gpu_m[i], cpu_m[i]) < 1e-6);
    CHECK(relative_error(gpu_v[i], cpu_v[i]) < 1e-6);
  }
}

TEST_CASE("adam_step_many refuses tensors on two devices") {
  Tensor a = random_tensor({3}, 1).to(kGpu);
  Tensor b = random_tensor({3}, 2);
  const Tensor ga = random_tensor({3}, 3).to(kGpu);
  const Tensor gb = random_tensor({3}, 4);
  Tensor ma, va, mb, vb;
  const std::vector<ops::AdamUpdate> mixed{ops::AdamUpdate{&a, &ga, &ma, &va, {}, 1, nullptr},
                                           ops::AdamUpdate{&b, &gb, &mb, &vb, {}, 1, nullptr}};
  CHECK_THROWS_AS(ops::adam_step_many(mixed), InvalidArgument);
}
