// GradientRanges: the magnitudes of the gradients backward produces, per
// layer — the smallest non-zero and the largest |gradient| of every tensor a
// backward node returns (activation and parameter gradients alike),
// attributed to the layer of the node (LayerNaming). It shows why bf16
// training needs no loss scaling: bfloat16 has float32's exponent range
// (smallest normal 1.2e-38), so only a gradient far below anything training
// produces would flush to zero, unlike float16 (smallest normal 6.1e-5).
//
// While alive it holds autograd's gradient observer: not together with the
// numerics check (InvalidArgument), and the trainer runs eagerly (no CUDA
// Graph capture). Each gradient is read back to the host: for a report, not
// for timing. One at a time, not thread safe.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <string>

#include "training/numerics_check.hpp"

namespace sgnn::training {

struct GradientRange {
  double smallest = std::numeric_limits<double>::infinity();  // smallest non-zero |gradient|
  double largest = 0.0;                                       // largest |gradient|
  int64_t values = 0;                                         // gradient elements seen
  int64_t zeros = 0;                                          // of them exactly zero (ReLU, dropout)
};

class GradientRanges {
 public:
  explicit GradientRanges(const Module& model);
  ~GradientRanges();
  GradientRanges(const GradientRanges&) = delete;
  GradientRanges& operator=(const GradientRanges&) = delete;

  // Per layer ("layers.1"; "" for gradients upstream of no parameter), in name order.
  const std::map<std::string, GradientRange>& ranges() const { return ranges_; }
  // One line per layer: layer, smallest non-zero, largest, zeros / values.
  std::string table() const;

 private:
  void observe(const autograd::Node& node, const Tensor& gradient);

  LayerNaming naming_;
  std::map<std::string, GradientRange> ranges_;
};

// Whether a GradientRanges is recording now.
bool recording_gradient_ranges();

}  // namespace sgnn::training
