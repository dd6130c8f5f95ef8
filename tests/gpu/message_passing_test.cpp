#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/autograd.hpp"
#include "ops/cast.hpp"
#include "ops/choice_keys.hpp"
#include "ops/determinism.hpp"
#include "ops/dropout.hpp"
#include "ops/elementwise.hpp"
#include "ops/gatv2_attention.hpp"
#include "ops/gatv2_backend.hpp"
#include "ops/gsddmm.hpp"
#include "ops/gspmm.hpp"
#include "ops/gspmm_backend.hpp"
#include "ops/kernel_choices.hpp"
#include "ops/kernel_timer.hpp"
#include "ops/math.hpp"
#include "ops/reduce.hpp"
#include "ops/spmm.hpp"
#include "tests/support/gpu_testing.hpp"
#include "tests/support/message_references.hpp"
#include "tests/support/sparse_graphs.hpp"
#include "tests/support/testing.hpp"

using namespace sgnn;
using namespace sgnn::testing;
using ops::BinaryKind;
using ops::FeatureLayout;
using ops::MessageKind;
using ops::ReduceKind;
using ops::Target;

namespace {

// n = 1, empty rows, random, R-MAT, a hub row of 100000 entries (split into segments).
std::vector<Adjacency> message_graphs() {
  return {random_graph(1, 1, 1), random_graph(5, 0, 3), random_graph(33, 20, 4), random_graph(1000, 9000, 5),
          rmat_graph(4096, 60000, 6), hub_graph(100001, 100000, 77)};
}

// Forward on both devices (the GPU's output poisoned), and the gradients of
// Σ w ⊙ out for every input that requires them.
void check_gspmm(const Adjacency& cpu, const Adjacency& gpu, MessageKind message, ReduceKind reduce, const Tensor& u,
                 const Tensor& e, double tolerance) {
  const bool uses_u = ops::message_uses_u(message), uses_e = ops::message_uses_e(message);
  Tensor u_cpu = uses_u ? u.clone().set_requires_grad(true) : Tensor();
  Tensor e_cpu = uses_e ? e.clone().set_requires_grad(true) : Tensor();
  Tensor u_gpu = uses_u ? u.to(kGpu).set_requires_grad(true) : Tensor();
  Tensor e_gpu = uses_e ? e.to(kGpu).set_requires_grad(true) : Tensor();
  const Tensor expected = ops::gspmm(cpu, message, reduce, u_cpu, e_cpu);
  const Tensor got = ops::gspmm(gpu, message, reduce, u_gpu, e_gpu);
  CHECK(relative_error(got, expected) < tolerance);
  const Tensor weights = random_tensor(expected.shape(), 99);
  ops::sum(ops::mul(expected, weights)).backward();
  ops::sum(ops::mul(got, weights.to(kGpu))).backward();
  if (uses_u) CHECK(relative_error(u_gpu.grad(), u_cpu.grad()) < tolerance);
  if (uses_e) CHECK(relative_error(e_gpu.grad(), e_cpu.grad()) < tolerance);
}

// relative_error against a norm of at least 1: ‖got − want‖ / max(‖want‖, 1).
double floored_relative_error(const Tensor& got, const Tensor& want) {
  double norm = 0.0;
  for (const double value : to_double(want)) norm += value * value;
  norm = std::sqrt(norm);
  const double error = relative_error(got, want);  // ‖got − want‖ / ‖want‖, or ‖got − want‖ when want = 0
  return norm > 0.0 ? error * norm / std::max(norm, 1.0) : error;
}

// Records `path` ("fused" or "composed") as gatv2_aggregate's choice for
// this shape on `gpu`, for calls with and without gradients.
void force_gatv2_path(const Adjacency& gpu, int64_t heads, int64_t features, DType dtype, const std::string& path) {
  ops::import_kernel_choices(gpu.csr, {{ops::gatv2_choice_key(heads, features, dtype, true), path},
                                       {ops::gatv2_choice_key(heads, features, dtype, false), path}});
}

// The choice's text for the fused layout of `lanes` per head.
std::string fused_path_name(int lanes, const std::vector<int>& layouts) {
  return lanes == layouts.front() ? "fused" : "fused " + std::to_string(lanes) + " lanes per head";
}

bool has_key_starting(const ops::KernelChoiceMap& choices, const std::string& prefix) {
  return std::any_of(choices.begin(), choices.end(), [&](const auto& entry) { return entry.first.starts_with(prefix); });
}

}  // namespace

