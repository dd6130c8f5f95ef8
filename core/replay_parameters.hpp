// ReplayParameters: the few values of a training step that change from one
// step to the next (a dropout stream's Philox offset, Adam's bias corrections)
// but would otherwise be baked into kernel arguments when the step is
// captured into a CUDA Graph (core/cuda_graph.hpp) and replayed.
//
// While a recording is active on the calling thread (Recording, RAII), ops
// that draw such values ask active() for an 8-byte slot instead of passing
// the value by value; their kernels read the slot when they run. A slot has a
// host address (pinned memory on CUDA, filled by the host) and a device
// address (what kernels read; on the CPU the same memory). The captured graph
// starts with one copy of the whole host buffer to the device buffer.
//
// Contract of a slot's owner (Generator, Optimizer): while recording, host
// state is NOT advanced; the owner writes the value the step would use now
// into the host slot when it registers, and registers a refresh that
// prepare_launch() runs before every launch (the first one included): it
// advances the owner's host state exactly as one eager step would and writes
// the value for that launch. So a failed capture leaves all host state as it
// was, and after every launch host state equals eager host state.
//
// Owners must outlive the ReplayParameters (they are referenced by the
// refresh callbacks). Not thread safe; one recording per thread at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "core/device.hpp"

namespace sgnn {

class ReplayParameters {
 public:
  static constexpr std::size_t kCapacity = 256;  // slots of 8 bytes

  struct Slot {
    uint64_t* host = nullptr;          // written by the host before a launch
    const uint64_t* device = nullptr;  // read by kernels
    uint64_t scratch = 0;              // the owner's bookkeeping while recording (e.g. an advance)
  };

  // Host (pinned when CUDA) and device buffers of kCapacity slots, zeroed.
  explicit ReplayParameters(Device device);
  ~ReplayParameters();
  ReplayParameters(const ReplayParameters&) = delete;
  ReplayParameters& operator=(const ReplayParameters&) = delete;

  // The slot of `owner` (one per owner; created on first request, with
  // `refresh` run by prepare_launch in registration order). `created` tells
  // the caller whether this call made it. InvalidArgument when all kCapacity
  // slots are taken. The reference is stable for the object's life.
  Slot& slot(const void* owner, const std::function<void(Slot&)>& refresh, bool* created = nullptr);
  // A refresh without a slot (a host counter that must advance per launch).
  void on_launch(std::function<void()> refresh);

  // Runs every refresh in registration order: host state advances by one
  // step and the host buffer holds this launch's values.
  void prepare_launch();

  Device device() const { return device_; }
  const void* host_buffer() const { return host_; }
  void* device_buffer() const { return device_buffer_; }
  std::size_t bytes() const { return kCapacity * sizeof(uint64_t); }
  std::size_t slots_used() const { return slots_.size(); }

  // The recording of the calling thread, or nullptr.
  static ReplayParameters* active();

  // Makes `parameters` the calling thread's active recording for its scope.
  // InvalidArgument when another recording is already active.
  class Recording {
   public:
    explicit Recording(ReplayParameters& parameters);
    ~Recording();
    Recording(const Recording&) = delete;
    Recording& operator=(const Recording&) = delete;
  };

 private:
  struct Entry {
    const void* owner;
    std::size_t slot;
  };

  Device device_;
  uint64_t* host_ = nullptr;
  uint64_t* device_buffer_ = nullptr;
  std::vector<Slot> slots_;  // reserved to kCapacity: references stay valid
  std::vector<Entry> owners_;
  std::vector<std::function<void()>> refreshes_;
};

}  // namespace sgnn
