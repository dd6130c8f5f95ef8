// Device: where a tensor lives (the host, or one CUDA GPU), and what this
// build and machine offer.
#pragma once

#include <string>
#include <string_view>

namespace sgnn {

struct Device {
  enum class Type : unsigned char { CPU, CUDA };

  Type type = Type::CPU;
  int index = 0;  // GPU ordinal; always 0 for the CPU

  static constexpr Device cpu() { return {Type::CPU, 0}; }
  static constexpr Device cuda(int ordinal = 0) { return {Type::CUDA, ordinal}; }

  // Parses "cpu", "cuda" or "cuda:<k>". Throws InvalidArgument otherwise.
  static Device parse(std::string_view text);

  constexpr bool is_cpu() const { return type == Type::CPU; }
  constexpr bool is_cuda() const { return type == Type::CUDA; }
  std::string str() const;  // "cpu", "cuda:0"

  friend constexpr bool operator==(const Device&, const Device&) = default;
};

// True when the library was built with the CUDA backend.
constexpr bool built_with_cuda() {
#ifdef SGNN_WITH_CUDA
  return true;
#else
  return false;
#endif
}

// Number of usable CUDA devices: 0 in a CPU-only build or on a machine
// without a GPU or driver (never throws).
int cuda_device_count();

// The model of the device ("NVIDIA H100 80GB HBM3"; "cpu" for the host):
// what measured kernel choices are valid for.
std::string device_model(Device device);

// Throws InvalidArgument when `device` cannot be used by this build on this
// machine, with a message that says why (CPU-only build, no GPU, bad index).
void require_available(Device device);

}  // namespace sgnn
