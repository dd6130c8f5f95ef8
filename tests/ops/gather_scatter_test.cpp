#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include "ops/cast.hpp"
#include "ops/gather_scatter.hpp"
#include "tests/support/gather_scatter_reference.hpp"
#include "tests/support/testing.hpp"

using namespace sgnn;
using namespace sgnn::testing;
using ops::ReduceKind;

namespace {

constexpr ReduceKind kReductions[] = {ReduceKind::Sum, ReduceKind::Mean, ReduceKind::Max, ReduceKind::Min};

Tensor index_tensor(const std::vector<int64_t>& values, DType dtype) {
  const auto count = static_cast<int64_t>(values.size());
  if (dtype == DType::Int64) return Tensor::from_vector(values, {count});
  return Tensor::from_vector(std::vector<int32_t>(values.begin(), values.end()), {count});
}

// Distinct values k · 0.01 around 0 (negative and positive), shuffled: no
// ties, and gaps (0.01) far above a finite-difference step, so Max and Min
// keep their winner under it.
Tensor distinct_values(const Shape& shape, uint64_t seed) {
  const int64_t count = shape_numel(shape);
  std::vector<float> values(static_cast<std::size_t>(count));
  for (int64_t i = 0; i < count; ++i) values[static_cast<std::size_t>(i)] = static_cast<float>(i - count / 2) * 0.01f;
  std::shuffle(values.begin(), values.end(), std::mt19937_64(seed));
  return Tensor::from_vector(values, shape);
}

int64_t row_width(const Tensor& tensor) { return tensor.size(0) == 0 ? 0 : tensor.numel() / tensor.size(0); }

// The gradient Max/Min send back: grad_out's elements at the winning rows, 0 elsewhere.
std::vector<double> winner_gradient(const ReducedRows& reduced, const std::vector<double>& grad_out, int64_t rows,
                                    int64_t width) {
  std::vector<double> expected(static_cast<std::size_t>(rows * width), 0.0);
  for (std::size_t cell = 0; cell < reduced.winners.size(); ++cell) {
    const int64_t winner = reduced.winners[cell];
    if (winner >= 0) expected[static_cast<std::size_t>(winner * width) + cell % static_cast<std::size_t>(width)] = grad_out[cell];
  }
  return expected;
}

// Forward against the float64 reference; for Max and Min also the backward
// (each output's gradient at its winning row, exactly).
// Sums: float against float64, 1e-6 relative; rows of ~1e5 terms need
// ~√n·u_float ≈ 2e-5 (`tolerance`).
void check_against_reference(const Tensor& out, const Tensor& src, const std::vector<int64_t>& target, int64_t outputs,
                             ReduceKind reduce, uint64_t seed, double tolerance = 1e-6) {
  const int64_t width = row_width(src);
  const ReducedRows reduced = reference_reduce(to_double(src), width, target, outputs, reduce);
  CAPTURE(ops::reduce_kind_name(reduce));
  CAPTURE(shape_str(src.shape()));
  Shape expected_shape = src.shape();
  expected_shape[0] = outputs;
  CHECK(out.shape() == expected_shape);
  if (ops::reduce_keeps_argument(reduce)) {
    CHECK(to_double(out) == reduced.values);  // a value of src, exactly
    const Tensor grad_out = random_tensor(out.shape(), seed);
    out.backward(grad_out);
    CHECK(to_double(src.grad()) == winner_gradient(reduced, to_double(grad_out), src.size(0), width));
  } else {
    CHECK(relative_error(out, reduced.values) < tolerance);
  }
}

}  // namespace

TEST_CASE("gather_rows copies the indexed rows: duplicates, any row shape, int32 and int64 indices") {
  for (const Shape& shape : {Shape{7}, Shape{7, 5}, Shape{7, 3, 2}}) {
    for (DType dtype : {DType::Int32, DType::Int64}) {
      const Tensor x = random_tensor(shape, 1);
      const std::vector<int64_t> rows{6, 0, 0, 3, 6, 6, 1};
      const Tensor out = ops::gather_rows(x, index_tensor(rows, dtype));
      Shape expected_shape = shape;
      expected_shape[0] = 7;
      CHECK(out.shape() == expected_shape);
      const std::vector<double> source = to_double(x);
      const int64_t width = row_width(x);
      std::vector<double> expected;
      for (int64_t row : rows) {
        expected.insert(expected.end(), source.begin() + row * width, source.begin() + (row + 1) * width);
      }
      CHECK(to_double(out) == expected);
      CHECK(ops::gather_rows(x, index_tensor({}, dtype)).numel() == 0);
    }
  }
}

