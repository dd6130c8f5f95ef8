// DeviceArena: the memory of one mini-batch in flight. Tensors are views
// into a few preallocated buffers (one per dtype), so a batch sampled on a
// stream of its own never allocates from the library's stream-ordered pool
// while the training stream runs (memory that pool hands out may still be in
// use by the stream that freed it), and nothing is freed while another
// stream reads it: the buffers live as long as the arena.
//
// take() hands out the next free range (256-byte aligned). A request that
// does not fit allocates a larger buffer (the old one is kept until reset,
// since views into it are alive) and waits for the library's stream so the
// new memory may be used on any stream: a stall the first batches pay, until
// the buffers have grown to the batches' size. reset() starts over; its
// caller guarantees that no view of the previous round is in use any more
// (the pipeline waits for the events of the training step that read them).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "core/tensor.hpp"

namespace sgnn::sampling {

class DeviceArena {
 public:
  explicit DeviceArena(Device device);
  DeviceArena(const DeviceArena&) = delete;
  DeviceArena& operator=(const DeviceArena&) = delete;

  Tensor take(const Shape& shape, DType dtype);
  void reset();
  Device device() const { return device_; }
  // Bytes of the buffers held now.
  int64_t capacity_bytes() const;
  // Times a request did not fit (each one waited for the library's stream).
  int64_t growths() const { return growths_; }

 private:
  struct Pool {
    Tensor buffer;                // 1-D, of the pool's dtype
    int64_t used = 0;             // elements of `buffer` handed out this round
    int64_t round_elements = 0;   // elements handed out this round, all buffers
    std::vector<Tensor> retired;  // outgrown this round, kept for the views into them
  };
  Device device_;
  std::array<Pool, 4> pools_;  // by DType
  int64_t growths_ = 0;
};

}  // namespace sgnn::sampling
