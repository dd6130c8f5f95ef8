// CapturedStep: a training step (forward, backward, optimizer) recorded once
// into a CUDA Graph and replayed with one cudaGraphLaunch per epoch, which
// removes the per-kernel launch and host overhead that dominates small graphs
// (Cora: ~40 kernels of a few microseconds each).
//
// capture() runs `body` with the device's library stream in capture mode
// (cudaStreamCaptureModeThreadLocal) and a ReplayParameters recording active:
// nothing executes; the work is recorded. The graph begins with a copy of the
// replay parameters (dropout offsets, Adam's bias corrections) from pinned
// host memory, which launch() refreshes first. Requirements on `body`:
//   - all device work on cuda::stream(device); no host synchronisation, no
//     host<->device copies through memory::copy, no lazily built state (run
//     one eager step first so sparse plans, cuBLAS handles etc. exist);
//   - every tensor it allocates is freed before it returns (parameter
//     gradients included: zero them at the end), except that scalars it wants
//     back go through record_output(); tensors allocated before the capture
//     must not be freed inside it. A mismatch of the device's byte counter
//     before and after `body` fails the capture.
// On any failure (an sgnn::Error from `body`, a CUDA error, an invalidated
// capture) `on_failure` runs while the stream is still capturing (it must
// drop tensors made by the body, e.g. parameter gradients), the capture is
// ended and discarded, and the error is rethrown: the stream is never left in
// capture mode. Host state of ReplayParameters owners is unchanged then.
//
// launch() waits for the previous launch to have consumed its parameters,
// runs ReplayParameters::prepare_launch (host counters advance as one eager
// step would), then enqueues the graph. The first launch after capture()
// performs the captured step itself. Everything the body touched (model,
// optimizer, generator, data, sparse plans) must outlive the CapturedStep and
// keep its device addresses (parameters and optimizer state are updated in
// place). Needs the CUDA backend: capture() throws CudaError otherwise.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>

#include "core/device.hpp"
#include "core/replay_parameters.hpp"
#include "core/tensor.hpp"

namespace sgnn {

class CapturedStep {
 public:
  static constexpr std::size_t kMaxOutputs = 8;

  static std::unique_ptr<CapturedStep> capture(Device device, const std::function<void(CapturedStep&)>& body,
                                               const std::function<void()>& on_failure);
  ~CapturedStep();
  CapturedStep(const CapturedStep&) = delete;
  CapturedStep& operator=(const CapturedStep&) = delete;

  // Inside `body`: copies a float32 one-element device tensor to output
  // slot `index` (pinned host memory) at every launch. InvalidArgument on a
  // bad tensor or index.
  void record_output(std::size_t index, const Tensor& scalar);

  // Enqueues one replay (asynchronous).
  void launch();
  // Waits for the last launch to finish.
  void wait();
  // Output slot `index` of the last launch; call wait() first.
  float output(std::size_t index) const;

  Device device() const { return device_; }
  const ReplayParameters& parameters() const { return *parameters_; }

 private:
  explicit CapturedStep(Device device);
  struct Handles;  // CUDA graph, executable graph, event (opaque to CPU-only builds)

  Device device_;
  std::unique_ptr<ReplayParameters> parameters_;
  std::unique_ptr<Handles> handles_;
  [[maybe_unused]] float* outputs_ = nullptr;  // pinned, kMaxOutputs (CUDA builds only)
};

}  // namespace sgnn