TEST_CASE("gather_rows backward sums the gradient of repeated rows; rows never gathered get 0") {
  Tensor x = random_tensor({6, 3}, 2).set_requires_grad(true);
  const Tensor index = index_tensor({4, 1, 4, 4, 0}, DType::Int64);
  CHECK(gradient_error([&](const std::vector<Tensor>& in) { return ops::gather_rows(in[0], index); }, {x}) < 1e-2);
  x.zero_grad();
  ops::gather_rows(x, index).backward(Tensor::full({5, 3}, 1.0));
  CHECK(to_double(x.grad()) == std::vector<double>{1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 3, 3, 3, 0, 0, 0});
}

TEST_CASE("scatter matches float64 references: sum, mean, max, min; empty rows, duplicates, negative values") {
  uint64_t seed = 10;
  for (const Shape& shape : {Shape{40}, Shape{40, 5}, Shape{40, 2, 3}}) {
    for (DType dtype : {DType::Int32, DType::Int64}) {
      for (ReduceKind reduce : kReductions) {
        // 13 outputs (not a multiple of 4), indices in [0, 10): rows 10-12 receive nothing.
        const Tensor index = random_indices({40}, ++seed, 0, 10, dtype);
        Tensor src = distinct_values(shape, ++seed).set_requires_grad(true);
        const Tensor out = ops::scatter(src, index, 13, reduce);
        check_against_reference(out, src, to_int64(index), 13, reduce, ++seed);
      }
    }
  }
  // No edges at all: every output row is 0.
  const Tensor empty = ops::scatter(Tensor::zeros({0, 4}), index_tensor({}, DType::Int32), 3, ReduceKind::Max);
  CHECK(to_double(empty) == std::vector<double>(12, 0.0));
}

TEST_CASE("segment_reduce matches float64 references: empty segments, a hub segment of 100000 rows, any row shape") {
  uint64_t seed = 100;
  std::mt19937_64 engine(7);
  // Lengths 0-6 with empty first and last segments; N = 41 rows (not a multiple of 4).
  std::vector<int64_t> lengths{0};
  while (std::accumulate(lengths.begin(), lengths.end(), int64_t{0}) < 35) lengths.push_back(static_cast<int64_t>(engine() % 7));
  lengths.push_back(0);
  std::vector<int64_t> offsets{0};
  for (int64_t length : lengths) offsets.push_back(offsets.back() + length);
  const int64_t rows = offsets.back();
  for (const Shape& tail : {Shape{}, Shape{5}, Shape{2, 3}}) {
    Shape shape{rows};
    shape.insert(shape.end(), tail.begin(), tail.end());
    for (DType dtype : {DType::Int32, DType::Int64}) {
      for (ReduceKind reduce : kReductions) {
        Tensor src = distinct_values(shape, ++seed).set_requires_grad(true);
        const Tensor out = ops::segment_reduce(src, index_tensor(offsets, dtype), reduce);
        check_against_reference(out, src, segment_of_positions(offsets), static_cast<int64_t>(lengths.size()), reduce,
                                ++seed);
      }
    }
  }
  // A hub: 3 short segments, one of 100000 rows, an empty one.
  const std::vector<int64_t> hub_offsets{0, 2, 3, 100003, 100003, 100006};
  for (ReduceKind reduce : kReductions) {
    Tensor src = random_tensor({100006, 3}, ++seed, -2.0, 1.0).set_requires_grad(true);
    const Tensor out = ops::segment_reduce(src, index_tensor(hub_offsets, DType::Int64), reduce);
    check_against_reference(out, src, segment_of_positions(hub_offsets), 5, reduce, ++seed, 2e-5);
  }
}

TEST_CASE("max and min give equal values' gradient to the first row, in segments and in scatter") {
  const Tensor offsets = index_tensor({0, 5, 8}, DType::Int32);
  Tensor src = Tensor::from_vector(std::vector<float>{2, 5, 5, 1, 5, -3, -3, 0}, {8}).set_requires_grad(true);
  const Tensor maximum = ops::segment_reduce(src, offsets, ReduceKind::Max);
  CHECK(maximum.to_vector<float>() == std::vector<float>{5, 0});
  maximum.backward(Tensor::full({2}, 1.0));
  CHECK(src.grad().to_vector<float>() == std::vector<float>{0, 1, 0, 0, 0, 0, 0, 1});
  src.zero_grad();
  const Tensor minimum = ops::segment_reduce(src, offsets, ReduceKind::Min);
  CHECK(minimum.to_vector<float>() == std::vector<float>{1, -3});
  minimum.backward(Tensor::full({2}, 1.0));
  CHECK(src.grad().to_vector<float>() == std::vector<float>{0, 0, 0, 1, 0, 1, 0, 0});

  // Scatter: edges 0, 2 and 3 tie on output 1; edge 0 is the lowest.
  Tensor values = Tensor::from_vector(std::vector<float>{4, 7, 4, 4}, {4}).set_requires_grad(true);
  const Tensor scattered = ops::scatter(values, index_tensor({1, 0, 1, 1}, DType::Int64), 2, ReduceKind::Max);
  CHECK(scattered.to_vector<float>() == std::vector<float>{7, 4});
  scattered.backward(Tensor::full({2}, 1.0));
  CHECK(values.grad().to_vector<float>() == std::vector<float>{1, 1, 0, 0});
}

