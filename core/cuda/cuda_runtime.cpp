#include "core/cuda_runtime.hpp"
#include "core/feeding_stream.hpp"

#include <array>
#include <mutex>

namespace sgnn::cuda {

namespace {
constexpr int kMaxDevices = 64;

void check_ordinal(Device device) {
  SGNN_CHECK(device.is_cuda(), "expected a CUDA device, got ", device.str());
  SGNN_CHECK(device.index >= 0 && device.index < kMaxDevices, "CUDA device index ", device.index,
             " out of range");
}
}  // namespace

void throw_cuda_error(cudaError_t status, const char* call, const char* file, int line) {
  const char* name = cudaGetErrorName(status);
  const char* text = cudaGetErrorString(status);
  std::string message = detail::concat("CUDA error ", name, " (", text, ") in ", call, " at ", file,
                                       ":", line);
  if (status == cudaErrorMemoryAllocation) throw OutOfMemoryError(message);
  throw CudaError(message);
}

cudaStream_t stream(Device device) {
  check_ordinal(device);
  static std::array<cudaStream_t, kMaxDevices> streams{};
  static std::array<std::once_flag, kMaxDevices> created;
  std::call_once(created[static_cast<std::size_t>(device.index)], [&] {
    DeviceGuard guard(device);
    SGNN_CUDA_CHECK(cudaStreamCreateWithFlags(&streams[static_cast<std::size_t>(device.index)],
                                              cudaStreamNonBlocking));
  });
  return streams[static_cast<std::size_t>(device.index)];
}

cudaStream_t create_feeding_stream() {
  int least = 0, greatest = 0;
  SGNN_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  cudaStream_t created = nullptr;
  SGNN_CUDA_CHECK(cudaStreamCreateWithPriority(&created, cudaStreamNonBlocking, greatest));
  return created;
}

cudaStream_t current_stream() {
  int ordinal = 0;
  SGNN_CUDA_CHECK(cudaGetDevice(&ordinal));
  return stream(Device::cuda(ordinal));
}

DeviceGuard::DeviceGuard(Device device) {
  check_ordinal(device);
  SGNN_CUDA_CHECK(cudaGetDevice(&previous_));
  if (previous_ != device.index) SGNN_CUDA_CHECK(cudaSetDevice(device.index));
}

DeviceGuard::~DeviceGuard() {
  int now = -1;
  if (cudaGetDevice(&now) == cudaSuccess && now != previous_) (void)cudaSetDevice(previous_);
}

const cudaDeviceProp& properties(Device device) {
  check_ordinal(device);
  static std::array<cudaDeviceProp, kMaxDevices> props{};
  static std::array<std::once_flag, kMaxDevices> read;
  std::call_once(read[static_cast<std::size_t>(device.index)], [&] {
    SGNN_CUDA_CHECK(cudaGetDeviceProperties(&props[static_cast<std::size_t>(device.index)], device.index));
  });
  return props[static_cast<std::size_t>(device.index)];
}

}  // namespace sgnn::cuda
