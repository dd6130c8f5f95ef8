// Feature preprocessing applied once before training.
#pragma once

#include <string_view>

#include "core/tensor.hpp"

namespace sgnn::graph_io {

// Row-normalised copy of `features` ([N, F] float32 or bfloat16, read as
// float: the papers100M-scale preset stores bfloat16; host or CUDA; result on
// the same device): each row divided by its sum, so rows sum to 1; rows that
// sum to zero stay as they are (all-zero rows stay 0). For the non-negative
// bag-of-words features of the citation graphs this is PyG's
// NormalizeFeatures. `dtype` float32 or bfloat16: the result's dtype, written
// by the same pass (bfloat16: the float quotient rounded once, for
// mixed-precision training without a conversion pass of its own). Throws
// InvalidArgument for another input dtype, output dtype or rank.
Tensor normalize_feature_rows(const Tensor& features, DType dtype = DType::Float32);

// The transform a model's input features went through, recorded in
// checkpoints so inference prepares new features the same way.
enum class FeatureTransform : unsigned char {
  None,          // the features as stored
  RowNormalize,  // normalize_feature_rows
};
const char* feature_transform_name(FeatureTransform transform);  // "none", "row-normalize"
// The inverse of feature_transform_name; InvalidArgument for any other text.
FeatureTransform parse_feature_transform(std::string_view text);
// `features` after `transform` (None: the same tensor, not a copy; RowNormalize: a
// copy of `dtype`, float32 or bfloat16, see normalize_feature_rows).
Tensor apply_feature_transform(const Tensor& features, FeatureTransform transform, DType dtype = DType::Float32);

}  // namespace sgnn::graph_io