TEST_CASE("gspmm on CUDA matches the CPU backend: every message and reduction, widths, heads, broadcasts") {
  const std::vector<std::pair<Shape, Shape>> shapes = {{{1}, {}},       {{3}, {}},        {{16}, {1}},
                                                       {{17}, {17}},    {{64}, {}},       {{4, 8}, {4, 1}},
                                                       {{4, 8}, {4, 8}}, {{8, 1}, {8, 16}}, {{256}, {256}}};
  uint64_t seed = 500;
  for (const Adjacency& cpu : message_graphs()) {
    const Adjacency gpu = cpu.to(kGpu);
    // Rows of ~1e5 entries: float sums in segments on the GPU, in one run on the CPU.
    const double tolerance = cpu.nnz() > 50000 ? 3e-5 : 1e-5;
    for (const auto& [u_shape, e_shape] : shapes) {
      // On the large graphs (the CPU reference is slow there) one weighted and one per-head form.
      if (cpu.nnz() > 50000 && u_shape != Shape{64} && e_shape != Shape{4, 1}) continue;
      const Tensor u = random_tensor(with_rows(cpu.num_cols(), u_shape), ++seed);
      const Tensor e = away_from_zero(with_rows(cpu.nnz(), e_shape), ++seed);
      for (MessageKind message : {MessageKind::CopyU, MessageKind::CopyE, MessageKind::UMulE, MessageKind::UAddE,
                                  MessageKind::USubE, MessageKind::UDivE}) {
        for (ReduceKind reduce : {ReduceKind::Sum, ReduceKind::Mean, ReduceKind::Max, ReduceKind::Min}) {
          CAPTURE(cpu.nnz());
          CAPTURE(ops::message_kind_name(message));
          CAPTURE(ops::reduce_kind_name(reduce));
          CAPTURE(shape_str(u.shape()));
          CAPTURE(shape_str(e.shape()));
          check_gspmm(cpu, gpu, message, reduce, u, e, tolerance);
        }
      }
    }
  }
}

TEST_CASE("gspmm max/min on CUDA pick the same winners as the CPU, with poisoned outputs") {
  for (const Adjacency& cpu : message_graphs()) {
    const Adjacency gpu = cpu.to(kGpu);
    for (int64_t width : {1, 8, 33, 128}) {
      // Few distinct values: many ties, which must go to the first entry on both devices.
      std::vector<float> values(static_cast<std::size_t>(cpu.num_cols() * width));
      for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>((i * 7919) % 5) - 2.0f;
      const Tensor u = Tensor::from_vector(values, {cpu.num_cols(), width});
      for (ReduceKind reduce : {ReduceKind::Max, ReduceKind::Min}) {
        ops::GspmmOperands operands;
        operands.message = MessageKind::CopyU;
        operands.reduce = reduce;
        operands.features = width;
        operands.u_layout = FeatureLayout{width, 0, 1};
        operands.u = u;
        Tensor expected = Tensor::empty({cpu.num_rows(), width});
        Tensor expected_argument = Tensor::empty({cpu.num_rows(), width}, DType::Int32);
        ops::gspmm_forward(ops::Cpu{}, cpu.csr, operands, expected, expected_argument);
        operands.u = u.to(kGpu);
        Tensor got = poisoned({cpu.num_rows(), width}, kGpu);
        Tensor got_argument = Tensor::full({cpu.num_rows(), width}, 12345, DType::Int32, kGpu);
        ops::gspmm_forward(ops::Cuda{}, gpu.csr, operands, got, got_argument);
        CAPTURE(cpu.nnz());
        CAPTURE(width);
        CHECK(got.to_vector<float>() == expected.to_vector<float>());
        CHECK(got_argument.to_vector<int32_t>() == expected_argument.to_vector<int32_t>());
      }
    }
  }
}

