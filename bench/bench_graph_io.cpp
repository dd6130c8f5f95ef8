// bench_graph_io: how fast a large graph gets from disk to a prepared adjacency.
//
//   read      edge.csv of an R-MAT graph (OGB layout, plain text, in the page
//             cache after writing it) with read_ogb_dataset and as a generic
//             edge list with read_edge_list: MB/s of text parsed
//   prepare   prepare_adjacency with the GCN options (symmetrise, self loops,
//             D^-1/2 (A+I) D^-1/2, transpose, row orders) on the host
//             (Thrust/OpenMP) and, when a GPU is visible, on the device
//             (Thrust/CUDA, synchronised): Medges/s of input edges
//   cache     storing and loading the adjacency cache (to the host, and to the
//             GPU when one is visible), each against rebuilding on the same
//             device: the fastest read of edge.csv + prepare (the cache must
//             be >= 10x faster)
//
//   bench_graph_io --edges 100000000 [--nodes N] [--dir /tmp] [--runs 3] [--device-runs 20] [--no-host-prepare]
// Prints a markdown table (median of the timed runs after one warm-up run).
// GCC 12 reports -Wnull-dereference inside CLI11's inlined string code (a
// false positive the system-header exemption misses).
#pragma GCC diagnostic ignored "-Wnull-dereference"
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "core/memory.hpp"
#include "graph_io/adjacency_cache.hpp"
#include "graph_io/generators/generators.hpp"
#include "graph_io/graph.hpp"
#include "graph_io/readers/ogb_reader.hpp"
#include "graph_io/ogb_writer.hpp"
#include "graph_io/readers/readers.hpp"
#include "graph_io/section_file.hpp"

