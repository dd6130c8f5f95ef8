#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "ops/cast.hpp"
#include "ops/determinism.hpp"
#include "ops/gspmm.hpp"
#include "ops/reduce.hpp"
#include "tests/support/message_references.hpp"
#include "tests/support/sparse_graphs.hpp"
#include "tests/support/testing.hpp"

using namespace sgnn;
using namespace sgnn::testing;
using ops::MessageKind;
using ops::ReduceKind;

namespace {

constexpr MessageKind kMessages[] = {MessageKind::CopyU, MessageKind::CopyE, MessageKind::UMulE,
                                     MessageKind::UAddE, MessageKind::USubE, MessageKind::UDivE};
constexpr ReduceKind kReduces[] = {ReduceKind::Sum, ReduceKind::Mean, ReduceKind::Max, ReduceKind::Min};

// (u feature shape, e feature shape) pairs that broadcast: a weight per
// entry, per head, per feature; u repeated over features; node scalars.
struct ShapePair {
  Shape u;
  Shape e;
};
const std::vector<ShapePair> kShapes = {
    {{5}, {}},  {{5}, {1}},     {{5}, {5}},        {{3, 4}, {3, 1}}, {{3, 4}, {3, 4}},
    {{3, 4}, {}}, {{3, 1}, {3, 4}}, {{}, {}},      {{1}, {6}},       {{3, 8}, {1}}};

std::vector<Adjacency> test_graphs() {
  return {random_graph(1, 1, 1),    random_graph(9, 0, 2),   random_graph(7, 3, 3),
          random_graph(60, 400, 4), rmat_graph(256, 2000, 6), hub_graph(300, 250, 17)};
}

void check_against_reference(const Adjacency& a, MessageKind message, ReduceKind reduce, const Tensor& u,
                             const Tensor& e, double tolerance) {
  const ReferenceResult expected = reference_gspmm(a, message, reduce, host_values(u), host_values(e));
  const Tensor out = ops::gspmm(a, message, reduce, u, e);
  CHECK(out.numel() == static_cast<int64_t>(expected.values.size()));
  CHECK(relative_error(out, expected.values) < tolerance);
}

}  // namespace

TEST_CASE("gspmm matches a float64 reference for every message, reduction and broadcast") {
  uint64_t seed = 1000;
  for (const Adjacency& a : test_graphs()) {
    for (const ShapePair& shapes : kShapes) {
      const Tensor u = random_tensor(with_rows(a.num_cols(), shapes.u), ++seed);
      const Tensor e = away_from_zero(with_rows(a.nnz(), shapes.e), ++seed);
      for (MessageKind message : kMessages) {
        for (ReduceKind reduce : kReduces) {
          CAPTURE(ops::message_kind_name(message));
          CAPTURE(ops::reduce_kind_name(reduce));
          CAPTURE(shape_str(u.shape()));
          CAPTURE(shape_str(e.shape()));
          check_against_reference(a, message, reduce, ops::message_uses_u(message) ? u : Tensor(),
                                  ops::message_uses_e(message) ? e : Tensor(), 1e-6);
        }
      }
    }
  }
}

TEST_CASE("gspmm aggregates a hub row of 100000 entries, empty rows and duplicate entries") {
  SUBCASE("hub row") {
    const Adjacency a = hub_graph(100000, 100000, 5);
    const Tensor x = random_tensor({a.num_cols(), 4}, 3);
    for (ReduceKind reduce : kReduces) {
      CAPTURE(ops::reduce_kind_name(reduce));
      // 100000 float terms: the sum's rounding grows with the row.
      check_against_reference(a, MessageKind::CopyU, reduce, x, Tensor(), 1e-5);
    }
  }
  SUBCASE("duplicates") {
    // Row 0 holds column 2 three times and column 1 twice; row 3 is empty.
    const Adjacency a = adjacency_from_entries(4, {0, 0, 0, 1, 0, 2, 0}, {2, 1, 2, 0, 2, 3, 1});
    const Tensor x = random_tensor({4, 3}, 4);
    const Tensor e = away_from_zero({7, 1}, 5);
    for (ReduceKind reduce : kReduces) {
      for (MessageKind message : {MessageKind::CopyU, MessageKind::UMulE, MessageKind::UAddE}) {
        CAPTURE(ops::reduce_kind_name(reduce));
        check_against_reference(a, message, reduce, x, message == MessageKind::CopyU ? Tensor() : e, 1e-6);
      }
    }
    // Sum counts each duplicate: row 0 = 3 · x[2] + 2 · x[1].
    const std::vector<float> sums = ops::gspmm(a, MessageKind::CopyU, ReduceKind::Sum, x, Tensor()).to_vector<float>();
    const std::vector<float> rows = x.to_vector<float>();
    for (std::size_t f = 0; f < 3; ++f) CHECK(sums[f] == doctest::Approx(3 * rows[6 + f] + 2 * rows[3 + f]));
  }
}

