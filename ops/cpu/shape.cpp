#include <algorithm>

#include "ops/shape_backend.hpp"

namespace sgnn::ops {

namespace {
// Copies `rows` rows of `width` floats between two row-major matrices with
// the given row lengths.
void copy_block(const float* source, int64_t source_stride, float* destination, int64_t destination_stride,
                int64_t rows, int64_t width) {
  if (width == 0) return;
#pragma omp parallel for if (rows * width > 65536)
  for (int64_t r = 0; r < rows; ++r) {
    std::copy_n(source + r * source_stride, width, destination + r * destination_stride);
  }
}
}  // namespace

void concat_forward(Cpu, const std::vector<Tensor>& xs, int64_t outer, Tensor& out) {
  if (outer == 0 || out.numel() == 0) return;
  const int64_t total_width = out.numel() / outer;
  int64_t offset = 0;
  for (const Tensor& x : xs) {
    const int64_t width = x.numel() / outer;
    copy_block(x.data<float>(), width, out.data<float>() + offset, total_width, outer, width);
    offset += width;
  }
}

void split_backward(Cpu, const Tensor& whole, int64_t outer, std::vector<Tensor>& pieces) {
  if (outer == 0 || whole.numel() == 0) return;
  const int64_t total_width = whole.numel() / outer;
  int64_t offset = 0;
  for (Tensor& piece : pieces) {
    const int64_t width = piece.numel() / outer;
    copy_block(whole.data<float>() + offset, total_width, piece.data<float>(), width, outer, width);
    offset += width;
  }
}

}  // namespace sgnn::ops
