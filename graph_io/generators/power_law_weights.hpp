// Expected degrees that follow a power law, and sampling nodes in proportion
// to them: the shared core of the Chung-Lu and bipartite generators.
#pragma once

#include <cstdint>
#include <vector>

namespace sgnn::graph_io {

// w_i = min(max_degree, s · (i + 1)^(-1 / (exponent - 1))) for i in [0, n),
// s chosen so that the mean of w is average_degree (exactly, up to rounding).
// Nodes with these expected degrees have a degree distribution
// P(degree = k) ∝ k^-exponent (Chung & Lu 2002). max_degree <= 0: no cap.
// Throws InvalidArgument unless n >= 1, exponent > 2, average_degree > 0 and
// (with a cap) max_degree >= average_degree.
std::vector<double> power_law_weights(int64_t n, double exponent, double average_degree, double max_degree);

// Picks index i with probability weights[i] / Σ weights (binary search over the
// running sums); const, so threads share one sampler.
class WeightedSampler {
 public:
  explicit WeightedSampler(const std::vector<double>& weights);
  // `uniform` in [0, 1).
  int32_t pick(double uniform) const;

 private:
  std::vector<double> running_sum_;
};

}  // namespace sgnn::graph_io
