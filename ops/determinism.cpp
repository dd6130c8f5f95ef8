#include "ops/determinism.hpp"

#include <atomic>

namespace sgnn::ops {

namespace {
std::atomic<bool> deterministic_mode{false};
}  // namespace

void set_deterministic(bool deterministic) { deterministic_mode.store(deterministic, std::memory_order_relaxed); }
bool deterministic() { return deterministic_mode.load(std::memory_order_relaxed); }

DeterministicScope::DeterministicScope(bool deterministic) : previous_(ops::deterministic()) {
  set_deterministic(deterministic);
}
DeterministicScope::~DeterministicScope() { set_deterministic(previous_); }

}  // namespace sgnn::ops