TEST_CASE("gspmm max and min over negative messages; a row without entries gives 0") {
  const Adjacency a = adjacency_from_entries(3, {0, 0, 0, 1}, {0, 1, 2, 2});
  const Tensor x = Tensor::from_vector(std::vector<float>{-5, -1, -3, -2, -7, -4}, {3, 2});
  const std::vector<float> max = ops::gspmm(a, MessageKind::CopyU, ReduceKind::Max, x, Tensor()).to_vector<float>();
  const std::vector<float> min = ops::gspmm(a, MessageKind::CopyU, ReduceKind::Min, x, Tensor()).to_vector<float>();
  CHECK(max == std::vector<float>{-3, -1, -7, -4, 0, 0});
  CHECK(min == std::vector<float>{-7, -4, -7, -4, 0, 0});
}

TEST_CASE("gspmm max sends the gradient to the first of equal messages") {
  // Row 0: columns 0, 1, 2 with x[0] = x[2] = 4 > x[1]: entry 0 wins, entry 2 gets nothing.
  const Adjacency a = adjacency_from_entries(3, {0, 0, 0}, {0, 1, 2});
  Tensor x = Tensor::from_vector(std::vector<float>{4, 1, 4}, {3, 1}).set_requires_grad(true);
  ops::sum(ops::gspmm(a, MessageKind::CopyU, ReduceKind::Max, x, Tensor())).backward();
  CHECK(x.grad().to_vector<float>() == std::vector<float>{1, 0, 0});
  // Through an edge weight too: u_mul_e with equal products.
  Tensor u = Tensor::from_vector(std::vector<float>{2, 1, 4}, {3, 1}).set_requires_grad(true);
  Tensor e = Tensor::from_vector(std::vector<float>{2, 1, 1}, {3}).set_requires_grad(true);
  ops::sum(ops::gspmm(a, MessageKind::UMulE, ReduceKind::Max, u, e)).backward();
  CHECK(u.grad().to_vector<float>() == std::vector<float>{2, 0, 0});
  CHECK(e.grad().to_vector<float>() == std::vector<float>{2, 0, 0});
}

TEST_CASE("gspmm max and min let the first NaN message win, on both kernels") {
  // Row 0: 1, NaN, 5, NaN -> NaN from entry 1; row 1: 2, 7 -> 7.
  const Adjacency a = adjacency_from_entries(4, {0, 0, 0, 0, 1, 1}, {0, 1, 2, 3, 0, 2});
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> values{1, nan, 5, nan};
  for (ReduceKind reduce : {ReduceKind::Max, ReduceKind::Min}) {
    // copy_u runs the values-only twin, u_add_e the generalized kernel.
    Tensor x = Tensor::from_vector(values, {4, 1}).set_requires_grad(true);
    const Tensor copied = ops::gspmm(a, MessageKind::CopyU, reduce, x, Tensor());
    ops::sum(copied).backward();
    const std::vector<float> out = copied.to_vector<float>();
    CHECK(std::isnan(out[0]));
    CHECK(out[1] == (reduce == ReduceKind::Max ? 5.0f : 1.0f));
    CHECK(x.grad().to_vector<float>() == std::vector<float>{reduce == ReduceKind::Max ? 0.0f : 1.0f, 1, reduce == ReduceKind::Max ? 1.0f : 0.0f, 0});
    const Tensor shifted =
        ops::gspmm(a, MessageKind::UAddE, reduce, Tensor::from_vector(values, {4, 1}), Tensor::zeros({6, 1}));
    CHECK(std::isnan(shifted.to_vector<float>()[0]));
  }
}

