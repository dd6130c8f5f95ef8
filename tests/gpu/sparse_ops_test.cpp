#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <utility>

#include "ops/attention_softmax.hpp"
#include "ops/cast.hpp"
#include "ops/determinism.hpp"
#include "ops/edge_softmax.hpp"
#include "ops/edge_softmax_backend.hpp"
#include "ops/kernel_choices.hpp"
#include "ops/sddmm.hpp"
#include "ops/sddmm_backend.hpp"
#include "ops/sddmm_choice.hpp"
#include "ops/sddmm_path.hpp"
#include "ops/sparse_plan.hpp"
#include "ops/spmm.hpp"
#include "ops/spmm_backend.hpp"
#include "ops/spmm_choice.hpp"
#include "ops/vector_access.hpp"
#include "tests/support/gpu_testing.hpp"
#include "tests/support/sparse_graphs.hpp"
#include "tests/support/testing.hpp"

using namespace sgnn;
using namespace sgnn::testing;

namespace {

// Graphs of many shapes: n = 1, a single row, empty rows, random, R-MAT, and a
// hub row of 100000 entries.
std::vector<Adjacency> gpu_test_graphs() {
  return {random_graph(1, 1, 1),        random_graph(1, 0, 2),          random_graph(5, 0, 3),
          random_graph(33, 20, 4),      random_graph(1000, 9000, 5),    rmat_graph(4096, 60000, 6),
          hub_graph(100001, 100000, 77)};
}

std::vector<int64_t> widths_for(int64_t nnz) {
  if (nnz > 50000) return {1, 3, 16, 17, 64, 100, 257};
  std::vector<int64_t> all;
  for (int64_t f = 1; f <= 257; f += (f < 40 ? 1 : 27)) all.push_back(f);
  all.push_back(256);
  return all;
}

// Runs the CPU backend and the CUDA backend (output poisoned first) of an SpMM.
// tolerance: 1e-5, looser only for rows of ~1e5 entries, whose float sums
// (sequential on the CPU, in segments on the GPU) differ by ~√n·ε ≈ 2e-5.
void check_spmm(const Adjacency& cpu, const Adjacency& gpu, const Tensor& values, int64_t heads, int64_t features,
                uint64_t seed, double tolerance = 1e-5) {
  const Tensor b = random_tensor({cpu.num_cols(), heads * features}, seed);
  Tensor expected = Tensor::empty({cpu.num_rows(), heads * features});
  ops::spmm_forward(ops::Cpu{}, cpu.csr, values, heads, features, b, expected);
  Tensor got = poisoned({cpu.num_rows(), heads * features}, kGpu);
  ops::csr_spmm_into(gpu.csr, values.defined() ? values.to(kGpu) : Tensor(), heads, features, b.to(kGpu), got);
  CAPTURE(cpu.num_rows());
  CAPTURE(cpu.nnz());
  CAPTURE(heads);
  CAPTURE(features);
  CHECK(relative_error(got, expected) < tolerance);
}

// Runs the CPU and CUDA backends (output poisoned first) of sddmm_dot on
// fresh random x and y.
void check_sddmm_dot(const Adjacency& cpu, const Adjacency& gpu, int64_t heads, int64_t features, uint64_t seed) {
  const Tensor x = random_tensor({cpu.num_rows(), heads * features}, seed);
  const Tensor y = random_tensor({cpu.num_cols(), heads * features}, seed + 1);
  Tensor expected = Tensor::empty({cpu.nnz() * heads});
  ops::sddmm_dot_forward(ops::Cpu{}, cpu.csr, heads, features, x, y, expected);
  Tensor got = poisoned({cpu.nnz() * heads}, kGpu);
  ops::sddmm_dot_into(gpu.csr, heads, features, x.to(kGpu), y.to(kGpu), got);
  CAPTURE(cpu.nnz());
  CAPTURE(features);
  CAPTURE(heads);
  CHECK(relative_error(got, expected) < 1e-5);
}

}  // namespace

