#include <doctest/doctest.h>

#include <cmath>

#include "ops/cast.hpp"
#include "ops/elementwise.hpp"
#include "ops/elementwise_broadcast.hpp"
#include "ops/shape.hpp"
#include "tests/support/dense_checks.hpp"
#include "tests/support/testing.hpp"

using namespace sgnn;
using namespace sgnn::testing;
using ops::BinaryOp;

namespace {

struct Pair {
  Shape a, b;
};
// Equal shapes, suffixes, a column [N, 1] either side, a per-head [N, H, 1],
// a scalar, an outer combination, a middle axis repeated (the strided form),
// 1-sized axes everywhere, rows not a multiple of 4, and empty outputs.
const Pair kPairs[] = {{{1, 1}, {1, 1}},       {{4, 3}, {4, 3}},       {{4, 3}, {3}},          {{2, 3, 5}, {3, 5}},
                       {{6, 2}, {}},           {{}, {6, 2}},           {{7, 5}, {7, 1}},       {{7, 1}, {7, 5}},
                       {{5}, {7, 5}},          {{3, 4, 6}, {3, 4, 1}}, {{3, 4, 1}, {3, 4, 6}}, {{3, 1, 6}, {3, 4, 6}},
                       {{3, 4, 6}, {3, 1, 6}}, {{7, 1}, {1, 5}},       {{1, 5, 1}, {3, 1, 2}}, {{0, 3}, {3}},
                       {{0, 3}, {0, 1}},       {{2, 1, 3, 1}, {1, 5}}, {{}, {}},               {{1}, {5, 1, 3}}};

std::vector<double> forward_reference(BinaryOp op, const Tensor& a, const Tensor& b) {
  const BroadcastReference map = broadcast_reference(a.shape(), b.shape());
  const std::vector<double> x = to_double(a), y = to_double(b);
  std::vector<double> out;
  for (std::size_t i = 0; i < map.a_index.size(); ++i) {
    out.push_back(binary_reference(op, x[static_cast<std::size_t>(map.a_index[i])],
                                   y[static_cast<std::size_t>(map.b_index[i])]));
  }
  return out;
}

// Gradients of Σ w ⊙ (a op b) for both operands, summed over repeated elements.
std::vector<double> gradient_reference(BinaryOp op, int operand, const Tensor& a, const Tensor& b, const Tensor& w) {
  const BroadcastReference map = broadcast_reference(a.shape(), b.shape());
  const std::vector<double> x = to_double(a), y = to_double(b), g = to_double(w);
  std::vector<double> out(static_cast<std::size_t>((operand == 0 ? a : b).numel()), 0.0);
  for (std::size_t i = 0; i < g.size(); ++i) {
    const auto j = static_cast<std::size_t>((operand == 0 ? map.a_index : map.b_index)[i]);
    out[j] += g[i] * binary_partial(op, operand, x[static_cast<std::size_t>(map.a_index[i])],
                                    y[static_cast<std::size_t>(map.b_index[i])]);
  }
  return out;
}

}  // namespace

TEST_CASE("binary ops match float64 references under NumPy broadcasting, either operand repeated") {
  for (const Pair& pair : kPairs) {
    CAPTURE(shape_str(pair.a));
    CAPTURE(shape_str(pair.b));
    const Tensor a = nonzero_operand(pair.a, 1);
    const Tensor b = nonzero_operand(pair.b, 2);
    for (BinaryOp op : kBinaryOps) {
      CAPTURE(static_cast<int>(op));
      const Tensor out = apply_binary(op, a, b);
      CHECK(out.shape() == broadcast_reference(pair.a, pair.b).shape);
      CHECK(out.dtype() == DType::Float32);
      CHECK(relative_error(out, forward_reference(op, a, b)) < 1e-7);
    }
  }
  const Tensor x = random_tensor({3, 4}, 3);
  std::vector<double> scaled = to_double(x);
  for (double& v : scaled) v *= -2.5;
  CHECK(relative_error(ops::scale(x, -2.5f), scaled) < 1e-7);
}

