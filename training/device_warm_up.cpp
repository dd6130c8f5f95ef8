#include "training/device_warm_up.hpp"

#include "core/memory.hpp"
#include "core/tensor.hpp"
#include "ops/matmul.hpp"

namespace sgnn::training {

void warm_up_device(Device device) {
  if (!device.is_cuda()) return;
  // A 1x1 product creates the context, stream, pool and cuBLAS handle.
  const Tensor one = Tensor::full({1, 1}, 1.0, DType::Float32, device);
  (void)ops::matmul(one, one);
  memory::synchronize(device);
}

}  // namespace sgnn::training
