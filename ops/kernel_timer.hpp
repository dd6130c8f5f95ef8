// Timing candidate kernels for the measured choices (ops/kernel_choices.hpp),
// from host code of any backend.
#pragma once

#include <cstdint>
#include <functional>

#include "core/device.hpp"

namespace sgnn::ops {

// Whether work queued on the library's stream of `device` is being captured
// into a CUDA Graph now (no timing, no host synchronisation then). False on the CPU.
bool stream_capturing(Device device);

// Milliseconds of `launch()` on the library's stream of a CUDA device: the
// faster of two launches (the first may pay for loading the kernel's module).
double fastest_of_two_ms(Device device, const std::function<void()>& launch);

// How many candidates fastest_of_two_ms has timed in this process (for tests:
// a stored or recorded choice must not time again), and the wall time all
// that timing took (what measured choices cost a run; a timing inside
// another's launch is part of the outer one's time, not counted again).
int64_t candidates_timed();
double timing_milliseconds();

}  // namespace sgnn::ops
