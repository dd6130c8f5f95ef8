#include "tests/support/gather_scatter_reference.hpp"

namespace sgnn::testing {

ReducedRows reference_reduce(const std::vector<double>& src, int64_t width, const std::vector<int64_t>& target,
                             int64_t outputs, ops::ReduceKind reduce) {
  const auto cells = static_cast<std::size_t>(outputs * width);
  ReducedRows reduced{std::vector<double>(cells, 0.0), std::vector<int64_t>(cells, -1),
                      std::vector<int64_t>(static_cast<std::size_t>(outputs), 0)};
  for (std::size_t e = 0; e < target.size(); ++e) {
    const int64_t o = target[e];
    ++reduced.counts[static_cast<std::size_t>(o)];
    for (int64_t j = 0; j < width; ++j) {
      const double value = src[e * static_cast<std::size_t>(width) + static_cast<std::size_t>(j)];
      const auto cell = static_cast<std::size_t>(o * width + j);
      double& best = reduced.values[cell];
      int64_t& winner = reduced.winners[cell];
      const bool first = winner < 0;
      switch (reduce) {
        case ops::ReduceKind::Sum:
        case ops::ReduceKind::Mean: best += value; break;
        case ops::ReduceKind::Max:
          if (first || value > best) {
            best = value;
            winner = static_cast<int64_t>(e);
          }
          break;
        case ops::ReduceKind::Min:
          if (first || value < best) {
            best = value;
            winner = static_cast<int64_t>(e);
          }
          break;
      }
    }
  }
  if (reduce == ops::ReduceKind::Mean) {
    for (int64_t o = 0; o < outputs; ++o) {
      const int64_t count = reduced.counts[static_cast<std::size_t>(o)];
      for (int64_t j = 0; j < width && count > 0; ++j) {
        reduced.values[static_cast<std::size_t>(o * width + j)] /= static_cast<double>(count);
      }
    }
  }
  return reduced;
}

std::vector<int64_t> segment_of_positions(const std::vector<int64_t>& offsets) {
  std::vector<int64_t> segments;
  for (std::size_t s = 0; s + 1 < offsets.size(); ++s) {
    segments.insert(segments.end(), static_cast<std::size_t>(offsets[s + 1] - offsets[s]), static_cast<int64_t>(s));
  }
  return segments;
}

std::vector<int64_t> to_int64(const Tensor& index) {
  if (index.dtype() == DType::Int64) return index.to_vector<int64_t>();
  const std::vector<int32_t> narrow = index.to_vector<int32_t>();
  return {narrow.begin(), narrow.end()};
}

}  // namespace sgnn::testing