TEST_CASE("gspmm gradients match finite differences for every message and reduction") {
  const Adjacency a = random_graph(7, 20, 31);
  for (const ShapePair& shapes : {ShapePair{{3}, {}}, ShapePair{{2, 3}, {2, 1}}, ShapePair{{2, 3}, {2, 3}},
                                  ShapePair{{2, 1}, {2, 3}}}) {
    for (MessageKind message : kMessages) {
      for (ReduceKind reduce : kReduces) {
        CAPTURE(ops::message_kind_name(message));
        CAPTURE(ops::reduce_kind_name(reduce));
        CAPTURE(shape_str(shapes.u));
        CAPTURE(shape_str(shapes.e));
        std::vector<Tensor> inputs;
        if (ops::message_uses_u(message)) {
          inputs.push_back(random_tensor(with_rows(a.num_cols(), shapes.u), 32).set_requires_grad(true));
        }
        if (ops::message_uses_e(message)) {
          inputs.push_back(away_from_zero(with_rows(a.nnz(), shapes.e), 33).set_requires_grad(true));
        }
        const auto f = [&](const std::vector<Tensor>& in) {
          const Tensor u = ops::message_uses_u(message) ? in[0] : Tensor();
          const Tensor e = ops::message_uses_e(message) ? in.back() : Tensor();
          return ops::gspmm(a, message, reduce, u, e);
        };
        CHECK(gradient_error(f, inputs) < 1e-2);
      }
    }
  }
}

TEST_CASE("gspmm max and min backward in deterministic mode: the default's gradients, added in output order") {
  // The CPU default adds each output element's terms at its winner in output
  // order; deterministic mode writes the terms out and sums them per target in
  // the same order (gspmm_extreme_terms, scatter_sum_in_order): the same bits.
  uint64_t seed = 5100;
  for (const Adjacency& a : test_graphs()) {
    for (const ShapePair& shapes : kShapes) {
      const Tensor u = random_tensor(with_rows(a.num_cols(), shapes.u), ++seed);
      const Tensor e = away_from_zero(with_rows(a.nnz(), shapes.e), ++seed);
      for (MessageKind message : kMessages) {
        for (ReduceKind reduce : {ReduceKind::Max, ReduceKind::Min}) {
          CAPTURE(a.nnz());
          CAPTURE(ops::message_kind_name(message));
          CAPTURE(ops::reduce_kind_name(reduce));
          CAPTURE(shape_str(u.shape()));
          CAPTURE(shape_str(e.shape()));
          std::vector<Tensor> grads[2];
          for (const bool ordered : {false, true}) {
            const ops::DeterministicScope mode(ordered);
            Tensor uu = ops::message_uses_u(message) ? u.clone().set_requires_grad(true) : Tensor();
            Tensor ee = ops::message_uses_e(message) ? e.clone().set_requires_grad(true) : Tensor();
            const Tensor out = ops::gspmm(a, message, reduce, uu, ee);
            out.backward(random_tensor(out.shape(), seed + 7));
            if (uu.defined()) grads[ordered].push_back(uu.grad());
            if (ee.defined()) grads[ordered].push_back(ee.grad());
          }
          REQUIRE(grads[0].size() == grads[1].size());
          for (std::size_t i = 0; i < grads[0].size(); ++i) {
            CHECK(grads[1][i].shape() == grads[0][i].shape());
            CHECK(relative_error(grads[1][i], grads[0][i]) == 0.0);
          }
        }
      }
    }
  }
}

