#include "graph_io/feature_transforms.hpp"

#include "graph_io/feature_transforms_backend.hpp"

namespace sgnn::graph_io {

template <typename In, typename Out>
void normalize_feature_rows_cpu(const In* input, Out* output, int64_t rows, int64_t cols) {
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < rows; ++r) {
    const In* in = input + r * cols;
    Out* out = output + r * cols;
    double sum = 0.0;
    for (int64_t c = 0; c < cols; ++c) sum += static_cast<double>(load_float(in[c]));
    const float scale = sum != 0.0 ? static_cast<float>(1.0 / sum) : 1.0f;
    for (int64_t c = 0; c < cols; ++c) out[c] = store_as<Out>(load_float(in[c]) * scale);
  }
}

template void normalize_feature_rows_cpu(const float*, float*, int64_t, int64_t);
template void normalize_feature_rows_cpu(const float*, bfloat16*, int64_t, int64_t);
template void normalize_feature_rows_cpu(const bfloat16*, float*, int64_t, int64_t);
template void normalize_feature_rows_cpu(const bfloat16*, bfloat16*, int64_t, int64_t);

Tensor normalize_feature_rows(const Tensor& features, DType dtype) {
  SGNN_CHECK(is_floating(features.dtype()), "normalize_feature_rows: argument 'features' must be float32 or bfloat16, "
             "got ", dtype_name(features.dtype()));
  check_dim(features, 2, "normalize_feature_rows", "features");
  SGNN_CHECK(is_floating(dtype), "normalize_feature_rows: the output dtype must be float32 or bfloat16, got ",
             dtype_name(dtype));
  Tensor output = Tensor::empty(features.shape(), dtype, features.device());
  const int64_t rows = features.size(0);
  const int64_t cols = features.size(1);
  visit_floating(features.dtype(), [&](auto in_element) {
    using In = decltype(in_element);
    visit_floating(dtype, [&](auto out_element) {
      using Out = decltype(out_element);
      if (features.device().is_cpu()) {
        normalize_feature_rows_cpu(features.data<In>(), output.data<Out>(), rows, cols);
      } else {
#ifdef SGNN_WITH_CUDA
        normalize_feature_rows_cuda(features.data<In>(), output.data<Out>(), rows, cols, features.device());
#else
        require_available(features.device());
#endif
      }
    });
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
