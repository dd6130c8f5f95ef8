#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>

#include "core/autograd.hpp"
#include "core/bfloat16.hpp"
#include "core/tensor.hpp"

using namespace sgnn;

namespace {

float from_bits(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

uint32_t bits_of(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

// The bfloat16 nearest to x (ties to the even bit pattern), found by comparing
// the two neighbours in float64: an independent reference of the integer trick.
uint16_t nearest_bits(float x) {
  const uint32_t bits = bits_of(x);
  const auto below = static_cast<uint16_t>(bits >> 16);  // truncation: toward zero
  const auto above = static_cast<uint16_t>(below + 1);   // the next magnitude (may be Inf)
  const double low = static_cast<double>(bfloat16::from_bits(below).to_float());
  const double high = static_cast<double>(bfloat16::from_bits(above).to_float());
  const double value = static_cast<double>(x);
  const double to_low = std::abs(value - low);
  // Past the largest finite bfloat16 the upper neighbour is Inf: the midpoint
  // rule against the next power of two decides, as IEEE rounding does.
  const double to_high =
      std::isinf(high) ? std::abs(std::ldexp(std::copysign(1.0, value), 128) - value) : std::abs(value - high);
  if (to_low < to_high) return below;
  if (to_high < to_low) return above;
  return (below & 1u) == 0 ? below : above;
}

}  // namespace

TEST_CASE("bfloat16 rounds to nearest, ties to even, on special and random values") {
  CHECK(bfloat16(1.0f).bits == 0x3F80);
  CHECK(bfloat16(-2.5f).to_float() == -2.5f);
  // 1 + 2^-8 lies halfway between 1 and 1 + 2^-7: ties go to the even pattern (1).
  CHECK(bfloat16(1.0f + 1.0f / 256.0f).to_float() == 1.0f);
  // 1 + 3·2^-8 lies halfway between 1 + 2^-7 (odd) and 1 + 2^-6 (even): up.
  CHECK(bfloat16(1.0f + 3.0f / 256.0f).to_float() == 1.0f + 1.0f / 64.0f);
  // Just above the midpoint rounds up.
  CHECK(bfloat16(from_bits(0x3F808001u)).to_float() == 1.0f + 1.0f / 128.0f);
  CHECK(bfloat16(std::numeric_limits<float>::infinity()).to_float() == std::numeric_limits<float>::infinity());
  CHECK(bfloat16(-std::numeric_limits<float>::infinity()).to_float() == -std::numeric_limits<float>::infinity());
  CHECK(std::isinf(bfloat16(std::numeric_limits<float>::max()).to_float()));  // beyond the largest bfloat16
  CHECK(bfloat16(from_bits(0x7F7F7FFFu)).bits == 0x7F7F);                     // below the midpoint: largest finite
  CHECK(bfloat16(-0.0f).bits == 0x8000);
  CHECK(bfloat16(std::numeric_limits<float>::denorm_min()).bits == 0x0000);  // a tiny subnormal: to zero
  const bfloat16 nan = bfloat16(-std::numeric_limits<float>::quiet_NaN());
  CHECK(std::isnan(nan.to_float()));
  CHECK(std::signbit(nan.to_float()));
  CHECK(std::isnan(bfloat16(from_bits(0x7F800001u)).to_float()));  // a NaN whose payload would round to Inf

  std::mt19937 engine(5);
  for (int i = 0; i < 200000; ++i) {
    float x = from_bits(static_cast<uint32_t>(engine()));
    if (std::isnan(x)) continue;
    if (i % 2 == 0) x = std::ldexp(static_cast<float>(i % 1000) / 999.0f - 0.5f, i % 60 - 30);  // ordinary magnitudes
    INFO("x = ", x);
    REQUIRE(bfloat16(x).bits == nearest_bits(x));
  }
}

TEST_CASE("bfloat16 to float is exact: every bit pattern survives the round trip") {
  for (uint32_t bits = 0; bits <= 0xFFFFu; ++bits) {
    const bfloat16 value = bfloat16::from_bits(static_cast<uint16_t>(bits));
    const float wide = value.to_float();
    CHECK(bits_of(wide) == bits << 16);
    if (!std::isnan(wide)) CHECK(bfloat16(wide).bits == bits);
  }
}

TEST_CASE("bfloat16 stays within the unit roundoff 2^-8 of its float") {
  std::mt19937 engine(9);
  std::uniform_real_distribution<float> distribution(-1e6f, 1e6f);
  double worst = 0.0;
  for (int i = 0; i < 100000; ++i) {
    const float x = distribution(engine);
    const double error = std::abs(static_cast<double>(bfloat16(x).to_float()) - static_cast<double>(x));
    worst = std::max(worst, error / std::abs(static_cast<double>(x)));
  }
  CHECK(worst <= 1.0 / 256.0);
  CHECK(worst > 1.0 / 512.0);  // the bound is attained, roughly: the rounding is not finer than bfloat16
}

TEST_CASE("bfloat16 tensors: creation, copies, item, printing") {
  const Tensor values =
      Tensor::from_vector(std::vector<bfloat16>{bfloat16(1.5f), bfloat16(-2.0f), bfloat16(0.1f)}, {3});
  CHECK(values.dtype() == DType::BFloat16);
  CHECK(values.nbytes() == 6);
  CHECK(dtype_size(DType::BFloat16) == 2);
  CHECK(dtype_name(DType::BFloat16) == "bfloat16");
  CHECK(values.to_vector<bfloat16>()[2].to_float() == bfloat16(0.1f).to_float());
  CHECK_THROWS_AS(values.to_vector<float>(), InvalidArgument);
  CHECK(values.narrow_rows(1, 2).item() == -2.0);
  const Tensor full = Tensor::full({2, 2}, 3.14159, DType::BFloat16);
  CHECK(full.to_vector<bfloat16>()[3].to_float() == bfloat16(3.14159f).to_float());
  const Tensor zeros = Tensor::zeros({4}, DType::BFloat16);
  for (const bfloat16 v : zeros.to_vector<bfloat16>()) CHECK(v.bits == 0);
  std::ostringstream printed;
  printed << values;
  CHECK(printed.str().find("dtype=bfloat16") != std::string::npos);
  CHECK(printed.str().find("1.5, -2, 0.100098") != std::string::npos);  // 0.1 as bfloat16
}

TEST_CASE("autograd on bfloat16 tensors: leaves, gradient dtype checks, sums of gradients") {
  Tensor x = Tensor::full({3}, 1.0, DType::BFloat16);
  x.set_requires_grad(true);
  CHECK(x.requires_grad());
  CHECK_THROWS_AS(Tensor::zeros({2}, DType::Int32).set_requires_grad(true), InvalidArgument);
  // A node whose backward returns 1/3 (not a bfloat16 value), used twice:
  // each gradient is rounded once, their sum is computed in float and rounded once.
  const auto third = [](const Tensor& input) {
    Tensor out = input.clone();
    autograd::record("third", {input}, out, [](const Tensor& grad, const autograd::NeedsGrad&) {
      Tensor g = Tensor::full(grad.shape(), 1.0 / 3.0, DType::BFloat16);
      return std::vector<Tensor>{g};
    });
    return out;
  };
  Tensor y = third(x);
  Tensor z = third(x);
  (void)z;
  y.backward(Tensor::full({3}, 1.0, DType::BFloat16), /*retain_graph=*/false);
  z.backward(Tensor::full({3}, 1.0, DType::BFloat16), /*retain_graph=*/false);
  REQUIRE(x.grad().dtype() == DType::BFloat16);
  const float once = bfloat16(1.0f / 3.0f).to_float();
  CHECK(x.grad().to_vector<bfloat16>()[0].to_float() == bfloat16(once + once).to_float());
  // A seed of the wrong dtype is refused with both dtypes named.
  Tensor w = third(x);
  CHECK_THROWS_WITH_AS(w.backward(Tensor::full({3}, 1.0)), doctest::Contains("bfloat16"), AutogradError);
  // A backward returning float32 for a bfloat16 input is refused.
  Tensor v = x.clone();
  autograd::record("wrong", {x}, v, [](const Tensor& grad, const autograd::NeedsGrad&) {
    return std::vector<Tensor>{Tensor::zeros(grad.shape())};
  });
  CHECK_THROWS_WITH_AS(v.backward(Tensor::full({3}, 1.0, DType::BFloat16)), doctest::Contains("float32"),
                       AutogradError);
}