TEST_CASE("GPU spmm matches the CPU backend on many graphs, widths 1..257, heads 1 and 8") {
  uint64_t seed = 1000;
  for (const Adjacency& cpu : gpu_test_graphs()) {
    const Adjacency gpu = cpu.to(kGpu);
    for (int64_t features : widths_for(cpu.nnz())) {
      check_spmm(cpu, gpu, Tensor(), 1, features, ++seed);
      check_spmm(cpu, gpu, random_tensor({cpu.nnz()}, seed + 1), 1, features, seed + 2);
      seed += 2;
      if (features <= 64) check_spmm(cpu, gpu, random_tensor({cpu.nnz() * 8}, seed + 1), 8, features, seed + 2);
      seed += 2;
    }
  }
}

TEST_CASE("GPU spmm works on a misaligned view and on a CSR without a stored row order") {
  Adjacency cpu = rmat_graph(2000, 20000, 9);
  cpu.csr.row_order = Tensor();  // the plan computes its own
  const Adjacency gpu = cpu.to(kGpu);
  // Eight floats per row starting one float into the storage: float4 would be
  // misaligned, so the kernel must take its scalar path.
  const int64_t features = 8;
  const int64_t count = cpu.num_cols() * features;
  const Tensor storage = random_tensor({count + 1}, 10);
  const Tensor b = storage.narrow_rows(1, count + 1).view({cpu.num_cols(), features});
  Tensor expected = Tensor::empty({cpu.num_rows(), features});
  ops::spmm_forward(ops::Cpu{}, cpu.csr, Tensor(), 1, features, b, expected);
  const Tensor b_gpu = storage.to(kGpu).narrow_rows(1, count + 1).view({cpu.num_cols(), features});
  Tensor got = poisoned({cpu.num_rows(), features}, kGpu);
  ops::csr_spmm_into(gpu.csr, Tensor(), 1, features, b_gpu, got);
  CHECK(relative_error(got, expected) < 1e-5);
  // Three floats per row: every row start is misaligned for float4, scalar path.
  const Tensor odd = random_tensor({cpu.num_cols() * 3 + 1}, 11);
  const Tensor odd_b = odd.narrow_rows(1, cpu.num_cols() * 3 + 1).view({cpu.num_cols(), 3});
  Tensor odd_expected = Tensor::empty({cpu.num_rows(), 3});
  ops::spmm_forward(ops::Cpu{}, cpu.csr, Tensor(), 1, 3, odd_b, odd_expected);
  Tensor odd_got = poisoned({cpu.num_rows(), 3}, kGpu);
  ops::csr_spmm_into(gpu.csr, Tensor(), 1, 3,
                     odd.to(kGpu).narrow_rows(1, cpu.num_cols() * 3 + 1).view({cpu.num_cols(), 3}), odd_got);
  CHECK(relative_error(odd_got, odd_expected) < 1e-5);
}

TEST_CASE("GPU sddmm_dot and sddmm_add match the CPU backend") {
  uint64_t seed = 2000;
  for (const Adjacency& cpu : gpu_test_graphs()) {
    const Adjacency gpu = cpu.to(kGpu);
    for (int64_t features : widths_for(cpu.nnz())) {
      for (int64_t heads : {int64_t{1}, int64_t{8}}) {
        if (heads == 8 && features > 64) continue;
        check_sddmm_dot(cpu, gpu, heads, features, seed += 2);
      }
    }
    for (int64_t heads : {1, 8}) {
      const Tensor x = random_tensor({cpu.num_rows(), heads}, ++seed);
      const Tensor y = random_tensor({cpu.num_cols(), heads}, ++seed);
      Tensor expected = Tensor::empty({cpu.nnz() * heads});
      ops::sddmm_add_forward(ops::Cpu{}, cpu.csr, heads, x, y, expected);
      Tensor got = poisoned({cpu.nnz() * heads}, kGpu);
      ops::sddmm_add_forward(ops::Cuda{}, gpu.csr, heads, x.to(kGpu), y.to(kGpu), got);
      CHECK(relative_error(got, expected) < 1e-6);
    }
  }
}

