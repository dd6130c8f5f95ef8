#include "core/device.hpp"

#include <charconv>

#include "core/error.hpp"
#ifdef SGNN_WITH_CUDA
#include <cuda_runtime_api.h>
#endif

namespace sgnn {

Device Device::parse(std::string_view text) {
  if (text == "cpu") return cpu();
  if (text == "cuda") return cuda(0);
  if (text.starts_with("cuda:")) {
    const std::string_view digits = text.substr(5);
    int ordinal = -1;
    const auto [end, status] = std::from_chars(digits.data(), digits.data() + digits.size(), ordinal);
    if (status == std::errc() && end == digits.data() + digits.size() && ordinal >= 0 && !digits.empty()) {
      return cuda(ordinal);
    }
  }
  throw InvalidArgument(detail::concat("unknown device \"", text,
                                       "\": expected \"cpu\", \"cuda\" or \"cuda:<index>\""));
}

std::string Device::str() const {
  return is_cpu() ? std::string("cpu") : "cuda:" + std::to_string(index);
}

int cuda_device_count() {
#ifdef SGNN_WITH_CUDA
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError();  // no driver or no device: clear the sticky error
    return 0;
  }
  return count;
#else
  return 0;
#endif
}

void require_available(Device device) {
  if (device.is_cpu()) return;
  if (!built_with_cuda()) {
    throw InvalidArgument(detail::concat(
        "device ", device.str(), " requested, but this build of sparsegnn has no CUDA backend; ",
        "rebuild with -DSGNN_CUDA=ON on a machine with the CUDA toolkit, or use --device cpu"));
  }
  const int count = cuda_device_count();
  if (count == 0) {
    throw InvalidArgument(detail::concat("device ", device.str(),
                                         " requested, but no CUDA device is visible (no GPU or no "
                                         "driver; check nvidia-smi and CUDA_VISIBLE_DEVICES), or "
                                         "use --device cpu"));
  }
  if (device.index >= count) {
    throw InvalidArgument(detail::concat("device ", device.str(), " requested, but only ", count,
                                         " CUDA device(s) are visible (cuda:0 .. cuda:", count - 1,
                                         ")"));
  }
}

std::string device_model(Device device) {
  if (device.is_cpu()) return "cpu";
  require_available(device);
#ifdef SGNN_WITH_CUDA
  cudaDeviceProp properties{};
  if (cudaGetDeviceProperties(&properties, device.index) == cudaSuccess) return properties.name;
  (void)cudaGetLastError();
#endif
  return device.str();
}

}  // namespace sgnn
