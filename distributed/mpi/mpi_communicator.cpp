#include "distributed/mpi_communicator.hpp"

#include <algorithm>
#include <cstring>

#include "distributed/mpi/mpi_check.hpp"

namespace sgnn::distributed {

struct MpiCommunicator::State {
  MPI_Comm comm = MPI_COMM_NULL;
  int rank = 0;
  int size = 1;
  int64_t max_elements = INT_MAX;
};

namespace {

std::size_t at(int i) { return static_cast<std::size_t>(i); }
int64_t count_of(const Tensor& tensor) { return tensor.defined() ? tensor.numel() : 0; }

// The pieces [offset, offset + length) of a message of `count` elements that MPI's int counts can carry.
template <typename Body>
void for_each_piece(int64_t count, int64_t max_elements, Body&& body) {
  for (int64_t offset = 0; offset < count; offset += max_elements) {
    body(offset, static_cast<int>(std::min(max_elements, count - offset)));
  }
}

constexpr int kExchangeTag = 4711;

}  // namespace

MpiCommunicator::MpiCommunicator(const MpiSession& session, int64_t max_message_elements)
    : state_(std::make_unique<State>()) {
  SGNN_CHECK(max_message_elements >= 1 && max_message_elements <= INT_MAX,
             "MpiCommunicator: max_message_elements must be in [1, INT_MAX], got ", max_message_elements);
  SGNN_MPI_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &state_->comm));
  SGNN_MPI_CHECK(MPI_Comm_set_errhandler(state_->comm, MPI_ERRORS_RETURN));
  state_->rank = session.rank();
  state_->size = session.size();
  state_->max_elements = max_message_elements;
}

MpiCommunicator::~MpiCommunicator() {
  if (state_ && state_->comm != MPI_COMM_NULL) (void)MPI_Comm_free(&state_->comm);
}

int MpiCommunicator::rank() const { return state_->rank; }
int MpiCommunicator::size() const { return state_->size; }

void MpiCommunicator::exchange(const std::vector<Tensor>& sends, const std::vector<Tensor>& receives) {
  const State& s = *state_;
  const auto n = at(s.size);
  SGNN_CHECK(sends.size() == n && receives.size() == n, "exchange: rank ", s.rank, " passed ", sends.size(),
             " sends and ", receives.size(), " receives for ", n, " ranks");
  check_tensors(sends, "exchange");
  check_tensors(receives, "exchange");
  // Both sides of every pair learn the other's count first: a mismatch is an
  // error on both instead of a message matched to the wrong receive later.
  std::vector<int64_t> send_counts(n), incoming_counts(n);
  for (std::size_t peer = 0; peer < n; ++peer) send_counts[peer] = count_of(sends[peer]);
  SGNN_MPI_CHECK(MPI_Alltoall(send_counts.data(), 1, MPI_INT64_T, incoming_counts.data(), 1, MPI_INT64_T, s.comm));
  for (std::size_t peer = 0; peer < n; ++peer) {
    SGNN_CHECK(incoming_counts[peer] == count_of(receives[peer]), "exchange: rank ", s.rank, " expects ",
               count_of(receives[peer]), " elements from rank ", peer, ", which sends ", incoming_counts[peer]);
  }
  std::vector<MPI_Request> requests;
  for (int peer = 0; peer < s.size; ++peer) {
    const Tensor& receive = receives[at(peer)];
    for_each_piece(count_of(receive), s.max_elements, [&](int64_t offset, int length) {
      requests.emplace_back();
      SGNN_MPI_CHECK(MPI_Irecv(receive.data<float>() + offset, length, MPI_FLOAT, peer, kExchangeTag, s.comm,
                               &requests.back()));
    });
  }
  for (int peer = 0; peer < s.size; ++peer) {
    const Tensor& send = sends[at(peer)];
    for_each_piece(count_of(send), s.max_elements, [&](int64_t offset, int length) {
      requests.emplace_back();
      SGNN_MPI_CHECK(MPI_Isend(send.data<float>() + offset, length, MPI_FLOAT, peer, kExchangeTag, s.comm,
                               &requests.back()));
    });
  }
  SGNN_MPI_CHECK(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE));
  count_exchange(sends);
}

void MpiCommunicator::all_gather(const Tensor& send, const Tensor& receive) {
  const State& s = *state_;
  check_tensors({send, receive}, "all_gather");
  const int64_t n = send.numel();
  SGNN_CHECK(receive.numel() == n * s.size, "all_gather: receive has ", receive.numel(), " elements, expected ",
             s.size, " x ", n);
  if (n <= s.max_elements) {
    SGNN_MPI_CHECK(MPI_Allgather(send.data<float>(), static_cast<int>(n), MPI_FLOAT, receive.data<float>(),
                                 static_cast<int>(n), MPI_FLOAT, s.comm));
  } else {
    // Piece k of every rank's block lands in [size, length] and is put in place.
    std::vector<float> gathered;
    for_each_piece(n, s.max_elements, [&](int64_t offset, int length) {
      gathered.resize(at(s.size) * static_cast<std::size_t>(length));
      SGNN_MPI_CHECK(MPI_Allgather(send.data<float>() + offset, length, MPI_FLOAT, gathered.data(), length,
                                   MPI_FLOAT, s.comm));
      for (int peer = 0; peer < s.size; ++peer) {
        std::memcpy(receive.data<float>() + peer * n + offset, gathered.data() + at(peer) * static_cast<std::size_t>(length),
                    static_cast<std::size_t>(length) * sizeof(float));
      }
    });
  }
  count_all_gather(send);
}

void MpiCommunicator::reduce_scatter_sum(const Tensor& send, const Tensor& receive) {
  const State& s = *state_;
  check_tensors({send, receive}, "reduce_scatter_sum");
  const int64_t n = receive.numel();
  SGNN_CHECK(send.numel() == n * s.size, "reduce_scatter_sum: send has ", send.numel(), " elements, expected ",
             s.size, " x ", n);
  if (n <= s.max_elements) {
    SGNN_MPI_CHECK(MPI_Reduce_scatter_block(send.data<float>(), receive.data<float>(), static_cast<int>(n), MPI_FLOAT,
                                            MPI_SUM, s.comm));
  } else {
    // Piece k of every block is packed into [size, length], reduced and scattered.
    std::vector<float> packed;
    for_each_piece(n, s.max_elements, [&](int64_t offset, int length) {
      packed.resize(at(s.size) * static_cast<std::size_t>(length));
      for (int peer = 0; peer < s.size; ++peer) {
        std::memcpy(packed.data() + at(peer) * static_cast<std::size_t>(length), send.data<float>() + peer * n + offset,
                    static_cast<std::size_t>(length) * sizeof(float));
      }
      SGNN_MPI_CHECK(MPI_Reduce_scatter_block(packed.data(), receive.data<float>() + offset, length, MPI_FLOAT,
                                              MPI_SUM, s.comm));
    });
  }
  count_reduce_scatter(send);
}

void MpiCommunicator::all_reduce_sum(const std::vector<Tensor>& tensors) {
  const State& s = *state_;
  check_tensors(tensors, "all_reduce_sum");
  for (const Tensor& tensor : tensors) {
    for_each_piece(count_of(tensor), s.max_elements, [&](int64_t offset, int length) {
      SGNN_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, tensor.data<float>() + offset, length, MPI_FLOAT, MPI_SUM, s.comm));
    });
  }
  count_all_reduce(tensors);
}

}  // namespace sgnn::distributed
