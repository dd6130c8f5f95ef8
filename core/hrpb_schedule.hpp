// Load-balanced row panels for the HRPB SpMM (cuTeSpMM §5).
//
// Each row panel is one thread block's work (num_blocks blocks of TK
// columns). A panel is heavy when it holds more than the average; the paper
// splits a heavy panel along K into ceil(num_loads / num_waves) virtual
// panels, where num_loads = blocks / average blocks per panel and num_waves
// = ceil(panels / concurrent thread blocks). We keep that split only when a
// greedy in-order simulation of the thread blocks on `concurrent_blocks`
// slots (cost = blocks + 1 for the write, + 1 more for a split part's merge)
// finishes earlier than without splitting: splitting never adds waves.
#pragma once

#include <cstdint>
#include <vector>

#include "core/hrpb.hpp"

namespace sgnn {

struct HrpbScheduleOptions {
  bool load_balance = true;      // false: one virtual panel per panel
  int64_t concurrent_blocks = 0; // SMs × resident thread blocks per SM; must be > 0
};

// blocked_row_ptr: the HRPB's [num_panels + 1] block offsets (host copy).
// Returns host tensors; throws InvalidArgument on concurrent_blocks <= 0 or
// a decreasing blocked_row_ptr.
HrpbSchedule plan_hrpb_schedule(const std::vector<int32_t>& blocked_row_ptr, const HrpbScheduleOptions& options);

// The modelled finish time (in blocks) of thread blocks with these costs run
// in order on `slots` concurrent slots, each taking the earliest free slot.
double simulate_in_order(const std::vector<double>& costs, int64_t slots);

}  // namespace sgnn