TEST_CASE("binary op gradients match float64 references, summed over the axes an operand was repeated along") {
  for (const Pair& pair : kPairs) {
    CAPTURE(shape_str(pair.a));
    CAPTURE(shape_str(pair.b));
    for (BinaryOp op : kBinaryOps) {
      CAPTURE(static_cast<int>(op));
      Tensor a = nonzero_operand(pair.a, 4).set_requires_grad(true);
      Tensor b = nonzero_operand(pair.b, 5).set_requires_grad(true);
      const Tensor out = apply_binary(op, a, b);
      const Tensor w = random_tensor(out.shape(), 6);
      out.backward(w);
      REQUIRE(a.grad().defined());
      REQUIRE(b.grad().defined());
      CHECK(a.grad().shape() == pair.a);
      CHECK(b.grad().shape() == pair.b);
      CHECK(relative_error(a.grad(), gradient_reference(op, 0, a, b, w)) < 1e-6);
      CHECK(relative_error(b.grad(), gradient_reference(op, 1, a, b, w)) < 1e-6);
    }
  }
}

TEST_CASE("add, sub, mul, div and scale gradients match finite differences, broadcast operands included") {
  for (const Pair& pair : kPairs) {
    CAPTURE(shape_str(pair.a));
    CAPTURE(shape_str(pair.b));
    Tensor a = nonzero_operand(pair.a, 7).set_requires_grad(true);
    Tensor b = nonzero_operand(pair.b, 8).set_requires_grad(true);
    for (BinaryOp op : {BinaryOp::Add, BinaryOp::Sub, BinaryOp::Mul, BinaryOp::Div}) {
      CAPTURE(static_cast<int>(op));
      CHECK(gradient_error([op](const std::vector<Tensor>& in) { return apply_binary(op, in[0], in[1]); }, {a, b}) <
            1e-2);
    }
    CHECK(gradient_error([](const std::vector<Tensor>& in) { return ops::scale(in[0], 0.7f); }, {a}) < 1e-2);
  }
}

TEST_CASE("maximum and minimum route the gradient to the selected operand and split ties evenly") {
  Tensor a = Tensor::from_vector(std::vector<float>{1.0f, 2.0f, 3.0f}, {3}).set_requires_grad(true);
  Tensor b = Tensor::from_vector(std::vector<float>{2.0f, 2.0f, 1.0f}, {3}).set_requires_grad(true);
  ops::maximum(a, b).backward(Tensor::full({3}, 4.0));
  CHECK(a.grad().to_vector<float>() == std::vector<float>{0.0f, 2.0f, 4.0f});
  CHECK(b.grad().to_vector<float>() == std::vector<float>{4.0f, 2.0f, 0.0f});
  a.zero_grad();
  b.zero_grad();
  ops::minimum(a, b).backward(Tensor::full({3}, 4.0));
  CHECK(a.grad().to_vector<float>() == std::vector<float>{4.0f, 2.0f, 0.0f});
  CHECK(b.grad().to_vector<float>() == std::vector<float>{0.0f, 2.0f, 4.0f});
  const float nan = std::nanf("");
  const Tensor with_nan = Tensor::from_vector(std::vector<float>{nan, 1.0f}, {2});
  const Tensor ones = Tensor::full({2}, 1.0);
  CHECK(std::isnan(ops::maximum(ones, with_nan).to_vector<float>()[0]));
  CHECK(std::isnan(ops::minimum(with_nan, ones).to_vector<float>()[0]));
}

TEST_CASE("a vector [N] broadcasts over the rows of [N, D] through reshape to [N, 1]") {
  Tensor x = random_tensor({7, 3}, 9).set_requires_grad(true);
  Tensor s = random_tensor({7}, 10).set_requires_grad(true);
  const Tensor y = ops::mul(x, ops::reshape(s, {7, 1}));
  const std::vector<double> xs = to_double(x), ss = to_double(s);
  std::vector<double> expected;
  for (std::size_t i = 0; i < xs.size(); ++i) expected.push_back(xs[i] * ss[i / 3]);
  CHECK(relative_error(y, expected) < 1e-7);
  CHECK(gradient_error([](const std::vector<Tensor>& in) { return ops::mul(in[0], ops::reshape(in[1], {7, 1})); },
                       {x, s}) < 1e-2);
}

TEST_CASE("an operand used twice receives the sum of both gradients") {
  Tensor x = random_tensor({3, 2}, 6).set_requires_grad(true);
  CHECK(gradient_error([](const std::vector<Tensor>& in) { return ops::mul(in[0], in[0]); }, {x}) < 1e-2);
  CHECK(gradient_error([](const std::vector<Tensor>& in) { return ops::sub(in[0], in[0]); }, {x}) < 1e-2);
}

