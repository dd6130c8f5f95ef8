#include "core/generator.hpp"

#include "core/error.hpp"
#include "core/replay_parameters.hpp"

namespace sgnn {

namespace {
uint64_t blocks_for(uint64_t count) { return (count + 3) / 4; }
}  // namespace

PhiloxStream Generator::next_stream(uint64_t count) {
  const PhiloxStream stream{seed_, offset_};
  offset_ += blocks_for(count);
  return stream;
}

RandomDraw Generator::next_draw(uint64_t count) {
  ReplayParameters* replay = ReplayParameters::active();
  if (replay == nullptr) return RandomDraw{next_stream(count), nullptr};
  // The slot holds this generator's offset at the start of a step; `scratch`
  // counts the blocks the recorded step draws, which each launch advances by.
  bool created = false;
  ReplayParameters::Slot& slot = replay->slot(
      this,
      [this, seed = seed_](ReplayParameters::Slot& own) {
        SGNN_CHECK(seed_ == seed, "Generator: reseeded (", seed, " -> ", seed_,
                   ") while a captured training step draws from it");
        *own.host = offset_;
        offset_ += own.scratch;
      },
      &created);
  if (created) *slot.host = offset_;  // what the recorded step uses if it runs now (CPU)
  const PhiloxStream relative{seed_, slot.scratch};
  slot.scratch += blocks_for(count);
  return RandomDraw{relative, slot.device};
}

Generator& default_generator() {
  static Generator generator(0);
  return generator;
}

void manual_seed(uint64_t seed) { default_generator().reset(seed); }

}  // namespace sgnn
