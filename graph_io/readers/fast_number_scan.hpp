// Fast paths for the numbers of the row parsers (graph_io/readers/ogb_reader.cpp):
// each reads the common form of a number straight from the text and answers
// only when it is sure; for anything else it returns nullptr and the caller
// hands the line to the strict parsers of line_parser.hpp, which define what
// is accepted and every error. So a fast path may refuse freely, but where it
// answers it gives exactly the strict parser's value.
#pragma once

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace sgnn::graph_io {

// Fast path for a node id: 1 to 9 decimal digits (no overflow possible) below
// `limit`. Returns the end of the digits, or nullptr for anything else (a
// sign, more digits, an id >= limit, no digit): the caller then hands the line
// to the strict parser, which accepts it (e.g. "+7") or says why not.
inline const char* scan_index(const char* position, const char* end, int64_t limit, int32_t& value) {
  // Up to 10 characters are looked at: 9 digits and the one that must end them.
  const std::ptrdiff_t visible = std::min<std::ptrdiff_t>(end - position, 10);
  int64_t number = 0;
  std::ptrdiff_t length = 0;
  for (; length < visible; ++length) {
    const unsigned digit = static_cast<unsigned>(position[length] - '0');
    if (digit > 9) break;
    number = number * 10 + digit;
  }
  if (length == 0 || length > 9 || number >= limit) return nullptr;
  value = static_cast<int32_t>(number);
  return position + length;
}

// Fast path for a float32 in plain decimal, [-]digits[.digits][(e|E)[+|-]digits]
// (what CSV writers emit): the end of the number, or nullptr for anything
// else, which the caller hands to std::from_chars, so this only has to be
// right when it answers. It gives std::from_chars's value (correctly
// rounded): the significand m < 2^53 and 10^k (k <= 22) are exact doubles, so
// m * 10^k or m / 10^k is the decimal correctly rounded to double (Clinger's
// fast path), and rounding that double to float is then correct unless it lies
// exactly halfway between two floats (the decimal may be just above or just
// below): those are refused.
inline const char* scan_float(const char* position, const char* end, float& value) {
  static constexpr double kPowersOfTen[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                            1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  auto is_digit = [](char c) { return static_cast<unsigned>(c - '0') <= 9; };
  const bool negative = position < end && *position == '-';
  if (negative) ++position;
  // Every digit goes into the significand, leading zeros too: at most 19 fit
  // in 64 bits (more wrap around and are refused below, as are none).
  uint64_t significand = 0;
  auto append_digits = [&] {
    for (; position < end && is_digit(*position); ++position) {
      significand = significand * 10 + static_cast<uint64_t>(*position - '0');
    }
  };
  const char* digits_begin = position;
  append_digits();
  int64_t digits = position - digits_begin;
  int64_t exponent = 0;  // of the last digit
  if (position < end && *position == '.') {
    const char* fraction_begin = ++position;
    append_digits();
    exponent = fraction_begin - position;
    digits -= exponent;
  }
  if (digits == 0 || digits > 19) return nullptr;
  if (position < end && (*position == 'e' || *position == 'E')) {
    ++position;
    const bool negative_exponent = position < end && *position == '-';
    if (position < end && (*position == '-' || *position == '+')) ++position;
    const char* first = position;
    int64_t written = 0;
    for (; position < end && is_digit(*position) && position - first < 4; ++position) {
      written = written * 10 + (*position - '0');
    }
    if (position == first || (position < end && is_digit(*position))) return nullptr;  // none, or over 4 digits
    exponent += negative_exponent ? -written : written;
  }
  double result = 0.0;
  if (significand != 0) {
    if (significand > (uint64_t{1} << 53) || exponent < -22 || exponent > 22) return nullptr;
    const auto exact = static_cast<double>(significand);
    result = exponent < 0 ? exact / kPowersOfTen[-exponent] : exact * kPowersOfTen[exponent];
    // result lies in [1e-22, 2^53 * 1e22 < 1e38]: a normal float, never an overflow or a subnormal.
    uint64_t bits = 0;
    std::memcpy(&bits, &result, sizeof(bits));
    // A double in the normal float range keeps 29 bits more than a float: 1 then 28 zeros is halfway.
    if ((bits & ((uint64_t{1} << 29) - 1)) == (uint64_t{1} << 28)) return nullptr;
  }
  const auto rounded = static_cast<float>(result);
  value = negative ? -rounded : rounded;
  return position;
}

// A finite float32 at `position` as std::from_chars reads it (through
// scan_float when it can): the end of the number, or nullptr when
// from_chars refuses it or it is not finite (the strict parser then says why,
// or accepts it: "+1").
inline const char* scan_finite_float(const char* position, const char* end, float& value) {
  if (const char* stop = scan_float(position, end, value)) return stop;
  const auto [stop, error] = std::from_chars(position, end, value);
  return error == std::errc() && std::isfinite(value) ? stop : nullptr;
}

}  // namespace sgnn::graph_io
