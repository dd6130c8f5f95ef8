#include "graph_io/generators/power_law_weights.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"

namespace sgnn::graph_io {

std::vector<double> power_law_weights(int64_t n, double exponent, double average_degree, double max_degree) {
  SGNN_CHECK(n >= 1 && n < (int64_t{1} << 31), "power-law degrees: ", n, " nodes, out of range [1, 2^31)");
  SGNN_CHECK(std::isfinite(exponent) && exponent > 2, "power-law degrees: exponent ", exponent,
             " must be > 2 (at or below 2 the degree distribution has no finite mean)");
  SGNN_CHECK(std::isfinite(average_degree) && average_degree > 0, "power-law degrees: average degree ", average_degree,
             " must be positive");
  const bool capped = max_degree > 0;
  SGNN_CHECK(!capped || (std::isfinite(max_degree) && max_degree >= average_degree), "power-law degrees: max degree ",
             max_degree, " must be at least the average degree ", average_degree);
  const auto size = static_cast<std::size_t>(n);
  std::vector<double> weights(size);
  const double slope = -1.0 / (exponent - 1.0);
  for (std::size_t i = 0; i < size; ++i) weights[i] = std::pow(static_cast<double>(i + 1), slope);
  // The capped nodes are a prefix [0, k) (weights decrease with i). For each
  // k, the scale that gives the asked total with k nodes at the cap is
  // (total − k·cap) / Σ_{i≥k} x_i; the right k is the first whose scale leaves
  // node k at or under the cap.
  std::vector<double> suffix(size + 1, 0.0);
  for (std::size_t i = size; i-- > 0;) suffix[i] = suffix[i + 1] + weights[i];
  const double total = average_degree * static_cast<double>(n);
  double scale = total / suffix[0];
  std::size_t capped_count = 0;
  if (capped) {
    while (capped_count < size && scale * weights[capped_count] > max_degree) {
      ++capped_count;
      scale =
          capped_count < size ? (total - static_cast<double>(capped_count) * max_degree) / suffix[capped_count] : 0.0;
    }
  }
  for (std::size_t i = 0; i < size; ++i) weights[i] = i < capped_count ? max_degree : scale * weights[i];
  return weights;
}

WeightedSampler::WeightedSampler(const std::vector<double>& weights) : running_sum_(weights.size()) {
  double sum = 0.0;
  for (std::size_t i = 0; i < weights.size(); ++i) running_sum_[i] = sum += weights[i];
}

int32_t WeightedSampler::pick(double uniform) const {
  const double target = uniform * running_sum_.back();
  const auto found = std::upper_bound(running_sum_.begin(), running_sum_.end(), target);
  // uniform < 1, but rounding may still reach the end.
  return static_cast<int32_t>(
      std::min<std::ptrdiff_t>(found - running_sum_.begin(), static_cast<std::ptrdiff_t>(running_sum_.size()) - 1));
}

}  // namespace sgnn::graph_io