TEST_CASE("max and min propagate NaN: the first NaN wins and takes the gradient") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Tensor src = Tensor::from_vector(std::vector<float>{1, nan, 3, nan, 0}, {5}).set_requires_grad(true);
  for (ReduceKind reduce : {ReduceKind::Max, ReduceKind::Min}) {
    src.zero_grad();
    const Tensor out = ops::segment_reduce(src, index_tensor({0, 5}, DType::Int32), reduce);
    CHECK(std::isnan(out.item()));
    out.backward(Tensor::full({1}, 1.0));
    CHECK(src.grad().to_vector<float>() == std::vector<float>{0, 1, 0, 0, 0});
  }
}

TEST_CASE("scatter and segment_reduce gradients match finite differences") {
  const Tensor index = index_tensor({2, 0, 2, 5, 0, 2, 1}, DType::Int32);  // rows 3 and 4 empty
  const Tensor offsets = index_tensor({0, 3, 3, 7}, DType::Int64);         // segment 1 empty
  for (ReduceKind reduce : kReductions) {
    CAPTURE(ops::reduce_kind_name(reduce));
    Tensor src = distinct_values({7, 2, 2}, 300).set_requires_grad(true);
    CHECK(gradient_error([&](const std::vector<Tensor>& in) { return ops::scatter(in[0], index, 6, reduce); }, {src}) <
          1e-2);
    CHECK(gradient_error([&](const std::vector<Tensor>& in) { return ops::segment_reduce(in[0], offsets, reduce); },
                         {src}) < 1e-2);
  }
}

// BF16: inputs are bfloat16 (their values exact in float64), sums run in
// float and each output is rounded once. Bound per element: the final
// rounding, u_bf16 · |reference|, plus the float sums' error, at most
// count · u_float · Σ|x| (divided by the count for Mean). Max and Min pick a
// value of src: exact.
TEST_CASE("bfloat16 scatter, segment_reduce and gather_rows are within the stated bound of float64") {
  const std::vector<int64_t> offsets{0, 0, 3, 50, 51, 60};
  const Tensor index = random_indices({60}, 400, 0, 7, DType::Int32);
  for (ReduceKind reduce : kReductions) {
    CAPTURE(ops::reduce_kind_name(reduce));
    const Tensor src = ops::cast(random_tensor({60, 9}, 401, -3.0, 2.0), DType::BFloat16);
    const std::vector<double> values = to_double(src);
    for (const bool by_segments : {true, false}) {
      const std::vector<int64_t> target = by_segments ? segment_of_positions(offsets) : to_int64(index);
      const int64_t outputs = by_segments ? 5 : 7;
      const Tensor out = by_segments ? ops::segment_reduce(src, index_tensor(offsets, DType::Int32), reduce)
                                     : ops::scatter(src, index, outputs, reduce);
      CHECK(out.dtype() == DType::BFloat16);
      const ReducedRows reference = reference_reduce(values, 9, target, outputs, reduce);
      std::vector<double> magnitude(reference.values.size(), 0.0);
      for (std::size_t e = 0; e < target.size(); ++e) {
        for (std::size_t j = 0; j < 9; ++j) magnitude[static_cast<std::size_t>(target[e]) * 9 + j] += std::abs(values[e * 9 + j]);
      }
      std::vector<double> bound(reference.values.size());
      for (std::size_t cell = 0; cell < bound.size(); ++cell) {
        const auto count = static_cast<double>(reference.counts[cell / 9]);
        const double sums = count * kFloatUnitRoundoff * magnitude[cell] / (reduce == ReduceKind::Mean ? std::max(count, 1.0) : 1.0);
        bound[cell] = ops::reduce_keeps_argument(reduce) ? 0.0 : kBf16UnitRoundoff * std::abs(reference.values[cell]) + sums;
      }
      CHECK(worst_bound_ratio(out, reference.values, bound) <= 1.0);
    }
  }
  // gather_rows moves bfloat16 rows as they are; its backward sums in float and rounds once.
  Tensor x = ops::cast(random_tensor({5, 4}, 402), DType::BFloat16).set_requires_grad(true);
  const std::vector<double> rows = to_double(x);
  const Tensor gathered = ops::gather_rows(x, index_tensor({3, 3, 1}, DType::Int64));
  std::vector<double> expected(rows.begin() + 12, rows.begin() + 16);
  expected.insert(expected.end(), rows.begin() + 12, rows.begin() + 16);
  expected.insert(expected.end(), rows.begin() + 4, rows.begin() + 8);
  CHECK(to_double(gathered) == expected);
  gathered.backward(ops::cast(Tensor::full({3, 4}, 1.0), DType::BFloat16));
  CHECK(x.grad().dtype() == DType::BFloat16);
  CHECK(to_double(x.grad()) == std::vector<double>{0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 2, 2, 2, 2, 0, 0, 0, 0});
}

