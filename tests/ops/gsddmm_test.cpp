#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "ops/cast.hpp"
#include "ops/gsddmm.hpp"
#include "ops/sddmm.hpp"
#include "tests/support/message_references.hpp"
#include "tests/support/sparse_graphs.hpp"
#include "tests/support/testing.hpp"

using namespace sgnn;
using namespace sgnn::testing;
using ops::BinaryKind;
using ops::Target;

namespace {

constexpr BinaryKind kOps[] = {BinaryKind::Dot, BinaryKind::Add,     BinaryKind::Sub,    BinaryKind::Mul,
                               BinaryKind::Div, BinaryKind::CopyLhs, BinaryKind::CopyRhs};
constexpr Target kTargets[] = {Target::U, Target::V, Target::E};

int64_t rows_of(const Adjacency& a, Target target) {
  return target == Target::U ? a.num_cols() : target == Target::V ? a.num_rows() : a.nnz();
}

Tensor lhs_of(BinaryKind op, const Tensor& x) { return op == BinaryKind::CopyRhs ? Tensor() : x; }
Tensor rhs_of(BinaryKind op, const Tensor& y) { return op == BinaryKind::CopyLhs ? Tensor() : y; }

}  // namespace

TEST_CASE("gsddmm matches a float64 reference for every operation, target pair and broadcast") {
  const std::vector<Adjacency> graphs = {random_graph(9, 0, 1), random_graph(8, 30, 2), rmat_graph(200, 1500, 3),
                                         hub_graph(300, 250, 17)};
  const std::vector<std::pair<Shape, Shape>> shapes = {
      {{6}, {6}}, {{3, 4}, {3, 4}}, {{3, 4}, {3, 1}}, {{1}, {5}}, {{}, {}}, {{2, 8}, {8}}};
  uint64_t seed = 10;
  for (const Adjacency& a : graphs) {
    for (const auto& [lhs_shape, rhs_shape] : shapes) {
      for (Target lhs_target : kTargets) {
        for (Target rhs_target : kTargets) {
          const Tensor x = away_from_zero(with_rows(rows_of(a, lhs_target), lhs_shape), ++seed);
          const Tensor y = away_from_zero(with_rows(rows_of(a, rhs_target), rhs_shape), ++seed);
          for (BinaryKind op : kOps) {
            if (op == BinaryKind::Dot && (x.dim() != y.dim() || x.size(-1) != y.size(-1))) continue;
            CAPTURE(ops::binary_kind_name(op));
            CAPTURE(ops::target_name(lhs_target));
            CAPTURE(ops::target_name(rhs_target));
            CAPTURE(shape_str(x.shape()));
            CAPTURE(shape_str(y.shape()));
            const Tensor out = ops::gsddmm(a, op, lhs_of(op, x), rhs_of(op, y), lhs_target, rhs_target);
            const std::vector<double> expected = reference_gsddmm(a, op, host_values(lhs_of(op, x)), lhs_target,
                                                                  host_values(rhs_of(op, y)), rhs_target);
            CHECK(out.numel() == static_cast<int64_t>(expected.size()));
            CHECK(relative_error(out, expected) < 1e-6);
          }
        }
      }
    }
  }
}

TEST_CASE("gsddmm's dot of opposite ends is the tuned sddmm_dot, in either operand order") {
  const Adjacency a = rmat_graph(200, 1500, 21);
  const Tensor x = random_tensor({a.num_rows(), 4, 8}, 22);
  const Tensor y = random_tensor({a.num_cols(), 4, 8}, 23);
  const Tensor tuned = ops::sddmm_dot(a, x, y);
  CHECK(relative_error(ops::gsddmm(a, BinaryKind::Dot, x, y, Target::V, Target::U), tuned) == 0.0);
  CHECK(relative_error(ops::gsddmm(a, BinaryKind::Dot, y, x, Target::U, Target::V), tuned) == 0.0);
  CHECK(ops::gsddmm(a, BinaryKind::Dot, x, y, Target::V, Target::U).shape() == Shape{a.nnz(), 4});
}

