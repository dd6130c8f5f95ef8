#include "graph_io/feature_transforms.hpp"

#include "graph_io/feature_transforms_backend.hpp"

namespace sgnn::graph_io {

namespace {

template <typename Out>
void normalize_rows(const float* input, Out* output, int64_t rows, int64_t cols) {
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < rows; ++r) {
    const float* in = input + r * cols;
    Out* out = output + r * cols;
    double sum = 0.0;
    for (int64_t c = 0; c < cols; ++c) sum += static_cast<double>(in[c]);
    const float scale = sum != 0.0 ? static_cast<float>(1.0 / sum) : 1.0f;
    for (int64_t c = 0; c < cols; ++c) out[c] = store_as<Out>(in[c] * scale);
  }
}

}  // namespace

void normalize_feature_rows_cpu(const float* input, float* output, int64_t rows, int64_t cols) {
  normalize_rows(input, output, rows, cols);
}

void normalize_feature_rows_cpu(const float* input, bfloat16* output, int64_t rows, int64_t cols) {
  normalize_rows(input, output, rows, cols);
}

Tensor normalize_feature_rows(const Tensor& features, DType dtype) {
  check_dtype(features, DType::Float32, "normalize_feature_rows", "features");
  check_dim(features, 2, "normalize_feature_rows", "features");
  SGNN_CHECK(is_floating(dtype), "normalize_feature_rows: the output dtype must be float32 or bfloat16, got ",
             dtype_name(dtype));
  Tensor output = Tensor::empty(features.shape(), dtype, features.device());
  const int64_t rows = features.size(0);
  const int64_t cols = features.size(1);
  visit_floating(dtype, [&](auto element) {
    using Out = decltype(element);
    if (features.device().is_cpu()) {
      normalize_feature_rows_cpu(features.data<float>(), output.data<Out>(), rows, cols);
    } else {
#ifdef SGNN_WITH_CUDA
      normalize_feature_rows_cuda(features.data<float>(), output.data<Out>(), rows, cols, features.device());
#else
      require_available(features.device());
#endif
    }
  });
  return output;
}

const char* feature_transform_name(FeatureTransform transform) {
  return transform == FeatureTransform::RowNormalize ? "row-normalize" : "none";
}

FeatureTransform parse_feature_transform(std::string_view text) {
  if (text == "none") return FeatureTransform::None;
  if (text == "row-normalize") return FeatureTransform::RowNormalize;
  throw InvalidArgument(detail::concat("feature transform must be none or row-normalize, got \"", text, "\""));
}

Tensor apply_feature_transform(const Tensor& features, FeatureTransform transform, DType dtype) {
  return transform == FeatureTransform::RowNormalize ? normalize_feature_rows(features, dtype) : features;
}

}  // namespace sgnn::graph_io