TEST_CASE("gspmm max/min's values-only kernel on CUDA: NaN messages win, zeros and infinities as on the CPU") {
  // Special values among ordinary ones, so that rows (and a hub row's
  // segments) mix them: a NaN anywhere in a row's messages makes its output
  // NaN, -0 and +0 compare equal, infinities are ordinary extremes.
  const std::vector<float> specials = {std::numeric_limits<float>::quiet_NaN(), -0.0f, 0.0f,
                                       std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity()};
  for (const Adjacency& cpu : message_graphs()) {
    for (int64_t width : {1, 8, 32, 128}) {
      std::vector<float> values(static_cast<std::size_t>(cpu.num_cols() * width));
      for (std::size_t i = 0; i < values.size(); ++i) {
        const std::size_t pick = (i * 2654435761u) % 997;
        values[i] = pick < specials.size() ? specials[pick] : static_cast<float>(pick % 13) - 6.0f;
      }
      const Tensor u = Tensor::from_vector(values, {cpu.num_cols(), width});
      const Tensor weights = random_tensor({cpu.nnz()}, 31);  // u_mul_e with one weight per entry
      // Each launch the timed choice picks among (ops/cuda/gspmm.cu: heavy and
      // light tiles, each in both orders of the work items), forced on a
      // graph of its own.
      const Adjacency probe = cpu.to(kGpu);
      ops::GspmmOperands operands;
      operands.features = width;
      operands.u = u.to(kGpu);
      operands.u_layout = ops::FeatureLayout{width, width, 1};
      const std::vector<std::string> launches = ops::gspmm_extreme_launches(ops::Cuda{}, probe.csr, operands);
      const auto light = std::count_if(launches.begin(), launches.end(),
                                       [](const std::string& name) { return name.rfind("light", 0) == 0; });
      CAPTURE(width);
      // 8, 16, 32 lanes at 128 (8 and 16 also in slices); 8 at 32; 8 lanes under
      // 32, 40 and 64 registers, and at 128 two accesses a lane in slices; each in two orders.
      CHECK(light == (width == 128 ? 20 : width == 32 ? 6 : 0));
      CHECK(std::count(launches.begin(), launches.end(), "light40 8 rows") == (width >= 32 ? 1 : 0));
      CHECK(std::count(launches.begin(), launches.end(), "light64 8x2 slices plan") == (width == 128 ? 1 : 0));
      for (const std::string& order : launches) {
        const Adjacency gpu = cpu.to(kGpu);
        ops::import_kernel_choices(gpu.csr, {{ops::gspmm_extreme_choice_key(1, width, DType::Float32, width % 4 == 0),
                                              order}});
        for (ReduceKind reduce : {ReduceKind::Max, ReduceKind::Min}) {
          for (MessageKind message : {MessageKind::CopyU, MessageKind::UMulE}) {
            const Tensor e = message == MessageKind::UMulE ? weights : Tensor();
            const std::vector<float> expected = ops::gspmm(cpu, message, reduce, u, e).to_vector<float>();
            const std::vector<float> got =
                ops::gspmm(gpu, message, reduce, u.to(kGpu), e.defined() ? e.to(kGpu) : Tensor()).to_vector<float>();
            REQUIRE(got.size() == expected.size());
            int64_t mismatches = 0, nans = 0;
            for (std::size_t i = 0; i < got.size(); ++i) {
              nans += std::isnan(expected[i]) ? 1 : 0;
              const bool same = std::isnan(expected[i]) ? std::isnan(got[i]) : got[i] == expected[i];
              mismatches += same ? 0 : 1;
            }
            CAPTURE(cpu.nnz());
            CAPTURE(width);
            CAPTURE(order);
            CHECK(mismatches == 0);
            if (cpu.nnz() > 1000) CHECK(nans > 0);  // the case exercises the NaN rule
          }
        }
      }
    }
  }
}

TEST_CASE("gspmm max/min's values-only kernel on CUDA: split rows whose extremes lie on either side of zero") {
  // The segments of a split row meet in the output with integer atomics
  // (gspmm_kernel.cuh's atomic_extreme), a different one for each sign of
  // the value: here the maxima are negative and the minima positive, then
  // (the second pass) values of random sign, as training sees them.
  for (const auto& [cpu, width] : std::vector<std::pair<Adjacency, int64_t>>{
           {rmat_graph(4096, 60000, 6), 32}, {hub_graph(100001, 100000, 77), 32}, {rmat_graph(4096, 60000, 6), 128}}) {
    const Tensor magnitudes =
        ops::add(ops::abs(random_tensor({cpu.num_cols(), width}, 41)), Tensor::full({cpu.num_cols(), width}, 1.0));
    const Tensor mixed = random_tensor({cpu.num_cols(), width}, 42);
    const Adjacency probe = cpu.to(kGpu);
    ops::GspmmOperands operands;
    operands.features = width;
    operands.u = magnitudes.to(kGpu);
    operands.u_layout = ops::FeatureLayout{width, width, 1};
    for (const auto& [reduce, u] : std::vector<std::pair<ReduceKind, Tensor>>{
             {ReduceKind::Max, ops::neg(magnitudes)}, {ReduceKind::Min, magnitudes},
             {ReduceKind::Max, mixed}, {ReduceKind::Min, mixed}}) {
      const std::vector<float> expected = ops::gspmm(cpu, MessageKind::CopyU, reduce, u, Tensor()).to_vector<float>();
      for (const std::string& order : ops::gspmm_extreme_launches(ops::Cuda{}, probe.csr, operands)) {
        const Adjacency gpu = cpu.to(kGpu);
        ops::import_kernel_choices(gpu.csr, {{ops::gspmm_extreme_choice_key(1, width, DType::Float32, true), order}});
        CAPTURE(cpu.nnz());
        CAPTURE(order);
        CAPTURE(ops::reduce_kind_name(reduce));
        CHECK(ops::gspmm(gpu, MessageKind::CopyU, reduce, u.to(kGpu), Tensor()).to_vector<float>() == expected);
      }
    }
  }
}

