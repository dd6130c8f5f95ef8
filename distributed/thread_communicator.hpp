// Simulated ranks: `size` threads of one process on the host exchanging
// through shared memory with the Communicator's semantics. The CPU tier runs
// the distributed training code on it; sums are taken in rank order, so
// results are deterministic.
#pragma once

#include <functional>
#include <memory>

#include "distributed/communicator.hpp"

namespace sgnn::distributed {

class ThreadRanks {
 public:
  explicit ThreadRanks(int size);  // InvalidArgument when size < 1
  ~ThreadRanks();
  ThreadRanks(const ThreadRanks&) = delete;
  ThreadRanks& operator=(const ThreadRanks&) = delete;

  int size() const;
  // Runs body(communicator of rank r) on one thread per rank (see
  // run_rank_threads). When a rank fails, the others' pending operations
  // throw instead of waiting forever; the first failure is rethrown.
  void run(const std::function<void(Communicator&)>& body);

  struct Shared;  // the mailbox and barrier (thread_communicator.cpp)

 private:
  std::shared_ptr<Shared> shared_;
};

}  // namespace sgnn::distributed
