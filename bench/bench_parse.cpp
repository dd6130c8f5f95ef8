// bench_parse: CSV parse throughput of the two large files of an OGB raw-layout
// dataset, edge.csv and node-feat.csv (plain text, in the page cache: the first
// untimed read puts it there), on 1 thread and on all OpenMP threads
// (OMP_NUM_THREADS, else every core). MB/s = file bytes / wall time of the
// whole read (file to tensor); MB per CPU-s = file bytes / CPU time (user +
// system, all threads), the figure to trust on a machine shared with others.
// Before timing, the N-thread result is checked equal to the 1-thread one and,
// for a generated dataset, to what was written.
//
//   bench_parse [--nodes 200000] [--edges 20000000] [--features 128] [--dir /tmp] [--runs 3]
//   bench_parse --dataset DIR [--runs 3]   (an existing folder with plain .csv files,
//                                           e.g. from sgnn_gen --preset reddit-scale --no-gzip)
// Prints a markdown table (median of the timed runs after one warm-up run).
// GCC 12 reports -Wnull-dereference inside CLI11's inlined string code (a
// false positive the system-header exemption misses).
#pragma GCC diagnostic ignored "-Wnull-dereference"
#include <CLI/CLI.hpp>
#include <omp.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "graph_io/readers/ogb_reader.hpp"
#include "graph_io/ogb_writer.hpp"
#include "graph_io/generators/synthetic_dataset.hpp"

namespace {

using namespace sgnn;
using namespace sgnn::graph_io;
namespace fs = std::filesystem;

// CPU seconds (user + system) this process has used.
double cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

struct Timing {
  double wall_ms;     // median
  double cpu_ms;      // median CPU time of the same runs, all threads together
};

// Median wall and CPU milliseconds of `runs` calls after one warm-up call, on `threads` OpenMP threads.
Timing median_ms(int threads, int runs, const std::function<void()>& body) {
  omp_set_num_threads(threads);
  body();
  std::vector<double> walls;
  std::vector<double> cpus;
  for (int r = 0; r < runs; ++r) {
    const auto start = std::chrono::steady_clock::now();
    const double cpu_start = cpu_seconds();
    body();
    cpus.push_back((cpu_seconds() - cpu_start) * 1000.0);
    walls.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(walls.begin(), walls.end());
  std::sort(cpus.begin(), cpus.end());
  return {walls[walls.size() / 2], cpus[cpus.size() / 2]};
}

bool same_bytes(const Tensor& a, const Tensor& b) {
  return a.shape() == b.shape() && a.dtype() == b.dtype() && std::memcmp(a.raw_data(), b.raw_data(), a.nbytes()) == 0;
}

// The node count of <raw>/num-node-list.csv (one integer).
int64_t read_node_count(const fs::path& raw) {
  std::ifstream in(raw / "num-node-list.csv");
  int64_t nodes = -1;
  if (!(in >> nodes) || nodes < 0) throw IoError((raw / "num-node-list.csv").string(), 1, "expected the node count");
  return nodes;
}

struct Case {
  std::string name;
  fs::path file;
  std::function<std::vector<Tensor>()> read;  // the tensors the file gives
  std::vector<Tensor> expected;               // what was written (empty: not known)
};

struct Row {
  std::string name;
  double megabytes;
  Timing one_thread;
  Timing all_threads;
};

Row measure(const Case& c, int threads, int runs) {
  omp_set_num_threads(1);
  const std::vector<Tensor> one = c.read();
  omp_set_num_threads(threads);
  const std::vector<Tensor> all = c.read();
  for (std::size_t k = 0; k < one.size(); ++k) {
    if (!same_bytes(one[k], all[k])) {
      throw InvalidArgument(c.name + ": the " + std::to_string(threads) + "-thread result differs from the 1-thread one");
    }
    if (!c.expected.empty() && !same_bytes(one[k], c.expected[k])) {
      throw InvalidArgument(c.name + ": the parsed values differ from those written");
    }
  }
  const double megabytes = static_cast<double>(fs::file_size(c.file)) / 1e6;
  const Timing one_timing = median_ms(1, runs, [&] { (void)c.read(); });
  const Timing all_timing = median_ms(threads, runs, [&] { (void)c.read(); });
  return {c.name, megabytes, one_timing, all_timing};
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"CSV parse throughput of edge.csv and node-feat.csv, 1 thread and all threads"};
  int64_t nodes = 200'000;
  int64_t edges = 20'000'000;
  int64_t features = 128;
  std::string dir = fs::temp_directory_path().string();
  std::string dataset_dir;
  int runs = 3;
  app.add_option("--nodes", nodes, "nodes of the generated graph (rows of node-feat.csv)")->check(CLI::PositiveNumber);
  app.add_option("--edges", edges, "R-MAT edges drawn (repeats and loops are removed before writing)")
      ->check(CLI::PositiveNumber);
  app.add_option("--features", features, "feature width (columns of node-feat.csv)")->check(CLI::PositiveNumber);
  app.add_option("--dir", dir, "scratch folder for the generated files");
  app.add_option("--dataset", dataset_dir, "read this OGB raw-layout folder (plain .csv) instead of generating one");
  app.add_option("--runs", runs, "timed runs per case")->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);

