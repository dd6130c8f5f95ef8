#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/generator.hpp"

using namespace sgnn;

TEST_CASE("philox4x32-10 matches the Random123 known-answer vectors") {
  const Philox4x32 zero = philox4x32_10({{0, 0, 0, 0}}, 0, 0);
  CHECK(zero.v[0] == 0x6627e8d5u);
  CHECK(zero.v[1] == 0xe169c58du);
  CHECK(zero.v[2] == 0xbc57ac4cu);
  CHECK(zero.v[3] == 0x9b00dbd8u);
  const Philox4x32 ones = philox4x32_10({{0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu}}, 0xffffffffu, 0xffffffffu);
  CHECK(ones.v[0] == 0x408f276du);
  CHECK(ones.v[1] == 0x41c83b0eu);
  CHECK(ones.v[2] == 0xa20bc7c6u);
  CHECK(ones.v[3] == 0x6d5451fdu);
  const Philox4x32 pi = philox4x32_10({{0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u}}, 0xa4093822u, 0x299f31d0u);
  CHECK(pi.v[0] == 0xd16cfe09u);
  CHECK(pi.v[1] == 0x94fdccebu);
  CHECK(pi.v[2] == 0x5001e420u);
  CHECK(pi.v[3] == 0x24126ea1u);
}

TEST_CASE("generator streams are reproducible from the seed and never overlap") {
  Generator a(42);
  Generator b(42);
  const PhiloxStream first = a.next_stream(10);
  const PhiloxStream second = a.next_stream(5);
  CHECK(second.offset == first.offset + 3);  // 10 values use 3 blocks of 4
  const PhiloxStream again = b.next_stream(10);
  for (uint64_t i = 0; i < 10; ++i) CHECK(first.uniform(i) == again.uniform(i));
  CHECK(first.uniform(0) != second.uniform(0));
  Generator other(43);
  CHECK(other.next_stream(1).uniform(0) != first.uniform(0));
}

TEST_CASE("uniform draws lie in [0, 1) with the right mean") {
  Generator generator(7);
  const PhiloxStream stream = generator.next_stream(100000);
  double sum = 0.0;
  for (uint64_t i = 0; i < 100000; ++i) {
    const float u = stream.uniform(i);
    REQUIRE(u >= 0.0f);
    REQUIRE(u < 1.0f);
    sum += static_cast<double>(u);
  }
  CHECK(std::abs(sum / 100000.0 - 0.5) < 0.005);
}

TEST_CASE("16-bit draws: element 8·b + j is half j % 2 of block b's word j / 2, every step of 2^-16 reachable") {
  Generator generator(11);
  const PhiloxStream stream = generator.next_stream(1 << 20);
  for (uint64_t block : {uint64_t{0}, uint64_t{1}, uint64_t{12345}}) {
    const Philox4x32 counter{{static_cast<uint32_t>(block), 0, static_cast<uint32_t>(stream.offset),
                              static_cast<uint32_t>(stream.offset >> 32)}};
    const Philox4x32 bits =
        philox4x32_10(counter, static_cast<uint32_t>(stream.seed), static_cast<uint32_t>(stream.seed >> 32));
    for (int j = 0; j < 8; ++j) {
      const uint32_t half = j % 2 == 0 ? (bits.v[j / 2] & 0xFFFFu) : (bits.v[j / 2] >> 16);
      CHECK(stream.uniform16(8 * block + static_cast<uint64_t>(j)) == static_cast<float>(half) / 65536.0f);
    }
  }
  // Over 2^20 draws (16 per value on average) the low and high halves both
  // reach nearly all 65536 values; the mean is 1/2 - 2^-17.
  std::vector<bool> seen_low(65536, false), seen_high(65536, false);
  double sum = 0.0;
  bool all_steps_in_range = true;
  for (uint64_t i = 0; i < (uint64_t{1} << 20); ++i) {
    const float u = stream.uniform16(i);
    const auto value = static_cast<std::size_t>(u * 65536.0f);
    // In [0, 1) and a multiple of 2^-16.
    all_steps_in_range = all_steps_in_range && u >= 0.0f && u < 1.0f && static_cast<float>(value) == u * 65536.0f;
    if (value < 65536) (i % 2 == 0 ? seen_low : seen_high)[value] = true;
    sum += static_cast<double>(u);
  }
  CHECK(all_steps_in_range);
  const auto count = [](const std::vector<bool>& seen) { return std::count(seen.begin(), seen.end(), true); };
  CHECK(count(seen_low) > 65000);  // 65536 · (1 - e^-8) ≈ 65514 expected
  CHECK(count(seen_high) > 65000);
  CHECK(std::abs(sum / static_cast<double>(uint64_t{1} << 20) - 0.5) < 0.002);
}
