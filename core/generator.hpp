// Generator: the seed and position of the library's random streams. Each
// random op (dropout, initialisation) takes a fresh PhiloxStream; the
// sequence of streams, hence every mask and initial weight, is fixed by the
// seed alone and is the same on the CPU and on a GPU.
#pragma once

#include <cstdint>

#include "core/philox.hpp"

namespace sgnn {

class Generator {
 public:
  explicit Generator(uint64_t seed = 0) : seed_(seed) {}
  // Reserves a stream for `count` values and advances past it.
  PhiloxStream next_stream(uint64_t count);
  void reset(uint64_t seed) { seed_ = seed; offset_ = 0; }
  uint64_t seed() const { return seed_; }
  uint64_t offset() const { return offset_; }  // saved in checkpoints to resume exactly
  void set_offset(uint64_t offset) { offset_ = offset; }

 private:
  uint64_t seed_;
  uint64_t offset_ = 0;
};

// The process-wide generator used when an op is given none.
Generator& default_generator();
// Reseeds the default generator (and restarts its streams).
void manual_seed(uint64_t seed);

}  // namespace sgnn