TEST_CASE("the broadcast layout merges axes along which both operands behave alike") {
  CHECK(ops::broadcast_layout({5, 4, 3}, {5, 4, 3}, "add").axes == 1);
  CHECK(ops::broadcast_layout({5, 4, 3}, {}, "add").axes == 1);
  CHECK(ops::broadcast_layout({5, 4, 3}, {4, 3}, "add").axes == 2);
  CHECK(ops::broadcast_layout({5, 4, 3}, {5, 4, 1}, "add").axes == 2);
  CHECK(ops::broadcast_layout({5, 1, 3}, {5, 4, 3}, "add").axes == 3);
  CHECK(ops::broadcast_layout({1, 1, 1}, {1}, "add").axes == 1);
  // 1-sized output axes vanish: [5, 1, 3] against [5, 1, 3] is one run.
  CHECK(ops::broadcast_layout({5, 1, 3}, {5, 1, 3}, "add").axes == 1);
  CHECK_THROWS_WITH_AS(ops::broadcast_layout({2, 1, 2, 1, 2, 1, 2, 1, 2, 1}, {1, 2, 1, 2, 1, 2, 1, 2, 1, 2}, "mul"),
                       doctest::Contains("mul: broadcasting a's shape [2, 1, 2, 1, 2, 1, 2, 1, 2, 1]"), InvalidArgument);
}

TEST_CASE("mixed float32 and bfloat16 operands give a's dtype, either operand the larger") {
  const Tensor x16 = ops::cast(random_tensor({5, 3}, 11), DType::BFloat16);
  const Tensor bias = random_tensor({3}, 12);
  CHECK(ops::add(x16, bias).dtype() == DType::BFloat16);
  CHECK(ops::add(bias, x16).dtype() == DType::Float32);
  CHECK(ops::add(bias, x16).shape() == Shape{5, 3});
  CHECK(relative_error(ops::add(bias, x16), forward_reference(BinaryOp::Add, bias, x16)) < 1e-7);
}

TEST_CASE("BF16 binary ops under broadcasting: bfloat16 or float32 results and gradients within stated bounds") {
  struct Case {
    Shape a;
    DType a_dtype;
    Shape b;
    DType b_dtype;
  };
  const DType bf = DType::BFloat16, f32 = DType::Float32;
  for (const Case& c : {Case{{67, 9}, bf, {9}, f32}, Case{{67, 9}, bf, {67, 1}, bf}, Case{{67, 1}, f32, {67, 9}, bf},
                        Case{{13, 4, 5}, bf, {13, 4, 1}, f32}, Case{{13, 1, 5}, bf, {13, 4, 5}, bf},
                        Case{{9}, f32, {67, 9}, bf}, Case{{6, 5}, bf, {}, bf}}) {
    CAPTURE(shape_str(c.a));
    CAPTURE(shape_str(c.b));
    for (BinaryOp op : kBinaryOps) {
      CAPTURE(static_cast<int>(op));
      const double worst = bf16::binary_error(Device::cpu(), op, c.a, c.a_dtype, c.b, c.b_dtype);
      CHECK(worst <= 1.0);
    }
  }
}

TEST_CASE("elementwise ops refuse bad arguments, naming the op, the argument and the shapes") {
  const Tensor a = Tensor::zeros({4, 3});
  CHECK_THROWS_WITH_AS(ops::add(a, Tensor::zeros({4})),
                       doctest::Contains("add: a's shape [4, 3] and b's shape [4] do not broadcast"), InvalidArgument);
  CHECK_THROWS_WITH_AS(ops::div(Tensor::zeros({2, 5, 3}), Tensor::zeros({5, 2})),
                       doctest::Contains("div: a's shape [2, 5, 3] and b's shape [5, 2] do not broadcast"),
                       InvalidArgument);
  CHECK_THROWS_WITH_AS(ops::sub(a, Tensor::zeros({3}, DType::Int32)),
                       doctest::Contains("sub: argument 'b' must be float32 or bfloat16, got int32"), InvalidArgument);
  CHECK_THROWS_WITH_AS(ops::maximum(Tensor::zeros({3}, DType::Int64), a),
                       doctest::Contains("maximum: argument 'a' must be float32 or bfloat16"), InvalidArgument);
  CHECK_THROWS_WITH_AS(ops::minimum(a, Tensor()), doctest::Contains("minimum: argument 'b' is an undefined tensor"),
                       InvalidArgument);
  CHECK_THROWS_WITH_AS(ops::scale(Tensor::zeros({3}, DType::Int64), 2.0f), doctest::Contains("scale: argument 'x'"),
                       InvalidArgument);
}