  try {
    const int threads = omp_get_max_threads();
    fs::path folder;
    Dataset generated;
    if (dataset_dir.empty()) {
      folder = fs::path(dir) / "sgnn-bench-parse";
      fs::remove_all(folder);
      generated = generate_synthetic_dataset(
          {.kind = SyntheticKind::Rmat, .num_nodes = nodes, .num_edges = edges, .num_features = features});
      write_ogb_dataset(generated, folder, {.gzip = false});
    } else {
      folder = dataset_dir;
    }
    const fs::path raw = fs::exists(folder / "raw") ? folder / "raw" : folder;
    const int64_t num_nodes = read_node_count(raw);
    std::vector<Case> cases;
    cases.push_back({"edge.csv", raw / "edge.csv", [&] {
                       EdgeList read = read_ogb_edges(raw / "edge.csv", num_nodes);
                       return std::vector<Tensor>{read.source, read.target};
                     },
                     {}});
    if (generated.edges.source.defined()) cases.back().expected = {generated.edges.source, generated.edges.target};
    if (fs::exists(raw / "node-feat.csv")) {
      cases.push_back({"node-feat.csv", raw / "node-feat.csv",
                       [&] { return std::vector<Tensor>{read_ogb_features(raw / "node-feat.csv", num_nodes)}; }, {}});
      if (generated.features.defined()) cases.back().expected = {generated.features};
    }
    std::vector<Row> rows;
    for (const Case& c : cases) rows.push_back(measure(c, threads, runs));

    std::printf("\nbench_parse: %s, %lld nodes, %d runs (median after 1 warm-up), page cache warm\n\n",
                dataset_dir.empty() ? "generated R-MAT" : dataset_dir.c_str(), static_cast<long long>(num_nodes), runs);
    // MB per CPU second: what a core does when it is not shared (a shared machine's wall times are not).
    std::printf("| case | bytes | 1-core MB/s | %d-core MB/s | speed-up | cores | MB per CPU-s, 1 thread "
                "| MB per CPU-s, %d threads |\n|---|---|---|---|---|---|---|---|\n",
                threads, threads);
    for (const Row& row : rows) {
      std::printf("| %s | %.0f | %.0f | %.0f | %.2fx | %d | %.0f | %.0f |\n", row.name.c_str(), row.megabytes * 1e6,
                  row.megabytes / (row.one_thread.wall_ms / 1000.0), row.megabytes / (row.all_threads.wall_ms / 1000.0),
                  row.one_thread.wall_ms / row.all_threads.wall_ms, threads,
                  row.megabytes / (row.one_thread.cpu_ms / 1000.0), row.megabytes / (row.all_threads.cpu_ms / 1000.0));
    }
    if (dataset_dir.empty()) fs::remove_all(folder);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "bench_parse: %s\n", error.what());
    return 1;
  }
  return 0;
}
