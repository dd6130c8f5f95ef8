// The GPU tier's entry point: skips (exit 77, which CTest reports as
// "skipped") where no CUDA device is visible, so the suite passes on a
// machine without a GPU and fails loudly on one with a GPU.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>

#include "core/device.hpp"

int main(int argc, char** argv) {
  if (sgnn::cuda_device_count() == 0) {
    std::printf("skipped: no CUDA device\n");
    return 77;
  }
  doctest::Context context(argc, argv);
  return context.run();
}
