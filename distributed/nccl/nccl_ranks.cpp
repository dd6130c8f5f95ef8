#include "distributed/nccl_ranks.hpp"

#include <cstdlib>
#include <mutex>
#include <set>

#include "core/cuda_runtime.hpp"
#include "core/device.hpp"
#include "distributed/nccl/nccl_communicator.hpp"
#include "distributed/nccl/nccl_library.hpp"
#include "distributed/rank_threads.hpp"

namespace sgnn::distributed {

struct NcclRanks::State {
  const NcclLibrary* nccl = nullptr;
  std::vector<int> devices;
  std::vector<ncclComm_t> comms;
  std::once_flag abort_once;
  bool aborted = false;
};

namespace {

void check_devices(const std::vector<int>& devices) {
  const int visible = cuda_device_count();
  SGNN_CHECK(!devices.empty(), "NcclRanks: no GPUs given");
  SGNN_CHECK(std::set<int>(devices.begin(), devices.end()).size() == devices.size(),
             "NcclRanks: a GPU is listed twice");
  for (const int device : devices) {
    SGNN_CHECK(device >= 0 && device < visible, "NcclRanks: GPU ", device, " requested, ", visible,
               " visible (CUDA_VISIBLE_DEVICES?)");
  }
}

}  // namespace

bool nccl_built() { return true; }

NcclRanks::NcclRanks(const std::vector<int>& devices) : state_(std::make_unique<State>()) {
  check_devices(devices);
  keep_nvlink_multicast_off();
  state_->nccl = &nccl_library();
  state_->devices = devices;
  state_->comms.resize(devices.size(), nullptr);
  // The streams and cuBLAS handles are created lazily; make the streams now so
  // that no rank thread creates one while another runs NCCL kernels.
  for (const int device : devices) (void)cuda::stream(Device::cuda(device));
  const ncclResult_t result =
      state_->nccl->comm_init_all(state_->comms.data(), static_cast<int>(devices.size()), devices.data());
  if (result != ncclSuccess) {
    const char* last = state_->nccl->get_last_error(nullptr);
    throw Error(detail::concat("NCCL: initialising ", devices.size(), " GPUs with ", state_->nccl->path,
                               " failed: ", state_->nccl->get_error_string(result),
                               last != nullptr && *last != '\0' ? detail::concat(" (", last, ")") : std::string(),
                               ". Run with NCCL_DEBUG=INFO for NCCL's own report."));
  }
}

NcclRanks::~NcclRanks() {
  if (!state_ || state_->aborted || state_->nccl == nullptr) return;
  for (ncclComm_t comm : state_->comms) {
    if (comm != nullptr) (void)state_->nccl->comm_destroy(comm);
  }
}

int NcclRanks::size() const { return static_cast<int>(state_->devices.size()); }

std::string NcclRanks::nccl_version() const {
  int code = 0;
  SGNN_NCCL_CHECK(state_->nccl->get_version(&code), nullptr);
  // NCCL >= 2.9 codes: major·10000 + minor·100 + patch.
  return detail::concat(code / 10000, ".", code / 100 % 100, ".", code % 100);
}

void NcclRanks::run(const std::function<void(Communicator&)>& body) {
  SGNN_CHECK(!state_->aborted, "NcclRanks::run: the communicators were aborted after an earlier failure");
  State& state = *state_;
  run_rank_threads(
      size(),
      [&](int rank) {
        const Device device = Device::cuda(state.devices[static_cast<std::size_t>(rank)]);
        const cuda::DeviceGuard guard(device);
        NcclCommunicator communicator(*state.nccl, state.comms[static_cast<std::size_t>(rank)], rank, size(), device);
        body(communicator);
        // Surface this rank's kernel and NCCL errors inside the rank's thread.
        SGNN_CUDA_CHECK(cudaStreamSynchronize(cuda::stream(device)));
      },
      [&] {
        // Ranks blocked in NCCL waiting for the failed one return with an error.
        std::call_once(state.abort_once, [&] {
          state.aborted = true;
          for (ncclComm_t comm : state.comms) (void)state.nccl->comm_abort(comm);
        });
      });
}

}  // namespace sgnn::distributed
