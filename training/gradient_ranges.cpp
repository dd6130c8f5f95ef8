#include "training/gradient_ranges.hpp"

#include <cmath>
#include <cstdio>

namespace sgnn::training {

namespace {

bool recording = false;

// |values| of a float32 or bfloat16 tensor, read back to the host.
template <typename T>
void scan(const Tensor& gradient, GradientRange& range) {
  for (const T value : gradient.to(Device::cpu()).to_vector<T>()) {
    const double magnitude = std::abs(static_cast<double>(load_float(value)));
    ++range.values;
    if (magnitude == 0.0) {
      ++range.zeros;
      continue;
    }
    range.smallest = std::min(range.smallest, magnitude);
    range.largest = std::max(range.largest, magnitude);
  }
}

}  // namespace

bool recording_gradient_ranges() { return recording; }

GradientRanges::GradientRanges(const Module& model) : naming_(model) {
  SGNN_CHECK(!check_numerics(), "GradientRanges: the numerics check holds the gradient observer; not both at once");
  SGNN_CHECK(!recording, "GradientRanges: another one is recording");
  recording = true;
  autograd::set_gradient_observer(
      [this](const autograd::Node& node, std::size_t, const Tensor& gradient) { observe(node, gradient); });
}

GradientRanges::~GradientRanges() {
  autograd::set_gradient_observer({});
  recording = false;
}

void GradientRanges::observe(const autograd::Node& node, const Tensor& gradient) {
  if (!is_floating(gradient.dtype())) return;
  GradientRange& range = ranges_[naming_.layer_of(node)];
  if (gradient.dtype() == DType::BFloat16)
    scan<bfloat16>(gradient, range);
  else
    scan<float>(gradient, range);
}

std::string GradientRanges::table() const {
  std::string text = "layer        smallest |grad|  largest |grad|  zeros / values\n";
  for (const auto& [layer, range] : ranges_) {
    char line[160];
    std::snprintf(line, sizeof line, "%-12s %15.3e %15.3e  %lld / %lld\n", layer.empty() ? "(none)" : layer.c_str(),
                  range.smallest, range.largest, static_cast<long long>(range.zeros),
                  static_cast<long long>(range.values));
    text += line;
  }
  return text;
}

}  // namespace sgnn::training
