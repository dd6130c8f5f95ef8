#include "ops/gemm_choices.hpp"

#ifdef SGNN_WITH_CUDA
#include "ops/cuda/gemm_algorithm.hpp"
#endif

namespace sgnn::ops {

KernelChoiceMap gemm_choices() {
#ifdef SGNN_WITH_CUDA
  return gemm_cuda::export_choices();
#else
  return {};
#endif
}

void import_gemm_choices(const KernelChoiceMap& choices) {
#ifdef SGNN_WITH_CUDA
  gemm_cuda::import_choices(choices);
#else
  (void)choices;
#endif
}

void forget_gemm_choices() {
#ifdef SGNN_WITH_CUDA
  gemm_cuda::forget_choices();
#endif
}

}  // namespace sgnn::ops
