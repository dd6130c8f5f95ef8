// The papers100M-scale synthetic dataset, built in its final layout — a
// symmetric CSR, BF16 features, labels, splits — and written straight into
// the processed format (graph_io/processed_dataset.hpp), with no edge list,
// no CSV and no sort of billions of entries, so generating and loading fit
// one H200 machine (128 GiB of host memory, 64 GiB of disk).
//
// The graph: `num_edges` undirected edges drawn independently, each stored
// in both directions (self loops dropped, repeats merged). One end u is
// drawn in proportion to a power-law weight (Chung & Lu 2002: node of rank
// i weighs (i + i0)^(-1/(exponent - 1)), i0 set so that the heaviest node
// expects max_degree edge ends); the other end, with probability
// `homophily`, from u's class in proportion to the same weights, else from
// all nodes. Ranks are drawn by inverting the weights' continuous CDF
// (no table), mapped to node ids by a keyed Feistel permutation (hubs spread
// over the id range); the class of a node is its rank modulo num_classes.
// Features: the class centroid (uniform in ±sqrt(6/F)) plus unit noise
// (Irwin–Hall of four 16-bit uniforms), rounded to bfloat16. Splits: the
// first train/valid/test_nodes of another Feistel order, each sorted.
//
// Everything is a function of (seed, index) through Philox, so the result
// does not depend on the thread count. The CSR is built in two passes over
// the drawn edges (count, then fill through per-row cursors), rows sorted
// and repeats removed one row at a time.
//
// Memory: 8 bytes per drawn edge and 4 per directed entry while counting
// and filling, 8 per entry while compacting (the raw and the final index
// arrays), then the CSR beside 2·F bytes per node of features: about 43 GB
// at full size. Disk: the processed file, about 42 GB.
#pragma once

#include <cstdint>
#include <filesystem>

#include "graph_io/dataset.hpp"

namespace sgnn::graph_io {

struct PapersScaleOptions {
  int64_t num_nodes = 111'059'956;   // ogbn-papers100M's
  int64_t num_edges = 1'615'685'872; // undirected edges drawn (ogbn-papers100M's citation count)
  int64_t num_features = 128;
  int64_t num_classes = 172;
  int64_t train_nodes = 1'207'179;   // ogbn-papers100M's split sizes
  int64_t valid_nodes = 125'265;
  int64_t test_nodes = 214'338;
  double exponent = 2.5;      // of the degree distribution P(k) ∝ k^-exponent, > 2
  double max_degree = 50'000; // expected edge ends of the heaviest node
  double homophily = 0.7;
  uint64_t seed = 3;
};

// The options with every size divided by `scale` (>= 1): the same generator
// at a size the tests run (scale 1000: 111K nodes, 1.6M edges); classes,
// features, exponent and homophily unchanged, max_degree divided by
// scale^(1 / (exponent - 1)) as a power law's largest degree shrinks.
PapersScaleOptions scaled_papers_options(double scale);

// InvalidArgument naming the first bad option.
void check_papers_options(const PapersScaleOptions& options);

// The dataset in memory (host tensors; Dataset::csr set, edges empty but for num_nodes).
Dataset generate_papers_scale(const PapersScaleOptions& options);

// Generates it and writes <folder>/processed/dataset.sgnn, which
// graph_io::load_dataset(folder) maps (the folder holds no other input).
// Returns the dataset written. IoError when the file cannot be written.
Dataset write_papers_scale(const PapersScaleOptions& options, const std::filesystem::path& folder);

}  // namespace sgnn::graph_io