TEST_CASE("gspmm max/min backward in deterministic mode on CUDA: the same bits every run, close to the CPU") {
  // Column 0 holds the extreme of every row that reaches it (R-MAT's most
  // popular column, thousands of rows): by default those outputs meet at
  // grad_u's row 0 with atomics in a varying order; deterministic mode sums
  // them in output order.
  const Adjacency cpu = rmat_graph(4096, 60000, 91);
  const Adjacency gpu = cpu.to(kGpu);
  uint64_t seed = 9100;
  for (ReduceKind reduce : {ReduceKind::Max, ReduceKind::Min}) {
    std::vector<float> values = random_tensor({cpu.num_cols(), 3, 4}, ++seed).to_vector<float>();
    for (int k = 0; k < 12; ++k) values[static_cast<std::size_t>(k)] = reduce == ReduceKind::Max ? 50.0f : -50.0f;
    const Tensor u = Tensor::from_vector(values, {cpu.num_cols(), 3, 4});
    const Tensor e = random_tensor({cpu.nnz(), 3, 1}, ++seed, 0.5, 1.5);
    const Tensor weights = random_tensor({cpu.num_rows(), 3, 4}, ++seed);
    for (MessageKind message : {MessageKind::CopyU, MessageKind::UMulE}) {
      CAPTURE(ops::reduce_kind_name(reduce));
      CAPTURE(ops::message_kind_name(message));
      const bool with_e = message == MessageKind::UMulE;
      const auto gradients = [&](const Adjacency& a, Device device) {
        Tensor uu = u.to(device).set_requires_grad(true);
        Tensor ee = with_e ? e.to(device).set_requires_grad(true) : Tensor();
        ops::gspmm(a, message, reduce, uu, ee).backward(weights.to(device));
        return std::vector<Tensor>{uu.grad().to(Device::cpu()), with_e ? ee.grad().to(Device::cpu()) : Tensor()};
      };
      const std::vector<Tensor> expected = gradients(cpu, Device::cpu());
      const ops::DeterministicScope ordered(true);
      const std::vector<Tensor> first = gradients(gpu, kGpu);
      for (int run = 0; run < 3; ++run) {
        const std::vector<Tensor> again = gradients(gpu, kGpu);
        CAPTURE(run);
        CHECK(relative_error(again[0], first[0]) == 0.0);
        if (with_e) CHECK(relative_error(again[1], first[1]) == 0.0);
      }
      CHECK(relative_error(first[0], expected[0]) < 1e-5);
      if (with_e) CHECK(relative_error(first[1], expected[1]) < 1e-5);
    }
  }
}

TEST_CASE("gspmm in bfloat16 on CUDA is within a rounding of the CPU backend") {
  for (const Adjacency& cpu : message_graphs()) {
    const Adjacency gpu = cpu.to(kGpu);
    const Tensor u = ops::cast(random_tensor({cpu.num_cols(), 2, 32}, 71), DType::BFloat16);
    const Tensor e = ops::cast(away_from_zero({cpu.nnz(), 2, 1}, 72), DType::BFloat16);
    for (MessageKind message : {MessageKind::CopyU, MessageKind::UMulE, MessageKind::UAddE}) {
      for (ReduceKind reduce : {ReduceKind::Sum, ReduceKind::Mean, ReduceKind::Max}) {
        CAPTURE(cpu.nnz());
        CAPTURE(ops::message_kind_name(message));
        CAPTURE(ops::reduce_kind_name(reduce));
        const Tensor e_arg = message == MessageKind::CopyU ? Tensor() : e;
        const Tensor expected = ops::gspmm(cpu, message, reduce, u, e_arg);
        const Tensor got = ops::gspmm(gpu, message, reduce, u.to(kGpu), e_arg.defined() ? e_arg.to(kGpu) : Tensor());
        CHECK(got.dtype() == DType::BFloat16);
        // Each output is one rounding of a float result; float sums in another
        // order may round to the neighbouring bfloat16.
        CHECK(relative_error(got, expected) < 2 * kBf16UnitRoundoff);
      }
    }
  }
}

