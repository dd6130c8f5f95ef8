#include "distributed/nccl_ranks.hpp"

#include <cstdlib>
#include <mutex>
#include <set>

#include "core/cuda_runtime.hpp"
#include "core/device.hpp"
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

std::size_t count_of(const Tensor& tensor) {
  return tensor.defined() ? static_cast<std::size_t>(tensor.numel()) : 0;
}

// One rank's NCCL communicator; every operation is enqueued on the library's
// stream of the rank's device, after the kernels that produced its inputs.
class NcclCommunicator final : public Communicator {
 public:
  NcclCommunicator(const NcclLibrary& nccl, ncclComm_t comm, int rank, int size, Device device)
      : nccl_(nccl), comm_(comm), rank_(rank), size_(size), device_(device), stream_(cuda::stream(device)) {}
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  Device device() const override { return device_; }

  void exchange(const std::vector<Tensor>& sends, const std::vector<Tensor>& receives) override {
    const auto n = static_cast<std::size_t>(size_);
    SGNN_CHECK(sends.size() == n && receives.size() == n, "exchange: rank ", rank_, " passed ", sends.size(),
               " sends and ", receives.size(), " receives for ", n, " ranks");
    check_tensors(sends, "exchange");
    check_tensors(receives, "exchange");
    SGNN_NCCL_CHECK(nccl_.group_start(), comm_);
    for (int peer = 0; peer < size_; ++peer) {
      const Tensor& send = sends[static_cast<std::size_t>(peer)];
      const Tensor& receive = receives[static_cast<std::size_t>(peer)];
      if (count_of(send) > 0) {
        SGNN_NCCL_CHECK(nccl_.send(send.raw_data(), count_of(send), ncclFloat32, peer, comm_, stream_), comm_);
      }
      if (count_of(receive) > 0) {
        SGNN_NCCL_CHECK(nccl_.recv(receive.raw_data(), count_of(receive), ncclFloat32, peer, comm_, stream_), comm_);
      }
    }
    SGNN_NCCL_CHECK(nccl_.group_end(), comm_);
    count_exchange(sends);
  }

  void all_gather(const Tensor& send, const Tensor& receive) override {
    check_tensors({send, receive}, "all_gather");
    SGNN_CHECK(count_of(receive) == count_of(send) * static_cast<std::size_t>(size_), "all_gather: receive has ",
               count_of(receive), " elements, expected ", size_, " x ", count_of(send));
    SGNN_NCCL_CHECK(nccl_.all_gather(send.raw_data(), receive.raw_data(), count_of(send), ncclFloat32, comm_, stream_),
                    comm_);
    count_all_gather(send);
  }

  void reduce_scatter_sum(const Tensor& send, const Tensor& receive) override {
    check_tensors({send, receive}, "reduce_scatter_sum");
    SGNN_CHECK(count_of(send) == count_of(receive) * static_cast<std::size_t>(size_), "reduce_scatter_sum: send has ",
               count_of(send), " elements, expected ", size_, " x ", count_of(receive));
    SGNN_NCCL_CHECK(nccl_.reduce_scatter(send.raw_data(), receive.raw_data(), count_of(receive), ncclFloat32, ncclSum,
                                         comm_, stream_),
                    comm_);
    count_reduce_scatter(send);
  }

  void all_reduce_sum(const std::vector<Tensor>& tensors) override {
    check_tensors(tensors, "all_reduce_sum");
    SGNN_NCCL_CHECK(nccl_.group_start(), comm_);
    for (const Tensor& tensor : tensors) {
      if (count_of(tensor) == 0) continue;
      SGNN_NCCL_CHECK(nccl_.all_reduce(tensor.raw_data(), tensor.raw_data(), count_of(tensor), ncclFloat32, ncclSum,
                                       comm_, stream_),
                      comm_);
    }
    SGNN_NCCL_CHECK(nccl_.group_end(), comm_);
    count_all_reduce(tensors);
  }

 private:
  const NcclLibrary& nccl_;
  ncclComm_t comm_;
  int rank_;
  int size_;
  Device device_;
  cudaStream_t stream_;
};

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
  // NVLink SHARP multicast stays off (it needs fabric-manager support the
  // target machines lack); a user's own setting wins.
  setenv("NCCL_NVLS_ENABLE", "0", /*overwrite=*/0);
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
