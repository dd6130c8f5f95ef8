// Exact integer collectives over any Communicator (whose operations move
// float32): each int64 travels as four 16-bit pieces, which float32 holds
// exactly. For the few numbers ranks must agree on or report (partition ids,
// row counts, bytes per epoch), not for bulk data.
#pragma once

#include <cstdint>
#include <vector>

#include "distributed/communicator.hpp"

namespace sgnn::distributed {

// Every rank's `values` (the same count on every rank): result[rank][i].
// Collective; InvalidArgument (on every rank) when the counts differ.
std::vector<std::vector<int64_t>> all_gather_integers(Communicator& communicator, const std::vector<int64_t>& values);

}  // namespace sgnn::distributed
