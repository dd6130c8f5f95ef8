#include "training/nn/init.hpp"

#include <cmath>

namespace sgnn::training {

Tensor uniform(const Shape& shape, float low, float high, Generator& generator) {
  SGNN_CHECK(low <= high, "uniform: low ", low, " exceeds high ", high);
  Tensor out = Tensor::empty(shape);
  const PhiloxStream stream = generator.next_stream(static_cast<uint64_t>(out.numel()));
  float* values = out.data<float>();
  for (int64_t i = 0; i < out.numel(); ++i) {
    values[i] = low + (high - low) * stream.uniform(static_cast<uint64_t>(i));
  }
  return out;
}

Tensor glorot_uniform(const Shape& shape, int64_t fan_in, int64_t fan_out, Generator& generator) {
  SGNN_CHECK(fan_in > 0 && fan_out > 0, "glorot_uniform: fans must be positive, got fan_in ", fan_in,
             " and fan_out ", fan_out, " for shape ", shape_str(shape));
  const auto bound = static_cast<float>(std::sqrt(6.0 / static_cast<double>(fan_in + fan_out)));
  return uniform(shape, -bound, bound, generator);
}

}  // namespace sgnn::training
