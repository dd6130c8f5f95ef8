#include "core/replay_parameters.hpp"

#include <cstring>

#include "core/error.hpp"
#include "core/memory.hpp"

namespace sgnn {

namespace {
thread_local ReplayParameters* active_recording = nullptr;
}  // namespace

ReplayParameters::ReplayParameters(Device device) : device_(device) {
  const std::size_t size = bytes();
  // Pinned on CUDA: a captured copy from pageable memory is not allowed.
  host_ = static_cast<uint64_t*>(memory::allocate(size, Device::cpu(), memory::HostKind::Pinned));
  std::memset(host_, 0, size);
  if (device.is_cpu()) {
    device_buffer_ = host_;
  } else {
    try {
      device_buffer_ = static_cast<uint64_t*>(memory::allocate(size, device));
      memory::set_zero(device_buffer_, device, size);
    } catch (...) {
      memory::deallocate(host_, size, Device::cpu(), memory::HostKind::Pinned);
      throw;
    }
  }
  slots_.reserve(kCapacity);
}

ReplayParameters::~ReplayParameters() {
  if (active_recording == this) active_recording = nullptr;
  if (device_buffer_ != host_) memory::deallocate(device_buffer_, bytes(), device_);
  memory::deallocate(host_, bytes(), Device::cpu(), memory::HostKind::Pinned);
}

ReplayParameters::Slot& ReplayParameters::slot(const void* owner, const std::function<void(Slot&)>& refresh,
                                               bool* created) {
  for (const Entry& entry : owners_) {
    if (entry.owner == owner) {
      if (created != nullptr) *created = false;
      return slots_[entry.slot];
    }
  }
  SGNN_CHECK(slots_.size() < kCapacity, "ReplayParameters: all ", kCapacity,
             " slots are taken (too many random ops or parameters in one captured step)");
  const std::size_t index = slots_.size();
  slots_.push_back(Slot{host_ + index, device_buffer_ + index, 0});
  owners_.push_back(Entry{owner, index});
  refreshes_.emplace_back([this, index, refresh] { refresh(slots_[index]); });
  if (created != nullptr) *created = true;
  return slots_[index];
}

void ReplayParameters::on_launch(std::function<void()> refresh) { refreshes_.push_back(std::move(refresh)); }

void ReplayParameters::prepare_launch() {
  for (const std::function<void()>& refresh : refreshes_) refresh();
}

ReplayParameters* ReplayParameters::active() { return active_recording; }

ReplayParameters::Recording::Recording(ReplayParameters& parameters) {
  SGNN_CHECK(active_recording == nullptr, "ReplayParameters: a recording is already active on this thread");
  active_recording = &parameters;
}

ReplayParameters::Recording::~Recording() { active_recording = nullptr; }

}  // namespace sgnn
