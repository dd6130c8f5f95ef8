// One host thread per rank: the single-process mode of distributed training
// (one process drives every GPU of a host, no MPI).
#pragma once

#include <functional>

namespace sgnn::distributed {

// Runs body(rank) for rank 0..size-1 on `size` threads and waits for all.
// When a rank throws, on_failure() runs once (it must release the other
// ranks from waits on the failed one, e.g. abort the communicators) and the
// first exception is rethrown here after every thread has ended.
void run_rank_threads(int size, const std::function<void(int rank)>& body, const std::function<void()>& on_failure);

}  // namespace sgnn::distributed