// Heads 1, 8 and 32 take the interleaved layout, 3 and 64 one subwarp per (row, head).
TEST_CASE("GPU edge softmax forward and backward match the CPU backend, both layouts") {
  uint64_t seed = 3000;
  for (const Adjacency& cpu : gpu_test_graphs()) {
    const Adjacency gpu = cpu.to(kGpu);
    for (int64_t heads : {1, 3, 8, 32, 64}) {
      CAPTURE(heads);
      const Tensor scores = random_tensor({cpu.nnz() * heads}, ++seed, -30.0, 30.0);
      Tensor expected = Tensor::empty({cpu.nnz() * heads});
      ops::edge_softmax_forward(ops::Cpu{}, cpu.csr, heads, scores, expected);
      Tensor got = poisoned({cpu.nnz() * heads}, kGpu);
      ops::edge_softmax_forward(ops::Cuda{}, gpu.csr, heads, scores.to(kGpu), got);
      CAPTURE(cpu.nnz());
      CHECK(relative_error(got, expected) < 1e-5);

      const Tensor grad_out = random_tensor({cpu.nnz() * heads}, ++seed);
      Tensor grad_expected = Tensor::empty({cpu.nnz() * heads});
      ops::edge_softmax_backward(ops::Cpu{}, cpu.csr, heads, expected, grad_out, grad_expected);
      Tensor grad_got = poisoned({cpu.nnz() * heads}, kGpu);
      ops::edge_softmax_backward(ops::Cuda{}, gpu.csr, heads, expected.to(kGpu), grad_out.to(kGpu), grad_got);
      CHECK(relative_error(grad_got, grad_expected) < 1e-5);
    }
  }
}

TEST_CASE("GPU attention softmax forward and backward match the CPU backend, float32 and bfloat16") {
  // Both backends compute in float and round once to the dtype; the orders of
  // their sums differ, which may move a bfloat16 rounding by one ulp (its
  // values against float64: bf16::attention_softmax_error).
  uint64_t seed = 3500;
  for (const Adjacency& cpu : gpu_test_graphs()) {
    const Adjacency gpu = cpu.to(kGpu);
    for (int64_t heads : {1, 3, 8, 16}) {
      for (DType dtype : {DType::Float32, DType::BFloat16}) {
        CAPTURE(cpu.nnz());
        CAPTURE(heads);
        CAPTURE(dtype_name(dtype));
        const double tolerance = dtype == DType::Float32 ? 1e-5 : 2 * kBf16UnitRoundoff;
        const Tensor x = ops::cast(random_tensor({cpu.num_rows(), heads}, ++seed, -4.0, 4.0), dtype);
        const Tensor y = ops::cast(random_tensor({cpu.num_cols(), heads}, ++seed, -4.0, 4.0), dtype);
        const Shape shape{cpu.nnz(), heads};
        Tensor expected = Tensor::empty(shape, dtype);
        ops::attention_softmax_forward(ops::Cpu{}, cpu.csr, heads, 0.2f, x, y, expected);
        Tensor got = ops::cast(poisoned(shape, kGpu), dtype);
        ops::attention_softmax_forward(ops::Cuda{}, gpu.csr, heads, 0.2f, x.to(kGpu), y.to(kGpu), got);
        CHECK(relative_error(got, expected) < tolerance);

        const Tensor grad_out = ops::cast(random_tensor(shape, ++seed), dtype);
        Tensor grad_expected = Tensor::empty(shape, dtype);
        ops::attention_softmax_backward(ops::Cpu{}, cpu.csr, heads, 0.2f, x, y, expected, grad_out, grad_expected);
        Tensor grad_got = ops::cast(poisoned(shape, kGpu), dtype);
        ops::attention_softmax_backward(ops::Cuda{}, gpu.csr, heads, 0.2f, x.to(kGpu), y.to(kGpu),
                                        expected.to(kGpu), grad_out.to(kGpu), grad_got);
        CHECK(relative_error(grad_got, grad_expected) < tolerance);
      }
    }
  }
}

