#include "distributed/nccl/nccl_communicator.hpp"

namespace sgnn::distributed {

namespace {

std::size_t count_of(const Tensor& tensor) {
  return tensor.defined() ? static_cast<std::size_t>(tensor.numel()) : 0;
}

}  // namespace

NcclCommunicator::NcclCommunicator(const NcclLibrary& nccl, ncclComm_t comm, int rank, int size, Device device)
    : nccl_(nccl), comm_(comm), rank_(rank), size_(size), device_(device), stream_(cuda::stream(device)) {}

void NcclCommunicator::exchange(const std::vector<Tensor>& sends, const std::vector<Tensor>& receives) {
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

void NcclCommunicator::all_gather(const Tensor& send, const Tensor& receive) {
  check_tensors({send, receive}, "all_gather");
  SGNN_CHECK(count_of(receive) == count_of(send) * static_cast<std::size_t>(size_), "all_gather: receive has ",
             count_of(receive), " elements, expected ", size_, " x ", count_of(send));
  SGNN_NCCL_CHECK(nccl_.all_gather(send.raw_data(), receive.raw_data(), count_of(send), ncclFloat32, comm_, stream_),
                  comm_);
  count_all_gather(send);
}

void NcclCommunicator::reduce_scatter_sum(const Tensor& send, const Tensor& receive) {
  check_tensors({send, receive}, "reduce_scatter_sum");
  SGNN_CHECK(count_of(send) == count_of(receive) * static_cast<std::size_t>(size_), "reduce_scatter_sum: send has ",
             count_of(send), " elements, expected ", size_, " x ", count_of(receive));
  SGNN_NCCL_CHECK(nccl_.reduce_scatter(send.raw_data(), receive.raw_data(), count_of(receive), ncclFloat32, ncclSum,
                                       comm_, stream_),
                  comm_);
  count_reduce_scatter(send);
}

void NcclCommunicator::all_reduce_sum(const std::vector<Tensor>& tensors) {
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

}  // namespace sgnn::distributed