TEST_CASE("gspmm in bfloat16 is within one rounding of the float32 result of the same inputs") {
  const Adjacency a = rmat_graph(300, 3000, 41);
  uint64_t seed = 40;
  for (MessageKind message : {MessageKind::CopyU, MessageKind::UMulE, MessageKind::UAddE, MessageKind::CopyE}) {
    for (ReduceKind reduce : kReduces) {
      CAPTURE(ops::message_kind_name(message));
      CAPTURE(ops::reduce_kind_name(reduce));
      const Tensor u = ops::cast(random_tensor({a.num_cols(), 2, 16}, ++seed), DType::BFloat16);
      const Tensor e = ops::cast(away_from_zero({a.nnz(), 2, 1}, ++seed), DType::BFloat16);
      const Tensor u_arg = ops::message_uses_u(message) ? u : Tensor();
      const Tensor e_arg = ops::message_uses_e(message) ? e : Tensor();
      const Tensor got = ops::gspmm(a, message, reduce, u_arg, e_arg);
      CHECK(got.dtype() == DType::BFloat16);
      const ReferenceResult exact = reference_gspmm(a, message, reduce, host_values(u_arg), host_values(e_arg));
      // One bfloat16 rounding of the float result, plus float sums' error.
      std::vector<double> bound(exact.values.size());
      for (std::size_t i = 0; i < bound.size(); ++i) bound[i] = kBf16UnitRoundoff * std::abs(exact.values[i]) + 1e-5;
      CHECK(worst_bound_ratio(got, exact.values, bound) <= 1.0);
    }
  }
}

TEST_CASE("gspmm's tuned and generalized paths agree") {
  // u_mul_e with one weight per head runs the tuned SpMM; the same weights
  // repeated over the features run the generalized kernel.
  const Adjacency a = rmat_graph(200, 1500, 51);
  const Tensor u = random_tensor({a.num_cols(), 4, 8}, 52);
  const Tensor per_head = random_tensor({a.nnz(), 4, 1}, 53);
  std::vector<float> repeated;
  for (float w : per_head.to_vector<float>()) repeated.insert(repeated.end(), 8, w);
  const Tensor per_feature = Tensor::from_vector(repeated, {a.nnz(), 4, 8});
  for (ReduceKind reduce : {ReduceKind::Sum, ReduceKind::Mean}) {
    const Tensor tuned = ops::gspmm(a, MessageKind::UMulE, reduce, u, per_head);
    const Tensor general = ops::gspmm(a, MessageKind::UMulE, reduce, u, per_feature);
    CHECK(relative_error(tuned, general) < 1e-6);
  }
}

TEST_CASE("gspmm names the op, the argument and the shapes of bad input") {
  const Adjacency a = random_graph(6, 12, 61);
  const Tensor x = random_tensor({6, 4}, 62);
  const Tensor e = random_tensor({a.nnz()}, 63);
  CHECK(invalid_argument_message([&] { ops::gspmm(a, MessageKind::UMulE, ReduceKind::Sum, x, Tensor()); }).find("gspmm: message u_mul_e needs e") != std::string::npos);
  CHECK(invalid_argument_message([&] { ops::gspmm(a, MessageKind::CopyU, ReduceKind::Sum, x, e); }).find("reads no e") != std::string::npos);
  const std::string rows = invalid_argument_message([&] { ops::gspmm(a, MessageKind::CopyU, ReduceKind::Sum, random_tensor({5, 4}, 1), Tensor()); });
  CHECK(rows.find("gspmm") != std::string::npos);
  CHECK(rows.find("'u'") != std::string::npos);
  CHECK(rows.find("[5, 4]") != std::string::npos);
  const std::string broadcast = invalid_argument_message([&] { ops::gspmm(a, MessageKind::UAddE, ReduceKind::Max, x, random_tensor({a.nnz(), 3}, 2)); });
  CHECK(broadcast.find("do not broadcast") != std::string::npos);
  CHECK(broadcast.find("[6, 4]") != std::string::npos);
  const Tensor indices = Tensor::zeros({6, 4}, DType::Int32);
  CHECK(invalid_argument_message([&] { ops::gspmm(a, MessageKind::CopyU, ReduceKind::Sum, indices, Tensor()); }).find("gspmm") != std::string::npos);
  CHECK(invalid_argument_message([&] { ops::gspmm(a, "u_times_e", "sum", x, e); }).find("unknown message \"u_times_e\"") != std::string::npos);
  CHECK(invalid_argument_message([&] { ops::gspmm(a, "copy_u", "median", x, Tensor()); }).find("unknown reduction \"median\"") != std::string::npos);
}