TEST_CASE("GPU spmm reads bfloat16 edge values as float: the widened values' bits, forward and both gradients") {
  // bfloat16 → float is exact, so the kernels must give what the float32
  // copy of the same values gives, bit for bit: C and dB (weights gathered
  // into Aᵀ's order in either dtype) and the values' gradient (the same
  // SDDMM's float sums, rounded once to bfloat16). Deterministic mode: split
  // rows sum in a fixed order in both runs.
  const ops::DeterministicScope ordered(true);
  uint64_t seed = 3900;
  for (const Adjacency& cpu : {rmat_graph(3000, 40000, 31), hub_graph(100001, 100000, 32)}) {
    const Adjacency gpu = cpu.to(kGpu);
    for (const DType dtype : {DType::Float32, DType::BFloat16}) {
      for (const int64_t heads : {int64_t{1}, int64_t{8}}) {
        CAPTURE(cpu.nnz());
        CAPTURE(dtype_name(dtype));
        CAPTURE(heads);
        const int64_t features = 16;
        const Shape value_shape = heads == 1 ? Shape{cpu.nnz()} : Shape{cpu.nnz(), heads};
        const Shape b_shape = heads == 1 ? Shape{cpu.num_cols(), features} : Shape{cpu.num_cols(), heads, features};
        const Tensor values = ops::cast(random_tensor(value_shape, ++seed), DType::BFloat16).to(kGpu);
        const Tensor b = ops::cast(random_tensor(b_shape, ++seed), dtype).to(kGpu);
        Shape c_shape = b_shape;
        c_shape[0] = cpu.num_rows();
        const Tensor upstream = ops::cast(random_tensor(c_shape, ++seed), dtype).to(kGpu);
        std::vector<Tensor> results;
        for (const DType value_dtype : {DType::BFloat16, DType::Float32}) {
          Tensor v = ops::cast(values, value_dtype).set_requires_grad(true);
          Tensor bb = b.clone().set_requires_grad(true);
          const Tensor c = ops::spmm(gpu, v, bb);
          c.backward(upstream);
          results.push_back(c.detach());
          results.push_back(bb.grad());
          results.push_back(v.grad());
        }
        CHECK(results[2].dtype() == DType::BFloat16);
        const auto host = [](const Tensor& t) { return to_double(t.to(Device::cpu())); };
        CHECK(host(results[0]) == host(results[3]));
        CHECK(host(results[1]) == host(results[4]));
        CHECK(host(results[2]) == host(ops::cast(results[5], DType::BFloat16)));
        CHECK(relative_error(results[0], ops::spmm(cpu, values.to(Device::cpu()), b.to(Device::cpu())).to(kGpu)) <
              (dtype == DType::Float32 ? 1e-5 : 1e-2));
      }
    }
  }
}

