// count_prepared_entries: how many entries prepare_adjacency(edges, options)
// will produce, without building it. Duplicates are merged either way, so
// the count is the number of distinct (row, column) pairs after symmetrising
// plus the self loops the options keep or add. Costs one pass over the edges
// and one parallel sort of one 8-byte key per edge on the host (the CSR
// itself needs 2·edges keys on its device). For the memory check
// (training/memory_estimate_check.hpp), where 2·edges + nodes can be twice the
// truth for a dataset that already stores both directions.
//
//   edges    EdgeList on the host or a device (copied to the host)
//   options  symmetrize and self_loops matter; normalization, duplicates and
//            device do not change the count
// Throws InvalidArgument when the edge list is invalid (EdgeList::validate).
#pragma once

#include <cstdint>

#include "graph_io/edge_list.hpp"
#include "graph_io/prepare.hpp"

namespace sgnn::graph_io {

int64_t count_prepared_entries(const EdgeList& edges, const PrepareOptions& options);

}  // namespace sgnn::graph_io
