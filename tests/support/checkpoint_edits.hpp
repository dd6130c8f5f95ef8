// Checkpoint contents with one number planted, for the tests that a damaged
// checkpoint is refused and changes nothing (tests/training/
// checkpoint_regression_test.cpp, tests/sampling/block_checkpoint_test.cpp).
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <limits>
#include <string_view>

#include "graph_io/section_file.hpp"

namespace sgnn::testing {

// Numbers that are not a whole count of epochs, stored where a history keeps
// an int64: 3.65296e+233 is the value fuzz_checkpoint planted
// (crash-history-epoch-1e233 in fuzz/corpus).
inline const std::array<double, 5> kNotWholeCounts = {3.65296e+233, std::numeric_limits<double>::quiet_NaN(), -1.0,
                                                      1.5, std::numeric_limits<double>::infinity()};

// `contents` with element `index` of the int64 section `section` holding
// `value`'s bits (that section copied, the others shared).
inline graph_io::SectionFile with_int64_bits(const graph_io::SectionFile& contents, std::string_view section,
                                             int64_t index, double value) {
  graph_io::SectionFile altered = contents;
  for (auto& [name, tensor] : altered.sections) {
    if (name != section) continue;
    tensor = tensor.clone();
    tensor.data<int64_t>()[index] = std::bit_cast<int64_t>(value);
  }
  return altered;
}

}  // namespace sgnn::testing