TEST_CASE("gsddmm gradients match finite differences") {
  const Adjacency a = random_graph(7, 20, 31);
  for (BinaryKind op : kOps) {
    for (Target lhs_target : kTargets) {
      for (Target rhs_target : {Target::U, Target::E}) {
        for (const auto& [lhs_shape, rhs_shape] : std::vector<std::pair<Shape, Shape>>{{{2, 3}, {2, 3}}, {{2, 3}, {2, 1}}, {{3}, {}}}) {
          if (op == BinaryKind::Dot && lhs_shape != rhs_shape) continue;
          CAPTURE(ops::binary_kind_name(op));
          CAPTURE(ops::target_name(lhs_target));
          CAPTURE(ops::target_name(rhs_target));
          CAPTURE(shape_str(lhs_shape));
          std::vector<Tensor> inputs;
          if (op != BinaryKind::CopyRhs) {
            inputs.push_back(away_from_zero(with_rows(rows_of(a, lhs_target), lhs_shape), 32).set_requires_grad(true));
          }
          if (op != BinaryKind::CopyLhs) {
            inputs.push_back(away_from_zero(with_rows(rows_of(a, rhs_target), rhs_shape), 33).set_requires_grad(true));
          }
          const auto f = [&](const std::vector<Tensor>& in) {
            const Tensor lhs = op == BinaryKind::CopyRhs ? Tensor() : in[0];
            const Tensor rhs = op == BinaryKind::CopyLhs ? Tensor() : in.back();
            return ops::gsddmm(a, op, lhs, rhs, lhs_target, rhs_target);
          };
          CHECK(gradient_error(f, inputs) < 1e-2);
        }
      }
    }
  }
}

TEST_CASE("gsddmm in bfloat16 rounds each output once; dot stays float32") {
  const Adjacency a = rmat_graph(300, 3000, 41);
  const Tensor x = ops::cast(away_from_zero({a.num_rows(), 2, 16}, 42), DType::BFloat16);
  const Tensor y = ops::cast(away_from_zero({a.num_cols(), 2, 16}, 43), DType::BFloat16);
  for (BinaryKind op : {BinaryKind::Add, BinaryKind::Mul, BinaryKind::Div, BinaryKind::Dot}) {
    CAPTURE(ops::binary_kind_name(op));
    const Tensor got = ops::gsddmm(a, op, x, y, Target::V, Target::U);
    CHECK(got.dtype() == (op == BinaryKind::Dot ? DType::Float32 : DType::BFloat16));
    const std::vector<double> exact =
        reference_gsddmm(a, op, host_values(x), Target::V, host_values(y), Target::U);
    std::vector<double> bound(exact.size());
    for (std::size_t i = 0; i < bound.size(); ++i) {
      bound[i] = (op == BinaryKind::Dot ? 1e-5 : kBf16UnitRoundoff) * std::abs(exact[i]) + 1e-5;
    }
    CHECK(worst_bound_ratio(got, exact, bound) <= 1.0);
  }
  // A float32 operand beside a bfloat16 one gives float32.
  CHECK(ops::gsddmm(a, BinaryKind::Add, x, ops::cast(y, DType::Float32), Target::V, Target::U).dtype() ==
        DType::Float32);
}

TEST_CASE("gsddmm names the op, the argument and the shapes of bad input") {
  const Adjacency a = random_graph(6, 12, 61);
  const Tensor x = random_tensor({6, 4}, 62);
  const std::string rows = invalid_argument_message([&] { ops::gsddmm(a, BinaryKind::Add, x, random_tensor({5, 4}, 1), Target::U, Target::E); });
  CHECK(rows.find("gsddmm") != std::string::npos);
  CHECK(rows.find("'rhs'") != std::string::npos);
  CHECK(rows.find("[5, 4]") != std::string::npos);
  CHECK(invalid_argument_message([&] { ops::gsddmm(a, BinaryKind::Mul, x, random_tensor({6, 3}, 2)); }).find("do not broadcast") != std::string::npos);
  CHECK(invalid_argument_message([&] { ops::gsddmm(a, BinaryKind::Dot, x, random_tensor({6, 1}, 3)); }).find("dot needs lhs and rhs with the same") != std::string::npos);
  CHECK(invalid_argument_message([&] { ops::gsddmm(a, BinaryKind::Add, x, Tensor()); }).find("add needs rhs on v") != std::string::npos);
  CHECK(invalid_argument_message([&] { ops::gsddmm(a, BinaryKind::CopyLhs, x, x); }).find("copy_lhs reads no rhs") != std::string::npos);
  CHECK(invalid_argument_message([&] { ops::gsddmm(a, "add", x, x, "u", "w"); }).find("rhs_target must be") != std::string::npos);
  CHECK(invalid_argument_message([&] { ops::gsddmm(a, "minus", x, x); }).find("unknown operation \"minus\"") != std::string::npos);
}