TEST_CASE("gather, scatter and segment_reduce refuse bad arguments, naming the op, the argument and the shapes") {
  const Tensor x = random_tensor({5, 3}, 1);
  const auto says = [](const std::string& text, std::initializer_list<const char*> parts) {
    CAPTURE(text);
    CHECK(!text.empty());
    for (const char* part : parts) CHECK(text.find(part) != std::string::npos);
  };
  says(invalid_argument_text([&] { (void)ops::gather_rows(x, index_tensor({0, 5}, DType::Int32)); }),
       {"gather_rows", "'index'", "[2]", "[0, 5]", "x of shape [5, 3]"});
  says(invalid_argument_text([&] { (void)ops::gather_rows(x, index_tensor({-1, 2}, DType::Int64)); }),
       {"gather_rows", "'index'", "[-1, 2]"});
  says(invalid_argument_text([&] { (void)ops::gather_rows(x, random_tensor({2}, 2)); }),
       {"gather_rows", "'index'", "int32 or int64", "float32"});
  says(invalid_argument_text([&] { (void)ops::gather_rows(x, Tensor::zeros({2, 1}, DType::Int32)); }),
       {"gather_rows", "'index'", "[2, 1]"});
  says(invalid_argument_text([&] { (void)ops::gather_rows(Tensor::zeros({5}, DType::Int32), index_tensor({0}, DType::Int32)); }),
       {"gather_rows", "'x'", "int32"});
  says(invalid_argument_text([&] { (void)ops::gather_rows(Tensor::full({}, 1.0), index_tensor({0}, DType::Int32)); }),
       {"gather_rows", "'x'", "[]"});
  says(invalid_argument_text([&] { (void)ops::gather_rows(x, Tensor()); }), {"gather_rows", "'index'", "undefined"});

  says(invalid_argument_text([&] { (void)ops::scatter(x, index_tensor({0, 1}, DType::Int32), 4, ReduceKind::Sum); }),
       {"scatter", "'index'", "[2]", "[5, 3]"});
  says(invalid_argument_text(
           [&] { (void)ops::scatter(x, index_tensor({0, 1, 2, 3, 4}, DType::Int32), 4, ReduceKind::Mean); }),
       {"scatter", "'index'", "[0, 4]", "num_outputs = 4"});
  says(invalid_argument_text([&] { (void)ops::scatter(x, index_tensor({0, 1, 2, 3, 0}, DType::Int32), -1, ReduceKind::Max); }),
       {"scatter", "num_outputs", "-1"});

  says(invalid_argument_text([&] { (void)ops::segment_reduce(x, index_tensor({0, 2, 4}, DType::Int32), ReduceKind::Sum); }),
       {"segment_reduce", "'offsets'", "[3]", "from 0 to 5", "[5, 3]", "last 4"});
  says(invalid_argument_text([&] { (void)ops::segment_reduce(x, index_tensor({1, 5}, DType::Int64), ReduceKind::Sum); }),
       {"segment_reduce", "'offsets'", "first 1"});
  says(invalid_argument_text([&] { (void)ops::segment_reduce(x, index_tensor({0, 4, 2, 5}, DType::Int64), ReduceKind::Min); }),
       {"segment_reduce", "'offsets'", "decreasing"});
  says(invalid_argument_text([&] { (void)ops::segment_reduce(x, index_tensor({}, DType::Int64), ReduceKind::Min); }),
       {"segment_reduce", "'offsets'", "[0]"});
  says(invalid_argument_text([&] { (void)ops::segment_reduce(x, random_tensor({2}, 3), ReduceKind::Min); }),
       {"segment_reduce", "'offsets'", "int32 or int64"});
}
