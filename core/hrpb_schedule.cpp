#include "core/hrpb_schedule.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <queue>

namespace sgnn {

namespace {

constexpr double kWriteCost = 1.0;  // writing a TM × N tile, in block-equivalents
constexpr double kMergeCost = 1.0;  // the extra atomic (or slot) traffic of a split part

struct Part {
  int32_t panel;
  int32_t begin;
  int32_t end;
  bool split;
};

std::vector<double> part_costs(const std::vector<Part>& parts) {
  std::vector<double> costs;
  costs.reserve(parts.size());
  for (const Part& part : parts) {
    costs.push_back(static_cast<double>(part.end - part.begin) + kWriteCost + (part.split ? kMergeCost : 0.0));
  }
  return costs;
}

}  // namespace

double simulate_in_order(const std::vector<double>& costs, int64_t slots) {
  SGNN_CHECK(slots > 0, "simulate_in_order: slots must be positive, got ", slots);
  std::priority_queue<double, std::vector<double>, std::greater<>> free_at;
  double finish = 0.0;
  for (const double cost : costs) {
    double start = 0.0;
    if (static_cast<int64_t>(free_at.size()) >= slots) {
      start = free_at.top();
      free_at.pop();
    }
    free_at.push(start + cost);
    finish = std::max(finish, start + cost);
  }
  return finish;
}

HrpbSchedule plan_hrpb_schedule(const std::vector<int32_t>& blocked_row_ptr, const HrpbScheduleOptions& options) {
  SGNN_CHECK(options.concurrent_blocks > 0, "plan_hrpb_schedule: concurrent_blocks must be positive, got ",
             options.concurrent_blocks);
  SGNN_CHECK(!blocked_row_ptr.empty() && blocked_row_ptr.front() == 0,
             "plan_hrpb_schedule: blocked_row_ptr must start with 0");
  const int64_t num_panels = static_cast<int64_t>(blocked_row_ptr.size()) - 1;
  for (int64_t p = 0; p < num_panels; ++p) {
    SGNN_CHECK(blocked_row_ptr[static_cast<std::size_t>(p)] <= blocked_row_ptr[static_cast<std::size_t>(p) + 1],
               "plan_hrpb_schedule: blocked_row_ptr decreases at panel ", p);
  }

  std::vector<Part> unsplit;
  unsplit.reserve(static_cast<std::size_t>(num_panels));
  for (int64_t p = 0; p < num_panels; ++p) {
    unsplit.push_back({static_cast<int32_t>(p), blocked_row_ptr[static_cast<std::size_t>(p)],
                       blocked_row_ptr[static_cast<std::size_t>(p) + 1], false});
  }
  const std::vector<double> unsplit_costs = part_costs(unsplit);
  const double unsplit_finish = num_panels == 0 ? 0.0 : simulate_in_order(unsplit_costs, options.concurrent_blocks);
  // One wave: every slot runs one thread block of average cost.
  double average_cost = 0.0;
  for (const double c : unsplit_costs) average_cost += c;
  average_cost = num_panels == 0 ? 1.0 : average_cost / static_cast<double>(num_panels);

  std::vector<Part> planned = unsplit;
  double planned_finish = unsplit_finish;
  if (options.load_balance && num_panels > 0) {
    const double average_blocks = static_cast<double>(blocked_row_ptr.back()) / static_cast<double>(num_panels);
    const double num_waves = std::ceil(static_cast<double>(num_panels) / static_cast<double>(options.concurrent_blocks));
    std::vector<Part> candidate;
    bool any_split = false;
    for (const Part& part : unsplit) {
      const int32_t blocks = part.end - part.begin;
      const double num_loads = average_blocks > 0 ? blocks / average_blocks : 0.0;
      const double ratio = num_loads / num_waves;
      const int32_t pieces = ratio > 1.0 ? std::min<int32_t>(blocks, static_cast<int32_t>(std::ceil(ratio))) : 1;
      if (pieces <= 1) {
        candidate.push_back(part);
        continue;
      }
      any_split = true;
      const int32_t chunk = (blocks + pieces - 1) / pieces;
      for (int32_t begin = part.begin; begin < part.end; begin += chunk) {
        candidate.push_back({part.panel, begin, std::min(part.end, begin + chunk), true});
      }
    }
    if (any_split) {
      const double candidate_finish = simulate_in_order(part_costs(candidate), options.concurrent_blocks);
      if (candidate_finish < unsplit_finish) {
        planned = std::move(candidate);
        planned_finish = candidate_finish;
      }
    }
  }

  const int64_t count = static_cast<int64_t>(planned.size());
  std::vector<int32_t> virtual_panel, virtual_block_ptr{0}, virtual_slot, split_panel, split_slot_ptr{0};
  int32_t slots = 0;
  for (const Part& part : planned) {
    virtual_panel.push_back(part.panel);
    virtual_block_ptr.push_back(part.end);
    if (part.split) {
      if (split_panel.empty() || split_panel.back() != part.panel) {
        split_panel.push_back(part.panel);
        split_slot_ptr.push_back(slots);
      }
      virtual_slot.push_back(slots++);
      split_slot_ptr.back() = slots;
    } else {
      virtual_slot.push_back(-1);
    }
  }
  HrpbSchedule schedule;
  const int64_t num_split = static_cast<int64_t>(split_panel.size());
  schedule.virtual_panel = Tensor::from_vector(virtual_panel, {count});
  schedule.virtual_block_ptr = Tensor::from_vector(virtual_block_ptr, {count + 1});
  schedule.virtual_slot = Tensor::from_vector(virtual_slot, {count});
  schedule.split_panel = Tensor::from_vector(split_panel, {num_split});
  schedule.split_slot_ptr = Tensor::from_vector(split_slot_ptr, {num_split + 1});
  schedule.num_virtual_panels = count;
  schedule.num_split_panels = num_split;
  schedule.num_slots = slots;
  schedule.concurrent_blocks = options.concurrent_blocks;
  schedule.waves_unsplit = unsplit_finish / average_cost;
  schedule.waves_planned = planned_finish / average_cost;
  return schedule;
}

}  // namespace sgnn
