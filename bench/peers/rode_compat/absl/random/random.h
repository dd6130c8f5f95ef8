// Stand-in for the two names of Abseil's random library that RoDe's matrix
// utilities (utils/matrix_utils.*) use: absl::BitGen (also passed to
// std::shuffle) and absl::Uniform. RoDe needs them only to fill random test
// matrices, which rode_driver never asks for; with this header RoDe's own
// files compile without Abseil (RoDe's build brings it in as a git submodule).
#pragma once

#include <random>

namespace absl {

// A uniform random bit generator, as Abseil's is.
class BitGen : public std::mt19937_64 {
 public:
  BitGen() : std::mt19937_64(0x5eedULL) {}
};

// A value uniform in [low, high), converted to T (RoDe calls it with float and double).
template <typename T>
T Uniform(BitGen& generator, double low, double high) {
  return static_cast<T>(std::uniform_real_distribution<double>(low, high)(generator));
}

}  // namespace absl
