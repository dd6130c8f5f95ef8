// Dataset: a graph as read from files, on the host, before any preparation.
//
//   edges        EdgeList (host): num_nodes, source/target int32 [E], optional
//                weight float32 [E]; directed as stored (an undirected file
//                lists both directions or is symmetrised by prepare())
//   edge_features
//                host [E, F_e] float32, finite: row k belongs to edge k
//                (OGB's edge-feat.csv); undefined if the files have none.
//                make_graph moves them into the adjacency's entry order
//                (Graph::edge_features) when the model asks for them
//   features     host [N, F] float32 (bfloat16 from a generator that writes
//                it so: the papers100M-scale preset), finite (undefined if
//                the files have none)
//   labels       host [N] int32 in [0, num_classes) (undefined if none)
//   train_index, valid_index, test_index
//                host [M] int32 node ids in [0, N), no repeats, disjoint
//                (undefined if the files have no split)
//   csr          optional: the graph as a prebuilt CSR (host; row v lists the
//                in-neighbours of v, sorted, no repeats; int64 indptr when
//                nnz >= 2^31), from generators that write it directly (the
//                papers100M-scale preset); edges then holds num_nodes only. The
//                full-graph path prepares the adjacency from the CSR, the
//                mini-batch trainer samples from it, and sgnn_describe expands
//                it (graph_io/csr_edges.hpp).
//   num_classes  max label + 1 (0 without labels)
//   fingerprint  a hash of the files it was read from, taken when its
//                processed file was written (graph_io/processed_dataset.hpp);
//                0 when unknown (a dataset built in memory): the caches then
//                hash the edges instead
//   load         how it was loaded: parsed or mapped from the processed file
//
// Tensors of a dataset mapped from its processed file are host tensors over
// the mapping. load_dataset checks their checksums unless asked to defer the
// large ones (LoadOptions::defer_checks); `unchecked` then lists what is left
// and verify_section() (processed_dataset.hpp) checks one.
#pragma once

#include <cstdint>
#include <future>
#include <map>
#include <memory>
#include <string>

#include "core/csr.hpp"
#include "graph_io/edge_list.hpp"

namespace sgnn::graph_io {

struct Dataset {
  std::string name;    // e.g. "cora" (the folder or file name)
  std::string source;  // where it was read from
  EdgeList edges;
  Tensor edge_features;
  Csr csr;
  Tensor features;
  Tensor labels;
  Tensor train_index;
  Tensor valid_index;
  Tensor test_index;
  int64_t num_classes = 0;
  double read_ms = 0.0;  // wall time of parsing the files, or of mapping the processed file
  uint64_t fingerprint = 0;

  struct Load {
    bool processed_hit = false;  // mapped from the processed file, nothing parsed
    std::string processed_path;  // the processed file used or written ("" when none)
    std::string note;            // why the processed file was not used or not written, if so
    // The processed file being written on a thread of its own
    // (LoadOptions::store_in_background); the last copy of the dataset waits for it.
    std::shared_ptr<std::future<void>> pending_store;
  } load;
  // Mapped sections whose CRC-32 is not checked yet: "edges.source",
  // "edges.target", "edges.weight", "edge_features", "features" -> the CRC
  // stored in load.processed_path.
  std::map<std::string, uint32_t> unchecked;

  int64_t num_nodes() const { return edges.num_nodes; }
};

}  // namespace sgnn::graph_io
