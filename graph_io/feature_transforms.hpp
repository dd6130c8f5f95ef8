// Feature preprocessing applied once before training.
#pragma once

#include "core/tensor.hpp"

namespace sgnn::graph_io {

// Row-normalised copy of `features` ([N, F] float32, host or CUDA; result on
// the same device): each row divided by its sum, so rows sum to 1; rows that
// sum to zero stay as they are (all-zero rows stay 0). For the non-negative
// bag-of-words features of the citation graphs this is PyG's
// NormalizeFeatures. `dtype` float32 or bfloat16: the result's dtype, written
// by the same pass (bfloat16: the float quotient rounded once, for
// mixed-precision training without a conversion pass of its own). Throws
// InvalidArgument for another input dtype, output dtype or rank.
Tensor normalize_feature_rows(const Tensor& features, DType dtype = DType::Float32);

}  // namespace sgnn::graph_io
