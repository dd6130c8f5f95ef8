#include "core/generator.hpp"

namespace sgnn {

PhiloxStream Generator::next_stream(uint64_t count) {
  const PhiloxStream stream{seed_, offset_};
  offset_ += (count + 3) / 4;
  return stream;
}

Generator& default_generator() {
  static Generator generator(0);
  return generator;
}

void manual_seed(uint64_t seed) { default_generator().reset(seed); }

}  // namespace sgnn