TEST_CASE("gsddmm on CUDA matches the CPU backend for every operation and target pair, poisoned outputs") {
  uint64_t seed = 700;
  for (const Adjacency& cpu : message_graphs()) {
    const Adjacency gpu = cpu.to(kGpu);
    for (const auto& [lhs_shape, rhs_shape] : std::vector<std::pair<Shape, Shape>>{
             {{1}, {1}}, {{17}, {17}}, {{4, 8}, {4, 8}}, {{4, 8}, {4, 1}}, {{256}, {256}}, {{}, {}}}) {
      if (cpu.nnz() > 50000 && lhs_shape != Shape{17} && rhs_shape != Shape{4, 1}) continue;  // the slow CPU side
      for (Target lhs_target : {Target::U, Target::V, Target::E}) {
        for (Target rhs_target : {Target::U, Target::V, Target::E}) {
          const auto rows = [&](Target t) { return t == Target::U ? cpu.num_cols() : t == Target::V ? cpu.num_rows() : cpu.nnz(); };
          const Tensor x = away_from_zero(with_rows(rows(lhs_target), lhs_shape), ++seed);
          const Tensor y = away_from_zero(with_rows(rows(rhs_target), rhs_shape), ++seed);
          for (BinaryKind op : {BinaryKind::Dot, BinaryKind::Add, BinaryKind::Sub, BinaryKind::Mul, BinaryKind::Div,
                                BinaryKind::CopyLhs, BinaryKind::CopyRhs}) {
            if (op == BinaryKind::Dot && lhs_shape != rhs_shape) continue;
            CAPTURE(cpu.nnz());
            CAPTURE(ops::binary_kind_name(op));
            CAPTURE(ops::target_name(lhs_target));
            CAPTURE(ops::target_name(rhs_target));
            CAPTURE(shape_str(x.shape()));
            const Tensor lhs = op == BinaryKind::CopyRhs ? Tensor() : x;
            const Tensor rhs = op == BinaryKind::CopyLhs ? Tensor() : y;
            const Tensor expected = ops::gsddmm(cpu, op, lhs, rhs, lhs_target, rhs_target);
            const Tensor got = ops::gsddmm(gpu, op, lhs.defined() ? lhs.to(kGpu) : Tensor(),
                                           rhs.defined() ? rhs.to(kGpu) : Tensor(), lhs_target, rhs_target);
            CHECK(relative_error(got, expected) < 1e-5);
          }
        }
      }
    }
  }
}

TEST_CASE("gsddmm's generalized kernel writes every output element on CUDA") {
  const Adjacency cpu = rmat_graph(4096, 60000, 81);
  const Adjacency gpu = cpu.to(kGpu);
  for (int64_t width : {1, 5, 8, 100, 256}) {
    ops::GsddmmOperands operands;
    operands.op = BinaryKind::Add;
    operands.features = width;
    operands.lhs = random_tensor({cpu.num_rows(), width}, 82);
    operands.lhs_layout = FeatureLayout{width, 0, 1};
    operands.lhs_target = Target::V;
    operands.rhs = random_tensor({cpu.num_cols(), width}, 83);
    operands.rhs_layout = FeatureLayout{width, 0, 1};
    operands.rhs_target = Target::U;
    Tensor expected = Tensor::empty({cpu.nnz(), width});
    ops::gsddmm_forward(ops::Cpu{}, cpu.csr, operands, expected);
    operands.lhs = operands.lhs.to(kGpu);
    operands.rhs = operands.rhs.to(kGpu);
    Tensor got = poisoned({cpu.nnz(), width}, kGpu);
    ops::gsddmm_forward(ops::Cuda{}, gpu.csr, operands, got);
    CAPTURE(width);
    CHECK(got.to_vector<float>() == expected.to_vector<float>());
  }
}