TEST_CASE("GPU sddmm at widths without whole 16-byte vectors: the direct and the padded path match the CPU") {
  // Which path runs is the graph's recorded choice (timed where timing
  // pays); recording it here runs each path on the same inputs.
  uint64_t seed = 4100;
  for (const Adjacency& cpu : {rmat_graph(3000, 40000, 41), hub_graph(100001, 100000, 42)}) {
    const Adjacency gpu = cpu.to(kGpu);
    const auto plan = ops::sparse_plan(gpu.csr);
    for (const DType dtype : {DType::Float32, DType::BFloat16}) {
      for (const int64_t heads : {int64_t{1}, int64_t{2}}) {
        for (const int64_t features : {int64_t{3}, int64_t{41}}) {
          const Tensor x = ops::cast(random_tensor({cpu.num_rows(), heads * features}, ++seed), dtype);
          const Tensor y = ops::cast(random_tensor({cpu.num_cols(), heads * features}, ++seed), dtype);
          Tensor expected = Tensor::empty({cpu.nnz() * heads});
          ops::sddmm_dot_forward(ops::Cpu{}, cpu.csr, heads, features, x, y, expected);
          // The call's one key: the direct kernel, or "padded" and the padded width's kernel.
          const std::string key = ops::sddmm_choice_key(heads, features, false, dtype);
          const int64_t padded = ops::padded_width(features, ops::vector_elements(dtype));
          const std::string direct = ops::sddmm_candidates(gpu.csr, features, false, dtype).front().name();
          const std::string on_padded = "padded " + ops::sddmm_candidates(gpu.csr, padded, true, dtype).front().name();
          for (const std::string& path : {direct, on_padded}) {
            CAPTURE(cpu.nnz());
            CAPTURE(dtype_name(dtype));
            CAPTURE(heads);
            CAPTURE(features);
            CAPTURE(path);
            plan->choices->set(key, path);
            Tensor got = poisoned({cpu.nnz() * heads}, kGpu);
            ops::sddmm_dot_into(gpu.csr, heads, features, x.to(kGpu), y.to(kGpu), got);
            CHECK(relative_error(got, expected) < 1e-5);
            CHECK(plan->choices->find(key) == path);
          }
        }
      }
    }
  }
}

TEST_CASE("GPU sparse ops: autograd backward matches the CPU, gradients of every input") {
  const Adjacency cpu = rmat_graph(3000, 40000, 21);
  const Adjacency gpu = cpu.to(kGpu);
  for (int64_t heads : {1, 8}) {
    const int64_t features = 17;
    const Tensor values = random_tensor({cpu.nnz(), heads}, 22);
    const Tensor nodes = random_tensor({cpu.num_rows(), heads}, 23);
    const Tensor b = random_tensor({cpu.num_cols(), heads, features}, 24);
    const Tensor weights = random_tensor({cpu.num_rows(), heads, features}, 25);
    std::vector<Tensor> grads[2];
    for (int side = 0; side < 2; ++side) {
      const Adjacency& a = side == 0 ? cpu : gpu;
      const Device device = side == 0 ? Device::cpu() : kGpu;
      Tensor v = values.clone().to(device).set_requires_grad(true);
      Tensor u = nodes.clone().to(device).set_requires_grad(true);
      Tensor bb = b.clone().to(device).set_requires_grad(true);
      const Tensor w = weights.to(device);
      ops::spmm(a, v, bb).backward(w);
      ops::spmm(a, ops::edge_softmax(a, ops::sddmm_add(a, u, u)), bb).backward(w);
      ops::spmm(a, ops::edge_softmax(a, ops::sddmm_dot(a, bb, bb)), bb).backward(w);
      ops::spmm(a, ops::attention_softmax(a, u, u, 0.2f), bb).backward(w);
      grads[side] = {v.grad(), u.grad(), bb.grad()};
    }
    CAPTURE(heads);
    for (std::size_t i = 0; i < 3; ++i) CHECK(relative_error(grads[1][i], grads[0][i]) < 1e-4);
  }
}

