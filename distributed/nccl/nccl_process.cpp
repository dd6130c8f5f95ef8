#include "distributed/nccl_process.hpp"

#include <cstring>
#include <mutex>

#include "core/cuda_runtime.hpp"
#include "core/device.hpp"
#include "distributed/nccl/nccl_communicator.hpp"
#include "distributed/nccl/nccl_library.hpp"

namespace sgnn::distributed {

struct NcclProcessRank::State {
  const NcclLibrary* nccl = nullptr;
  ncclComm_t comm = nullptr;
  Device device;
  std::unique_ptr<NcclCommunicator> communicator;
  mutable std::mutex abort_mutex;
  bool aborted = false;
};

std::vector<uint8_t> make_nccl_unique_id() {
  const NcclLibrary& nccl = nccl_library();
  ncclUniqueId id{};
  SGNN_NCCL_CHECK(nccl.get_unique_id(&id), nullptr);
  std::vector<uint8_t> bytes(sizeof(id.internal));
  std::memcpy(bytes.data(), id.internal, bytes.size());
  return bytes;
}

NcclProcessRank::NcclProcessRank(const std::vector<uint8_t>& unique_id, int rank, int size, int device)
    : state_(std::make_unique<State>()) {
  ncclUniqueId id{};
  SGNN_CHECK(unique_id.size() == sizeof(id.internal), "NcclProcessRank: the unique id has ", unique_id.size(),
             " bytes, NCCL's has ", sizeof(id.internal));
  SGNN_CHECK(size >= 1 && rank >= 0 && rank < size, "NcclProcessRank: rank ", rank, " of ", size);
  const int visible = cuda_device_count();
  SGNN_CHECK(device >= 0 && device < visible, "NcclProcessRank: rank ", rank, " asks for GPU ", device, ", ", visible,
             " visible (CUDA_VISIBLE_DEVICES? more ranks on this host than GPUs?)");
  std::memcpy(id.internal, unique_id.data(), unique_id.size());
  keep_nvlink_multicast_off();
  state_->nccl = &nccl_library();
  state_->device = Device::cuda(device);
  const cuda::DeviceGuard guard(state_->device);
  (void)cuda::stream(state_->device);  // created before NCCL's kernels run, as in NcclRanks
  const ncclResult_t result = state_->nccl->comm_init_rank(&state_->comm, size, id, rank);
  if (result != ncclSuccess) {
    const char* last = state_->nccl->get_last_error(nullptr);
    throw Error(detail::concat("NCCL: rank ", rank, " of ", size, " could not join the run on GPU ", device, " with ",
                               state_->nccl->path, ": ", state_->nccl->get_error_string(result),
                               last != nullptr && *last != '\0' ? detail::concat(" (", last, ")") : std::string(),
                               ". Run with NCCL_DEBUG=INFO for NCCL's own report."));
  }
  state_->communicator = std::make_unique<NcclCommunicator>(*state_->nccl, state_->comm, rank, size, state_->device);
}

NcclProcessRank::~NcclProcessRank() {
  if (!state_ || state_->comm == nullptr) return;
  const std::lock_guard<std::mutex> lock(state_->abort_mutex);
  if (!state_->aborted) (void)state_->nccl->comm_destroy(state_->comm);
}

Communicator& NcclProcessRank::communicator() { return *state_->communicator; }

std::string NcclProcessRank::nccl_version() const {
  int code = 0;
  SGNN_NCCL_CHECK(state_->nccl->get_version(&code), nullptr);
  return detail::concat(code / 10000, ".", code / 100 % 100, ".", code % 100);
}

std::optional<std::string> NcclProcessRank::async_error() const {
  const std::lock_guard<std::mutex> lock(state_->abort_mutex);
  if (state_->aborted) return std::nullopt;
  ncclResult_t async = ncclSuccess;
  const ncclResult_t result = state_->nccl->comm_get_async_error(state_->comm, &async);
  if (result != ncclSuccess) return detail::concat("ncclCommGetAsyncError failed: ", state_->nccl->get_error_string(result));
  if (async == ncclSuccess || async == ncclInProgress) return std::nullopt;
  const char* last = state_->nccl->get_last_error(state_->comm);
  return detail::concat("NCCL reported an asynchronous error: ", state_->nccl->get_error_string(async),
                        last != nullptr && *last != '\0' ? detail::concat(" (", last, ")") : std::string());
}

void NcclProcessRank::abort() {
  const std::lock_guard<std::mutex> lock(state_->abort_mutex);
  if (state_->aborted || state_->comm == nullptr) return;
  state_->aborted = true;
  (void)state_->nccl->comm_abort(state_->comm);
}

void NcclProcessRank::synchronize() const {
  const cuda::DeviceGuard guard(state_->device);
  SGNN_CUDA_CHECK(cudaStreamSynchronize(cuda::stream(state_->device)));
}

}  // namespace sgnn::distributed
