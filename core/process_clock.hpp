// Time since the process started, as the kernel recorded its start (before
// the dynamic loader and static constructors ran): what "time to first
// epoch" is measured from. Linux only (/proc/self/stat); resolution one clock
// tick (10 ms).
#pragma once

#include <optional>

namespace sgnn {

// Seconds since this process started, or nullopt where /proc is unavailable.
std::optional<double> seconds_since_process_start();

}  // namespace sgnn