TEST_CASE("gatv2_aggregate on CUDA matches the CPU's fused form: values, the dropout draw, gradients") {
  uint64_t seed = 1900;
  for (const Adjacency& cpu : message_graphs()) {
    const Adjacency gpu = cpu.to(kGpu);
    // Fused kernels where an entry's heads fit one group of lanes (1x1, 8x8,
    // 2x64; scalar features in every count of chunks a lane can hold: 3x5 in
    // 5 and 3, 1x41 in 6 and 3, 1x7 in 7 and 4, 1x1 in 1), the composition of
    // the three ops where they do not (8x64).
    for (const auto& [heads, features] :
         std::vector<std::pair<int64_t, int64_t>>{{1, 1}, {8, 8}, {3, 5}, {1, 41}, {1, 7}, {2, 64}, {8, 64}}) {
      for (const DType dtype : {DType::Float32, DType::BFloat16}) {
        for (const float p : {0.0f, 0.6f}) {
          CAPTURE(cpu.nnz());
          CAPTURE(heads);
          CAPTURE(features);
          CAPTURE(dtype_name(dtype));
          CAPTURE(p);
          const Tensor x = ops::cast(random_tensor({cpu.num_rows(), heads, features}, ++seed), dtype);
          const Tensor y = ops::cast(random_tensor({cpu.num_cols(), heads, features}, ++seed), dtype);
          const Tensor attention = random_tensor({heads, features}, ++seed);
          const bool fused = !(heads == 8 && features == 64);
          const std::vector<int> layouts = ops::gatv2_fused_layouts(ops::Cuda{}, x.to(kGpu), y.to(kGpu), gpu);
          CHECK(layouts.empty() != fused);
          // Each fused layout in turn (the default, then twice its lanes per head), or the composition.
          for (const int lanes : fused ? layouts : std::vector<int>{0}) {
            CAPTURE(lanes);
            std::vector<Tensor> on_cpu = {x.clone().set_requires_grad(true), y.clone().set_requires_grad(true),
                                          attention.clone().set_requires_grad(true)};
            std::vector<Tensor> on_gpu = {x.to(kGpu).set_requires_grad(true), y.to(kGpu).set_requires_grad(true),
                                          attention.to(kGpu).set_requires_grad(true)};
            // The layout whatever timing would choose (the next test checks the choice).
            if (fused) force_gatv2_path(gpu, heads, features, dtype, fused_path_name(lanes, layouts));
            Generator cpu_generator(11), gpu_generator(11);  // the same mask on both devices (ops/dropout.hpp)
            // The reference: the CPU's fused form where CUDA fuses, else the
            // composition CUDA runs (in bfloat16 it rounds where the fused form does not).
            const Tensor expected =
                fused ? ops::gatv2_aggregate(cpu, on_cpu[0], on_cpu[1], on_cpu[2], 0.2f, p, true, cpu_generator)
                      : ops::spmm(cpu,
                                  ops::dropout(ops::gatv2_attention(cpu, on_cpu[0], on_cpu[1], on_cpu[2], 0.2f), p,
                                               true, cpu_generator),
                                  on_cpu[1]);
            const Tensor got = ops::gatv2_aggregate(gpu, on_gpu[0], on_gpu[1], on_gpu[2], 0.2f, p, true, gpu_generator);
            CHECK(got.dtype() == dtype);
            // bfloat16: one rounding of float sums taken in another order.
            const bool bf16 = dtype == DType::BFloat16;
            CHECK(relative_error(got, expected) < (bf16 ? 2 * kBf16UnitRoundoff : 1e-5));
            CHECK(gpu_generator.offset() == cpu_generator.offset());
            const Tensor weights = random_tensor(expected.shape(), 97);
            ops::sum(ops::mul(expected, weights)).backward();
            ops::sum(ops::mul(got, weights.to(kGpu))).backward();
            // The hub row's softmax-gradient terms cancel, as in the scores' case
            // below. Where a row's terms cancel exactly (rows of one entry; one
            // feature whose z has one sign over the row) x_target's and a's true
            // gradients are 0 and both devices hold rounding noise: the error is
            // measured against norms of at least 1.
            const bool hub = cpu.nnz() > 50000;
            const double tolerance = bf16 ? 2 * kBf16UnitRoundoff : hub ? 5e-3 : 1e-4;
            for (std::size_t i = 0; i < 3; ++i) {
              CAPTURE(i);
              CHECK(floored_relative_error(on_gpu[i].grad(), on_cpu[i].grad()) < tolerance);
            }
          }
        }
      }
    }
  }
}

