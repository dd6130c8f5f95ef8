// Generator: the seed and position of the library's random streams. Each
// random op (dropout, initialisation) takes a fresh PhiloxStream; the
// sequence of streams, hence every mask and initial weight, is fixed by the
// seed alone and is the same on the CPU and on a GPU.
//
// Under a ReplayParameters recording (a training step being captured into a
// CUDA Graph), next_draw() hands out offsets relative to a device slot that
// holds the generator's offset at each replay, so replays draw fresh masks
// and the host offset advances exactly as in eager mode (see
// core/replay_parameters.hpp).
#pragma once

#include <cstdint>

#include "core/philox.hpp"

namespace sgnn {

// A stream whose offset is stream.offset + *offset_base when offset_base is
// set: the base is read where the draw is used (a kernel, when it runs).
struct RandomDraw {
  PhiloxStream stream;
  const uint64_t* offset_base = nullptr;

  SGNN_HOST_DEVICE PhiloxStream resolve() const {
    PhiloxStream resolved = stream;
    if (offset_base != nullptr) resolved.offset += *offset_base;
    return resolved;
  }
};

class Generator {
 public:
  explicit Generator(uint64_t seed = 0) : seed_(seed) {}
  // Reserves a stream for `count` values and advances past it.
  PhiloxStream next_stream(uint64_t count);
  // next_stream() as a RandomDraw; under an active ReplayParameters recording
  // the offset is deferred to this generator's slot and the host offset is
  // left for the recording's refresh to advance (once per launch).
  RandomDraw next_draw(uint64_t count);
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
