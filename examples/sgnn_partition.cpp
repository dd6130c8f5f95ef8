// sgnn_partition: partitions a dataset once for multi-process training and
// writes one file per rank, so that each rank of train_gcn_distributed reads
// only its rows, its halo plan and its features (distributed/partition_files.hpp).
//
//   sgnn_partition --dataset data/products-scale --parts 4 --out parts/products-4 [--reorder rcm]
//   mpirun -np 4 train_gcn_distributed --partitions parts/products-4 --device cuda
//
// Rows are split into contiguous ranges of about equal non-zeros + rows of
// the GCN-normalised adjacency (A + Aᵀ + I); --reorder renumbers the nodes
// first (graph_io/reordering.hpp), which for banded or clustered graphs
// shrinks the halo. The files serve GCN and GAT alike (GAT uses the pattern).
// GCC 12 reports -Wnull-dereference inside CLI11's inlined string code (a
// false positive the system-header exemption misses).
#pragma GCC diagnostic ignored "-Wnull-dereference"
#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>

#include "distributed/partition_files.hpp"
#include "graph_io/load_dataset.hpp"

using namespace sgnn;

int main(int argc, char** argv) {
  CLI::App app{"Partition a dataset into per-rank files for multi-process training (train_gcn_distributed)"};
  std::string dataset_name;
  int parts = 2;
  std::string out;
  std::string reorder = "none";
  std::string cache_dir;
  app.add_option("--dataset", dataset_name, "dataset name or path (as train_gcn)")->required();
  app.add_option("--parts", parts, "number of ranks the run will have")->required()->check(CLI::Range(1, 65536));
  app.add_option("--out", out, "folder for the files part-<r>-of-<N>.sgnn (created)")->required();
  app.add_option("--reorder", reorder, "renumber the nodes first: none, rcm or degree (default none)")
      ->check(CLI::IsMember({"none", "rcm", "degree"}));
  app.add_option("--cache", cache_dir, "directory of the prepared-adjacency cache (default: no cache)");
  CLI11_PARSE(app, argc, argv);
  try {
    const auto started = std::chrono::steady_clock::now();
    const graph_io::Dataset dataset = graph_io::load_dataset(dataset_name);
    graph_io::GraphOptions options = graph_io::gcn_graph_options();
    options.reordering = graph_io::parse_reordering(reorder);
    const graph_io::Graph graph = graph_io::make_graph(dataset, options, Device::cpu(), cache_dir);
    const uint64_t id = distributed::write_partition_files(out, graph, parts, {dataset.name, reorder, 0});
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    std::printf("%s: %lld nodes, %lld adjacency entries -> %d parts in %s (partition id %016llx, %.1f s)\n",
                dataset.name.c_str(), static_cast<long long>(graph.num_nodes),
                static_cast<long long>(graph.adjacency.nnz()), parts, out.c_str(),
                static_cast<unsigned long long>(id), seconds);
    std::printf("%6s %12s %14s %12s\n", "rank", "rows", "entries", "halo rows");
    for (int rank = 0; rank < parts; ++rank) {
      const distributed::RankFile file = distributed::read_rank_file(out, rank, parts);
      const distributed::RankBlock& block = file.shard.partition.block;
      std::printf("%6d %12lld %14lld %12lld\n", rank, static_cast<long long>(block.num_rows()),
                  static_cast<long long>(block.adjacency.nnz()), static_cast<long long>(block.num_halo()));
    }
    return 0;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "error: %s\n", error.what());
    return 1;
  }
}