TEST_CASE("GPU measured choices: gatv2_aggregate times its fused kernels against the composition once a shape") {
  constexpr int64_t heads = 8, features = 8;
  for (const Adjacency& cpu : {random_graph(1000, 9000, 5), rmat_graph(4096, 60000, 6)}) {
    CAPTURE(cpu.nnz());
    const Adjacency gpu = cpu.to(kGpu);
    const Tensor x = random_tensor({cpu.num_rows(), heads, features}, 31).to(kGpu);
    const Tensor y = random_tensor({cpu.num_cols(), heads, features}, 32).to(kGpu);
    const Tensor a = random_tensor({heads, features}, 33).to(kGpu);
    std::vector<Tensor> leaves = {x.clone().set_requires_grad(true), y.clone().set_requires_grad(true),
                                  a.clone().set_requires_grad(true)};
    const std::string key = ops::gatv2_choice_key(heads, features, DType::Float32, true);
    // First training call: both paths timed on detached copies with their own
    // draws, the faster recorded; the caller's generator draws once.
    const int64_t before = ops::candidates_timed();
    Generator generator(11), reference(11);
    const Tensor got = ops::gatv2_aggregate(gpu, leaves[0], leaves[1], leaves[2], 0.2f, 0.6f, true, generator);
    CHECK(ops::candidates_timed() >= before + 3);  // two fused layouts and the composition
    const ops::KernelChoiceMap choices = ops::kernel_choices(gpu.csr);
    REQUIRE(choices.contains(key));
    CHECK((choices.at(key) == "fused" || choices.at(key) == "fused 2 lanes per head" ||
           choices.at(key) == "composed"));
    (void)reference.next_draw(static_cast<uint64_t>(cpu.nnz() * heads));
    CHECK(generator.offset() == reference.offset());
    // Whichever was chosen computes the composition's values and gradients.
    std::vector<Tensor> composed_leaves = {x.clone().set_requires_grad(true), y.clone().set_requires_grad(true),
                                           a.clone().set_requires_grad(true)};
    Generator composed_generator(11);
    const Tensor expected = ops::spmm(
        gpu,
        ops::dropout(ops::gatv2_attention(gpu, composed_leaves[0], composed_leaves[1], composed_leaves[2], 0.2f), 0.6f,
                     true, composed_generator),
        composed_leaves[1]);
    CHECK(relative_error(got, expected) < 1e-5);
    const Tensor weights = random_tensor(expected.shape(), 34).to(kGpu);
    ops::sum(ops::mul(got, weights)).backward();
    ops::sum(ops::mul(expected, weights)).backward();
    for (std::size_t i = 0; i < 3; ++i) {
      CAPTURE(i);
      CHECK(floored_relative_error(leaves[i].grad(), composed_leaves[i].grad()) < 1e-4);
    }
    // Later calls of the shape reuse the choice; a call without gradients has its own, timed once.
    const int64_t after_first = ops::candidates_timed();
    (void)ops::gatv2_aggregate(gpu, leaves[0], leaves[1], leaves[2], 0.2f, 0.6f, true, generator);
    CHECK(ops::candidates_timed() == after_first);
    {
      autograd::NoGradGuard no_grad;
      (void)ops::gatv2_aggregate(gpu, x, y, a, 0.2f, 0.6f, false, generator);
    }
    CHECK(ops::kernel_choices(gpu.csr).contains(ops::gatv2_choice_key(heads, features, DType::Float32, false)));
  }
  // A recorded choice is what runs: the composition's SpMM records its own
  // tile choice on the graph, the fused kernels record none. 8 heads of 8
  // float32 have layouts of 1 and 2 lanes per head.
  const Adjacency cpu = random_graph(1000, 9000, 5);
  for (const std::string path : {"fused", "fused 2 lanes per head", "composed"}) {
    CAPTURE(path);
    const Adjacency gpu = cpu.to(kGpu);
    force_gatv2_path(gpu, heads, features, DType::Float32, path);
    const Tensor x = random_tensor({cpu.num_rows(), heads, features}, 41).to(kGpu).set_requires_grad(true);
    const Tensor y = random_tensor({cpu.num_cols(), heads, features}, 42).to(kGpu).set_requires_grad(true);
    const Tensor a = random_tensor({heads, features}, 43).to(kGpu).set_requires_grad(true);
    Generator generator(11);
    ops::sum(ops::gatv2_aggregate(gpu, x, y, a, 0.2f, 0.6f, true, generator)).backward();
    const ops::KernelChoiceMap choices = ops::kernel_choices(gpu.csr);
    CHECK(choices.at(ops::gatv2_choice_key(heads, features, DType::Float32, true)) == path);
    CHECK(has_key_starting(choices, "spmm:") == (path == "composed"));
  }
  {  // Without Aᵀ a training call is refused by the op before any path is timed.
    Adjacency no_transpose = cpu.to(kGpu);
    no_transpose.transpose = Csr{};
    const Tensor x = random_tensor({cpu.num_rows(), heads, features}, 47).to(kGpu).set_requires_grad(true);
    const Tensor y = random_tensor({cpu.num_cols(), heads, features}, 48).to(kGpu);
    const Tensor a = random_tensor({heads, features}, 49).to(kGpu);
    Generator generator(11);
    CHECK(invalid_argument_message([&] {
            (void)ops::gatv2_aggregate(no_transpose, x, y, a, 0.2f, 0.6f, true, generator);
          }).starts_with("gatv2_aggregate: backward needs adjacency.transpose"));
  }
  // A stored layout this build lacks is timed again and replaced.
  const Adjacency gpu = cpu.to(kGpu);
  force_gatv2_path(gpu, heads, features, DType::Float32, "fused 64 lanes per head");
  const Tensor x = random_tensor({cpu.num_rows(), heads, features}, 44).to(kGpu).set_requires_grad(true);
  const Tensor y = random_tensor({cpu.num_cols(), heads, features}, 45).to(kGpu).set_requires_grad(true);
  const Tensor a = random_tensor({heads, features}, 46).to(kGpu).set_requires_grad(true);
  const int64_t before = ops::candidates_timed();
  Generator generator(11);
  (void)ops::gatv2_aggregate(gpu, x, y, a, 0.2f, 0.6f, true, generator);
  CHECK(ops::candidates_timed() >= before + 3);  // two layouts and the composition
  CHECK(ops::kernel_choices(gpu.csr).at(ops::gatv2_choice_key(heads, features, DType::Float32, true)) !=
        "fused 64 lanes per head");
}

