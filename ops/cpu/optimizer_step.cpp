#include "ops/optimizer_step_math.hpp"

namespace sgnn::ops {

void sgd_update(Cpu, Tensor& parameter, const Tensor& gradient, Tensor& momentum_buffer,
                const SgdHyperparameters& hyper, bool first_step) {
  const int64_t n = parameter.numel();
  float* p = parameter.data<float>();
  const float* g = gradient.data<float>();
  float* buffer = hyper.momentum > 0.0f ? momentum_buffer.data<float>() : nullptr;
#pragma omp parallel for if (n > 65536)
  for (int64_t i = 0; i < n; ++i) {
    sgd_element(p[i], g[i], buffer != nullptr ? buffer + i : nullptr, hyper.learning_rate, hyper.momentum,
                hyper.weight_decay, hyper.nesterov, first_step);
  }
}

void adam_update(Cpu, Tensor& parameter, const Tensor& gradient, Tensor& first_moment, Tensor& second_moment,
                 const AdamScalars& given, const AdamBiasCorrection* deferred) {
  const AdamScalars scalars = resolve_adam_scalars(given, deferred);
  const int64_t n = parameter.numel();
  float* p = parameter.data<float>();
  const float* g = gradient.data<float>();
  float* m = first_moment.data<float>();
  float* v = second_moment.data<float>();
#pragma omp parallel for if (n > 65536)
  for (int64_t i = 0; i < n; ++i) adam_element(p[i], g[i], m[i], v[i], scalars);
}

void adam_update_many(Cpu, Device, const std::vector<AdamTensorArguments>& tensors) {
  for (const AdamTensorArguments& t : tensors) {
    const AdamScalars scalars = resolve_adam_scalars(t.scalars, t.deferred);
#pragma omp parallel for if (t.count > 65536)
    for (int64_t i = 0; i < t.count; ++i) {
      adam_element(t.parameter[i], t.gradient[i], t.first_moment[i], t.second_moment[i], scalars);
      if (t.compute_copy != nullptr) t.compute_copy[i] = bfloat16(t.parameter[i]);
    }
  }
}

}  // namespace sgnn::ops
