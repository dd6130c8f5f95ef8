// Keeping the library's stream busy on the GPU for a while, so that the host
// queues what follows before the GPU reaches it (benchmark timing: the host's
// time to queue a launch then falls outside the events around it).
#pragma once

#include "core/device.hpp"

namespace sgnn::ops {

// Queues on the library's stream of CUDA `device` a one-thread kernel that
// runs for about `microseconds` (0 to 1e6) and touches no memory. Throws
// sgnn::Error for a CPU device or a duration outside that range.
void hold_stream(Device device, double microseconds);

}  // namespace sgnn::ops