TEST_CASE("gatv2_aggregate in deterministic mode on CUDA: the same gradients every run, close to the CPU") {
  // R-MAT (popular columns: many items add into a's sums) and the hub row
  // (split into segments that meet at one row); heads in one group of lanes
  // (4x8) and one subwarp per head (8x64): both backward kernels.
  uint64_t seed = 9300;
  for (const Adjacency& cpu : {rmat_graph(4096, 60000, 93), hub_graph(100001, 100000, 77)}) {
    const Adjacency gpu = cpu.to(kGpu);
    for (const auto& [heads, features] : std::vector<std::pair<int64_t, int64_t>>{{4, 8}, {8, 64}}) {
      CAPTURE(cpu.nnz());
      CAPTURE(heads);
      CAPTURE(features);
      const Tensor x = random_tensor({cpu.num_rows(), heads, features}, ++seed);
      const Tensor y = random_tensor({cpu.num_cols(), heads, features}, ++seed);
      const Tensor attention = random_tensor({heads, features}, ++seed);
      const Tensor weights = random_tensor({cpu.num_rows(), heads, features}, ++seed);
      const auto gradients = [&](const Adjacency& a, Device device) {
        Tensor xx = x.to(device).set_requires_grad(true), yy = y.to(device).set_requires_grad(true);
        Tensor aa = attention.to(device).set_requires_grad(true);
        Generator draws(5);
        ops::sum(ops::mul(ops::gatv2_aggregate(a, xx, yy, aa, 0.2f, 0.0f, false, draws), weights.to(device)))
            .backward();
        return std::vector<Tensor>{xx.grad().to(Device::cpu()), yy.grad().to(Device::cpu()),
                                   aa.grad().to(Device::cpu())};
      };
      const std::vector<Tensor> expected = gradients(cpu, Device::cpu());
      const ops::DeterministicScope ordered(true);
      const std::vector<Tensor> first = gradients(gpu, kGpu);
      for (int run = 0; run < 2; ++run) {
        const std::vector<Tensor> again = gradients(gpu, kGpu);
        CAPTURE(run);
        for (std::size_t i = 0; i < first.size(); ++i) CHECK(relative_error(again[i], first[i]) == 0.0);
      }
      // Tolerances as in the scores' test below (the hub row's terms cancel).
      const bool hub = cpu.nnz() > 50000;
      CHECK(relative_error(first[0], expected[0]) < (hub ? 5e-3 : 3e-5));
      CHECK(relative_error(first[1], expected[1]) < (hub ? 5e-3 : 3e-5));
      CHECK(relative_error(first[2], expected[2]) < (hub ? 5e-3 : 1e-4));
    }
  }
}

TEST_CASE("GATv2's scores and gradients on CUDA match the CPU backend") {
  uint64_t seed = 900;
  for (const Adjacency& cpu : message_graphs()) {
    const Adjacency gpu = cpu.to(kGpu);
    // Every entry's heads in one group of lanes (1x1, 8x8, 3x5, 2x64; two
    // chunks of features per lane: 1x41, 1x256 in float32), and heads too
    // wide for that, one subwarp per head (8x64, 1x300).
    for (const auto& [heads, features] :
         std::vector<std::pair<int64_t, int64_t>>{{1, 1}, {8, 8}, {3, 5}, {1, 41}, {1, 256}, {2, 64}, {8, 64}, {1, 300}}) {
      for (const DType dtype : {DType::Float32, DType::BFloat16}) {
        CAPTURE(cpu.nnz());
        CAPTURE(heads);
        CAPTURE(features);
        const Tensor x = ops::cast(random_tensor({cpu.num_rows(), heads, features}, ++seed), dtype);
        const Tensor y = ops::cast(random_tensor({cpu.num_cols(), heads, features}, ++seed), dtype);
        const Tensor attention = random_tensor({heads, features}, ++seed);
        Tensor x_cpu = x.clone().set_requires_grad(true), y_cpu = y.clone().set_requires_grad(true);
        Tensor a_cpu = attention.clone().set_requires_grad(true);
        Tensor x_gpu = x.to(kGpu).set_requires_grad(true), y_gpu = y.to(kGpu).set_requires_grad(true);
        Tensor a_gpu = attention.to(kGpu).set_requires_grad(true);
        const Tensor expected = ops::gatv2_attention(cpu, x_cpu, y_cpu, a_cpu, 0.2f);
        const Tensor got = ops::gatv2_attention(gpu, x_gpu, y_gpu, a_gpu, 0.2f);
        CHECK(relative_error(got, expected) < 1e-5);
        const Tensor weights = random_tensor(expected.shape(), 98);
        ops::sum(ops::mul(expected, weights)).backward();
        ops::sum(ops::mul(got, weights.to(kGpu))).backward();
        // bfloat16 gradients are one rounding of float sums taken in another
        // order. The hub row's 1e5 softmax-gradient terms cancel (they sum to
        // ~0 per row): float sums in two orders then differ by ~1e-3 of the
        // result (measured on the H200: at most 1.4e-3).
        const bool hub = cpu.nnz() > 50000;
        const double tolerance = dtype == DType::BFloat16 ? 2 * kBf16UnitRoundoff : hub ? 5e-3 : 3e-5;
        CHECK(relative_error(x_gpu.grad(), x_cpu.grad()) < tolerance);
        CHECK(relative_error(y_gpu.grad(), y_cpu.grad()) < tolerance);
        // a's gradient sums over every entry of the graph terms weighted by
        // the softmax's gradient, which cancel (each row's sum to ~0): two
        // orders of that sum differ by more than x's and y's do (measured on
        // the H200: 5.2e-5 at one head of one feature).
        CHECK(relative_error(a_gpu.grad(), a_cpu.grad()) < (hub ? 5e-3 : 1e-4));
      }
    }
  }
}
