#include "core/cuda_graph.hpp"

#include "core/error.hpp"
#include "core/memory.hpp"
#ifdef SGNN_WITH_CUDA
#include "core/cuda_runtime.hpp"
#endif

namespace sgnn {

#ifdef SGNN_WITH_CUDA

struct CapturedStep::Handles {
  cudaGraphExec_t executable = nullptr;
  cudaEvent_t done = nullptr;  // recorded after each launch
};

namespace {

// Ends a capture that failed and throws nothing: the stream leaves capture
// mode whatever state the capture is in (active or invalidated).
void abandon_capture(cudaStream_t stream) noexcept {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(stream, &status) == cudaSuccess && status != cudaStreamCaptureStatusNone) {
    cudaGraph_t partial = nullptr;
    (void)cudaStreamEndCapture(stream, &partial);
    if (partial != nullptr) (void)cudaGraphDestroy(partial);
  }
  (void)cudaGetLastError();
}

}  // namespace

CapturedStep::CapturedStep(Device device)
    : device_(device), parameters_(std::make_unique<ReplayParameters>(device)), handles_(std::make_unique<Handles>()) {
  cuda::DeviceGuard guard(device);
  // Allocated here, before the capture: cudaMallocHost is not allowed while capturing.
  void* pinned = nullptr;
  SGNN_CUDA_CHECK(cudaMallocHost(&pinned, kMaxOutputs * sizeof(float)));
  outputs_ = static_cast<float*>(pinned);
  for (std::size_t i = 0; i < kMaxOutputs; ++i) outputs_[i] = 0.0f;
  SGNN_CUDA_CHECK(cudaEventCreateWithFlags(&handles_->done, cudaEventDisableTiming));
}

CapturedStep::~CapturedStep() {
  int previous = 0;
  if (cudaGetDevice(&previous) != cudaSuccess) return;  // driver shut down at exit
  if (previous != device_.index) (void)cudaSetDevice(device_.index);
  if (handles_->done != nullptr) {
    (void)cudaEventSynchronize(handles_->done);  // no launch may still run on the executable graph
    (void)cudaEventDestroy(handles_->done);
  }
  if (handles_->executable != nullptr) {
    (void)cudaGraphExecDestroy(handles_->executable);
    // The graph's allocations are freed inside it; return its cached memory to the device.
    (void)cudaDeviceGraphMemTrim(device_.index);
  }
  if (outputs_ != nullptr) (void)cudaFreeHost(outputs_);
  (void)cudaGetLastError();
  if (previous != device_.index) (void)cudaSetDevice(previous);
}

std::unique_ptr<CapturedStep> CapturedStep::capture(Device device, const std::function<void(CapturedStep&)>& body,
                                                    const std::function<void()>& on_failure) {
  SGNN_CHECK(device.is_cuda(), "CapturedStep: CUDA Graph capture needs a CUDA device, got ", device.str());
  require_available(device);
  cuda::DeviceGuard guard(device);
  std::unique_ptr<CapturedStep> step(new CapturedStep(device));
  const cudaStream_t stream = cuda::stream(device);
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  SGNN_CUDA_CHECK(cudaStreamIsCapturing(stream, &status));
  SGNN_CHECK(status == cudaStreamCaptureStatusNone, "CapturedStep: the stream of ", device.str(),
             " is already capturing");
  // The parameter buffers were zeroed on the stream: let that finish outside the graph.
  SGNN_CUDA_CHECK(cudaStreamSynchronize(stream));
  const int64_t bytes_before = memory::usage(device).current_bytes;

  SGNN_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  cudaGraph_t graph = nullptr;
  try {
    ReplayParameters& parameters = *step->parameters_;
    // First node: this launch's replay parameters, written by the host in launch().
    SGNN_CUDA_CHECK(cudaMemcpyAsync(parameters.device_buffer(), parameters.host_buffer(), parameters.bytes(),
                                    cudaMemcpyHostToDevice, stream));
    {
      ReplayParameters::Recording recording(parameters);
      body(*step);
    }
    const int64_t outliving = memory::usage(device).current_bytes - bytes_before;
    SGNN_CHECK(outliving == 0, "CapturedStep: ", outliving,
               " bytes of device tensors made during the capture outlive it (or older ones were freed in it)");
    SGNN_CUDA_CHECK(cudaStreamEndCapture(stream, &graph));  // fails when the capture was invalidated
  } catch (...) {
    if (on_failure) {
      try {
        on_failure();
      } catch (...) {
      }
    }
    abandon_capture(stream);
    throw;
  }

  const cudaError_t instantiated = cudaGraphInstantiateWithFlags(&step->handles_->executable, graph, 0);
  (void)cudaGraphDestroy(graph);  // the executable graph does not need it
  if (instantiated != cudaSuccess) {
    step->handles_->executable = nullptr;
    cuda::throw_cuda_error(instantiated, "cudaGraphInstantiateWithFlags", __FILE__, __LINE__);
  }
  return step;
}

void CapturedStep::record_output(std::size_t index, const Tensor& scalar) {
  SGNN_CHECK(index < kMaxOutputs, "CapturedStep::record_output: index ", index, " >= ", kMaxOutputs);
  check_dtype(scalar, DType::Float32, "CapturedStep::record_output", "scalar");
  SGNN_CHECK(scalar.numel() == 1 && scalar.device() == device_, "CapturedStep::record_output: expected one float on ",
             device_.str(), ", got ", shape_str(scalar.shape()), " on ", scalar.device().str());
  SGNN_CUDA_CHECK(cudaMemcpyAsync(outputs_ + index, scalar.raw_data(), sizeof(float), cudaMemcpyDeviceToHost,
                                  cuda::stream(device_)));
}

void CapturedStep::launch() {
  cuda::DeviceGuard guard(device_);
  // The previous launch has copied the parameter buffer before we overwrite it.
  SGNN_CUDA_CHECK(cudaEventSynchronize(handles_->done));
  parameters_->prepare_launch();
  const cudaStream_t stream = cuda::stream(device_);
  SGNN_CUDA_CHECK(cudaGraphLaunch(handles_->executable, stream));
  SGNN_CUDA_CHECK(cudaEventRecord(handles_->done, stream));
}

void CapturedStep::wait() {
  cuda::DeviceGuard guard(device_);
  SGNN_CUDA_CHECK(cudaEventSynchronize(handles_->done));
}

float CapturedStep::output(std::size_t index) const {
  SGNN_CHECK(index < kMaxOutputs, "CapturedStep::output: index ", index, " >= ", kMaxOutputs);
  return outputs_[index];
}

#else  // CPU-only build: the class exists so callers compile; capture() refuses.

struct CapturedStep::Handles {};

CapturedStep::CapturedStep(Device device) : device_(device) {}
CapturedStep::~CapturedStep() = default;

std::unique_ptr<CapturedStep> CapturedStep::capture(Device device, const std::function<void(CapturedStep&)>&,
                                                    const std::function<void()>&) {
  throw CudaError(detail::concat("CapturedStep: CUDA Graph capture on ", device.str(),
                                 " needs the CUDA backend; this build has none"));
}

void CapturedStep::record_output(std::size_t, const Tensor&) {
  throw CudaError("CapturedStep::record_output: this build has no CUDA backend");
}
void CapturedStep::launch() { throw CudaError("CapturedStep::launch: this build has no CUDA backend"); }
void CapturedStep::wait() {}
float CapturedStep::output(std::size_t) const { return 0.0f; }

#endif

}  // namespace sgnn