namespace {

using namespace sgnn;
using namespace sgnn::graph_io;

// Median wall milliseconds of `runs` calls after one warm-up call.
double median_ms(int runs, const std::function<void()>& body) {
  body();
  std::vector<double> times;
  for (int r = 0; r < runs; ++r) {
    const auto start = std::chrono::steady_clock::now();
    body();
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

struct Row {
  std::string name;
  double ms;
  std::string rate;
  std::string note;
};

std::string rate(double amount, double ms, const char* unit) {
  char text[64];
  std::snprintf(text, sizeof(text), "%.1f %s", amount / (ms / 1000.0), unit);
  return text;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Graph loading benchmark: parse MB/s, CSR preparation host vs device, cache load vs rebuild"};
  int64_t edges = 10'000'000;
  int64_t nodes = 0;
  std::string dir = std::filesystem::temp_directory_path().string();
  int runs = 3;
  int device_runs = 20;
  bool host_prepare = true;
  app.add_option("--edges", edges, "R-MAT edges to generate (100000000 on the GPU machine)")->check(CLI::PositiveNumber);
  app.add_option("--nodes", nodes, "nodes (default edges / 16)");
  app.add_option("--dir", dir, "scratch folder for the generated files");
  app.add_option("--runs", runs, "timed runs of the host steps")->check(CLI::PositiveNumber);
  app.add_option("--device-runs", device_runs, "timed runs of the device preparation")->check(CLI::PositiveNumber);
  app.add_flag("!--no-host-prepare", host_prepare, "skip the host preparation (slow at 1e8 edges)");
  CLI11_PARSE(app, argc, argv);
  if (nodes <= 0) nodes = std::max<int64_t>(1, edges / 16);

  try {
    const std::filesystem::path folder = std::filesystem::path(dir) / "sgnn-bench-graph-io";
    std::filesystem::remove_all(folder);
    Dataset generated;
    generated.edges = generate_rmat({nodes, edges, 0.57, 0.19, 0.19, 1});
    write_ogb_dataset(generated, folder / "rmat", {.gzip = false});
    const std::filesystem::path edge_file = folder / "rmat" / "raw" / "edge.csv";
    const double megabytes = static_cast<double>(std::filesystem::file_size(edge_file)) / 1e6;
    std::vector<Row> rows;

    Dataset dataset;
    const double ogb_ms = median_ms(runs, [&] { dataset = read_ogb_dataset(folder / "rmat"); });
    rows.push_back({"read_ogb_dataset (edge.csv)", ogb_ms, rate(megabytes, ogb_ms, "MB/s"), "page cache warm"});
    const double list_ms = median_ms(runs, [&] { (void)read_edge_list(edge_file, {}); });
    rows.push_back({"read_edge_list (same file)", list_ms, rate(megabytes, list_ms, "MB/s"), "page cache warm"});

    const GraphOptions options = gcn_graph_options();
    const double read_ms = std::min(ogb_ms, list_ms);
    CachedAdjacency host_result;  // what the cache stores
    host_result.weighted_edges = dataset.edges.weight.defined();
    host_result.normalization = options.prepare.normalization;
    const double e = static_cast<double>(edges);
    double host_rebuild_ms = 0;  // read + prepare on the host; 0 when skipped
    if (host_prepare) {
      const double host_ms = median_ms(runs, [&] { host_result.adjacency = prepare_adjacency(dataset.edges, options.prepare); });
      rows.push_back({"prepare GCN, host (Thrust/OpenMP)", host_ms, rate(e / 1e6, host_ms, "Medges/s"),
                      std::to_string(host_result.adjacency.nnz()) + " nnz"});
      host_rebuild_ms = read_ms + host_ms;
    }
    double device_rebuild_ms = 0;  // read + upload + prepare on the GPU; 0 without a GPU
    const bool gpu = cuda_device_count() > 0;
    if (gpu) {
      PrepareOptions device_options = options.prepare;
      device_options.device = Device::cuda(0);
      const EdgeList on_device{dataset.edges.num_nodes, dataset.edges.source.to(device_options.device),
                               dataset.edges.target.to(device_options.device), {}};
      Adjacency device_result;
      const double device_ms = median_ms(device_runs, [&] {
        device_result = prepare_adjacency(on_device, device_options);
        memory::synchronize(device_options.device);
      });
      rows.push_back({"prepare GCN, device (Thrust/CUDA)", device_ms, rate(e / 1e6, device_ms, "Medges/s"),
                      "edges already on the GPU; target < 1000 ms at 1e8"});
      const double from_host_ms = median_ms(device_runs, [&] {
        device_result = prepare_adjacency(dataset.edges, device_options);
        memory::synchronize(device_options.device);
      });
      rows.push_back({"prepare GCN, device, from host edges", from_host_ms, rate(e / 1e6, from_host_ms, "Medges/s"),
                      "upload of the parsed edges included"});
      device_rebuild_ms = read_ms + from_host_ms;
      if (!host_result.adjacency.csr.indptr.defined()) host_result.adjacency = device_result;
    }
    if (!host_result.adjacency.csr.indptr.defined()) {
      throw InvalidArgument("--no-host-prepare needs a GPU (nothing else prepares the adjacency)");
    }

    const uint64_t fingerprint = adjacency_fingerprint(dataset.edges, options);
    const std::filesystem::path cache = adjacency_cache_path(folder, fingerprint);
    const double store_ms = median_ms(runs, [&] { store_adjacency_cache(cache, fingerprint, host_result); });
    const double cache_mb = static_cast<double>(std::filesystem::file_size(cache)) / 1e6;
    rows.push_back({"store adjacency cache (fsync)", store_ms, rate(cache_mb, store_ms, "MB/s"),
                    "pattern only: values, transpose, row orders derived on load"});
    const double sections_ms =
        median_ms(runs, [&] { (void)read_section_file(cache, "adjacency-cache", kAdjacencyCacheVersion); });
    rows.push_back({"read cache sections (CRC checked)", sections_ms, rate(cache_mb, sections_ms, "MB/s"),
                    "parallel pread + CRC per chunk"});
    // Cache load on `device` against read + prepare on that device ("-" when that rebuild was skipped).
    auto load_row = [&](const char* name, Device device, double rebuild_ms) {
      std::string problem;
      const double load_ms = median_ms(runs, [&] {
        const auto cached = load_adjacency_cache(cache, fingerprint, problem, device);
        if (!cached) throw IoError(cache.string(), 0, problem);
        memory::synchronize(device);
      });
      char note[128];
      if (rebuild_ms > 0) {
        std::snprintf(note, sizeof(note), "%.1fx faster than read + prepare (%.1f ms)", rebuild_ms / load_ms, rebuild_ms);
      } else {
        std::snprintf(note, sizeof(note), "read + prepare on this device not timed");
      }
      rows.push_back({name, load_ms, rate(cache_mb, load_ms, "MB/s"), note});
    };
    // Deriving on the host sorts every entry once more (seconds at 1e8): skipped with --no-host-prepare.
    if (host_prepare) load_row("load adjacency cache, host (checked, derived on the host)", Device::cpu(), host_rebuild_ms);
    if (gpu) load_row("load adjacency cache, GPU (checked, derived on the GPU)", Device::cuda(0), device_rebuild_ms);

    std::printf("\nbench_graph_io: R-MAT %lld nodes, %lld edges, edge.csv %.1f MB, cache %.1f MB, %d host runs, "
                "%d device runs (median after 1 warm-up)\n\n",
                static_cast<long long>(nodes), static_cast<long long>(edges), megabytes, cache_mb, runs, device_runs);
    std::printf("| step | median ms | rate | note |\n|---|---|---|---|\n");
    for (const Row& row : rows) std::printf("| %s | %.1f | %s | %s |\n", row.name.c_str(), row.ms, row.rate.c_str(), row.note.c_str());
    std::filesystem::remove_all(folder);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "bench_graph_io: %s\n", error.what());
    return 1;
  }
  return 0;
}
