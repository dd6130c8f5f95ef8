#include "distributed/thread_communicator.hpp"

#include <condition_variable>
#include <mutex>
#include <vector>

#include "core/memory.hpp"
#include "distributed/rank_threads.hpp"

namespace sgnn::distributed {

struct ThreadRanks::Shared {
  explicit Shared(int ranks) : size(ranks), mailbox(static_cast<std::size_t>(ranks) * static_cast<std::size_t>(ranks)) {}

  // Every rank arrives before any leaves; throws once a rank has failed.
  void barrier() {
    std::unique_lock<std::mutex> lock(mutex);
    if (aborted) throw Error("simulated rank: another rank failed");
    const uint64_t arrival_generation = generation;
    if (++arrived == size) {
      arrived = 0;
      ++generation;
      changed.notify_all();
      return;
    }
    changed.wait(lock, [&] { return generation != arrival_generation || aborted; });
    if (aborted) throw Error("simulated rank: another rank failed");
  }

  void abort() {
    std::lock_guard<std::mutex> lock(mutex);
    aborted = true;
    changed.notify_all();
  }

  Tensor& slot(int from, int to) {
    return mailbox[static_cast<std::size_t>(from) * static_cast<std::size_t>(size) + static_cast<std::size_t>(to)];
  }

  const int size;
  std::mutex mutex;
  std::condition_variable changed;
  int arrived = 0;
  uint64_t generation = 0;
  bool aborted = false;
  std::vector<Tensor> mailbox;  // [from · size + to]: what `from` posted for `to`
};

namespace {

int64_t element_count(const Tensor& tensor) { return tensor.defined() ? tensor.numel() : 0; }

void copy_into(const Tensor& destination, const Tensor& source) {
  memory::copy(destination.raw_data(), destination.device(), source.raw_data(), source.device(), source.nbytes());
}

class ThreadCommunicator final : public Communicator {
 public:
  ThreadCommunicator(ThreadRanks::Shared& shared, int rank) : shared_(shared), rank_(rank) {}
  int rank() const override { return rank_; }
  int size() const override { return shared_.size; }
  Device device() const override { return Device::cpu(); }

  void exchange(const std::vector<Tensor>& sends, const std::vector<Tensor>& receives) override {
    const auto n = static_cast<std::size_t>(size());
    SGNN_CHECK(sends.size() == n && receives.size() == n, "exchange: rank ", rank_, " passed ", sends.size(),
               " sends and ", receives.size(), " receives for ", n, " ranks");
    check_tensors(sends, "exchange");
    check_tensors(receives, "exchange");
    for (int peer = 0; peer < size(); ++peer) shared_.slot(rank_, peer) = sends[static_cast<std::size_t>(peer)];
    shared_.barrier();
    for (int peer = 0; peer < size(); ++peer) {
      const Tensor& receive = receives[static_cast<std::size_t>(peer)];
      const Tensor& posted = shared_.slot(peer, rank_);
      SGNN_CHECK(element_count(receive) == element_count(posted), "exchange: rank ", rank_, " expects ",
                 element_count(receive), " elements from rank ", peer, ", which sends ", element_count(posted));
      if (element_count(receive) > 0) copy_into(receive, posted);
    }
    count_exchange(sends);
    finish();
  }

  void all_gather(const Tensor& send, const Tensor& receive) override {
    check_tensors({send, receive}, "all_gather");
    SGNN_CHECK(receive.numel() == send.numel() * size(), "all_gather: receive has ", receive.numel(),
               " elements, expected ", size(), " x ", send.numel());
    shared_.slot(rank_, rank_) = send;
    shared_.barrier();
    const Tensor flat = receive.view({size(), send.numel()});
    for (int peer = 0; peer < size(); ++peer) {
      const Tensor& posted = shared_.slot(peer, peer);
      SGNN_CHECK(posted.numel() == send.numel(), "all_gather: rank ", peer, " sends ", posted.numel(),
                 " elements, rank ", rank_, " ", send.numel());
      if (send.numel() > 0) copy_into(flat.narrow_rows(peer, peer + 1), posted);
    }
    count_all_gather(send);
    finish();
  }

  void reduce_scatter_sum(const Tensor& send, const Tensor& receive) override {
    check_tensors({send, receive}, "reduce_scatter_sum");
    SGNN_CHECK(send.numel() == receive.numel() * size(), "reduce_scatter_sum: send has ", send.numel(),
               " elements, expected ", size(), " x ", receive.numel());
    shared_.slot(rank_, rank_) = send;
    shared_.barrier();
    sum_block_into(receive, rank_, receive.numel());
    count_reduce_scatter(send);
    finish();
  }

  void all_reduce_sum(const std::vector<Tensor>& tensors) override {
    check_tensors(tensors, "all_reduce_sum");
    for (const Tensor& tensor : tensors) {
      // Each tensor in turn; the result is written only after every rank has read.
      const Tensor input = tensor.clone();
      shared_.slot(rank_, rank_) = input;
      shared_.barrier();
      sum_block_into(tensor, 0, tensor.numel());
      finish();
    }
    count_all_reduce(tensors);
  }

 private:
  // out <- Σ over ranks (in rank order) of elements [block·n, block·n + n) of their posted tensors.
  void sum_block_into(const Tensor& out, int block, int64_t n) {
    float* result = out.data<float>();
    for (int64_t i = 0; i < n; ++i) result[i] = 0.0f;
    for (int peer = 0; peer < size(); ++peer) {
      const Tensor& posted = shared_.slot(peer, peer);
      SGNN_CHECK(posted.numel() >= (block + 1) * n, "collective: rank ", peer, " posted ", posted.numel(),
                 " elements, rank ", rank_, " needs ", (block + 1) * n);
      const float* values = posted.data<float>() + block * n;
      for (int64_t i = 0; i < n; ++i) result[i] += values[i];
    }
  }

  // Nobody reposts before every rank has read, then my posts are dropped.
  void finish() {
    shared_.barrier();
    for (int peer = 0; peer < size(); ++peer) shared_.slot(rank_, peer) = Tensor();
  }

  ThreadRanks::Shared& shared_;
  int rank_;
};

}  // namespace

ThreadRanks::ThreadRanks(int size) {
  SGNN_CHECK(size >= 1, "ThreadRanks: size must be at least 1, got ", size);
  shared_ = std::make_shared<Shared>(size);
}

ThreadRanks::~ThreadRanks() = default;

int ThreadRanks::size() const { return shared_->size; }

void ThreadRanks::run(const std::function<void(Communicator&)>& body) {
  shared_->aborted = false;
  shared_->arrived = 0;
  run_rank_threads(
      shared_->size,
      [&](int rank) {
        ThreadCommunicator communicator(*shared_, rank);
        body(communicator);
      },
      [&] { shared_->abort(); });
}

}  // namespace sgnn::distributed