TEST_CASE("GPU spmm and sddmm split a hub row of 100000 entries into many segments, heads 1 and 8") {
  const Adjacency cpu = hub_graph(100001, 100000, 5);
  const Adjacency gpu = cpu.to(kGpu);
  const auto plan = ops::sparse_plan(gpu.csr);
  REQUIRE(plan->num_split_rows == 1);
  CHECK(plan->split_segments >= 100000 / plan->segment_length);
  uint64_t seed = 5000;
  for (bool ordered : {false, true}) {
    const ops::DeterministicScope scope(ordered);
    for (int64_t heads : {int64_t{1}, int64_t{8}}) {
      for (int64_t features : {int64_t{3}, int64_t{16}, int64_t{33}}) {
        CAPTURE(ordered);
        seed += 2;
        check_spmm(cpu, gpu, random_tensor({cpu.nnz() * heads}, seed), heads, features, seed + 1, 1e-4);
        check_sddmm_dot(cpu, gpu, heads, features, seed += 2);
      }
    }
  }
}

TEST_CASE("GPU spmm in deterministic mode gives bit-identical results across runs") {
  const ops::DeterministicScope scope(true);
  for (const Adjacency& cpu : {hub_graph(100001, 100000, 9), rmat_graph(20000, 400000, 61)}) {
    const Adjacency gpu = cpu.to(kGpu);
    REQUIRE(ops::sparse_plan(gpu.csr)->num_split_rows > 0);  // the ordered reduction is exercised
    // Widths above 128 run as several feature tiles, each with its own partials.
    for (const auto& [heads, features] : {std::pair<int64_t, int64_t>{1, 16}, {8, 16}, {1, 260}, {2, 132}}) {
      const Tensor values = random_tensor({cpu.nnz() * heads}, 62, -1.0, 1.0, kGpu);
      const Tensor b = random_tensor({cpu.num_cols(), heads * features}, 63, -1.0, 1.0, kGpu);
      std::vector<float> runs[2];
      for (auto& run : runs) {
        Tensor c = poisoned({cpu.num_rows(), heads * features}, kGpu);
        ops::csr_spmm_into(gpu.csr, values, heads, features, b, c);
        run = c.to_vector<float>();
      }
      CAPTURE(heads);
      CAPTURE(features);
      CHECK(runs[0] == runs[1]);
      Tensor expected = Tensor::empty({cpu.num_rows(), heads * features});
      ops::spmm_forward(ops::Cpu{}, cpu.csr, values.to(Device::cpu()), heads, features, b.to(Device::cpu()),
                        expected);
      CHECK(relative_error(Tensor::from_vector(runs[0], expected.shape()), expected) < 1e-5);
    }
  }
}

TEST_CASE("GPU sparse plan is computed once per graph and reused") {
  const Adjacency gpu = rmat_graph(1000, 8000, 31).to(kGpu);
  const Tensor b = random_tensor({1000, 16}, 32, -1.0, 1.0, kGpu);
  (void)ops::spmm(gpu, b);
  const int64_t built = ops::sparse_plans_built();
  for (int i = 0; i < 5; ++i) (void)ops::spmm(gpu, b);
  (void)ops::sddmm_dot(gpu, b, b);
  CHECK(ops::sparse_plans_built() == built);
}

TEST_CASE("GPU sparse ops refuse tensors on another device") {
  const Adjacency cpu = random_graph(10, 30, 41);
  const Adjacency gpu = cpu.to(kGpu);
  const Tensor b = random_tensor({10, 4}, 42);
  CHECK_THROWS_AS(ops::spmm(gpu, b), InvalidArgument);
  CHECK_THROWS_AS(ops::spmm(cpu, b.to(kGpu)), InvalidArgument);
  CHECK_THROWS_AS(ops::spmm(gpu, random_tensor({cpu.nnz()}, 43), b.to(kGpu)), InvalidArgument);
  CHECK_THROWS_AS(ops::sddmm_dot(gpu, b.to(kGpu), b), InvalidArgument);
  CHECK_THROWS_AS(ops::sddmm_add(gpu, random_tensor({10, 2}, 44), random_tensor({10, 2}, 44, -1.0, 1.0, kGpu)),
                  InvalidArgument);
  CHECK_THROWS_AS(ops::edge_softmax(gpu, random_tensor({cpu.nnz()}, 45)), InvalidArgument);
}
