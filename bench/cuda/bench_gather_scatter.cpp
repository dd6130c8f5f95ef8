// bench_gather_scatter: gather_rows, scatter and segment_reduce on the GPU
// (ops/gather_scatter.hpp) over graphs of a few shapes (R-MAT, a Chung-Lu
// power law with hubs, a shuffled SBM, one hub row of a million entries),
// at widths 16-256 in float32 and bfloat16. The messages are those of a
// graph A: x [N, F] on the nodes, m [nnz, F] in A's edge order.
//   gather             gather_rows(x, edge_sources(A))         PyG: x[edge_index[0]]
//   segment sum/mean/max  segment_reduce(m, A.csr.indptr, ·)   PyG: segment(m, ptr); g-SpMM's copy_e
//   scatter sum dst    scatter(m, edge_destinations(A), N, ·)  PyG: scatter(m, edge_index[1], ...)
//   scatter sum src    scatter(m, edge_sources(A), N, sum): an unsorted index (gather's backward)
//   scatter mean/max dst  the sorted path (the index's sort is cached by the first, untimed, call)
// The path column says which kernel ran: atomic (float32 Sum scatter),
// sorted (scatter's other cases) or segments.
// Every case is validated against the CPU backend before it is timed, on a
// prefix of at most 2^20 edges (the same kernels on a problem the host
// checks quickly); times are the median of 25 runs after 5 warm-up runs,
// measured with CUDA events on the library's stream (bench::median_ms).
// Columns: ms; GB/s of the op's compulsory traffic (the index or offsets,
// each input row read once, each output written once: perfect reuse of
// gathered rows, as bench_sparse counts); that rate as a fraction of a
// device-to-device cudaMemcpyAsync's, measured in the same run (the
// practical roofline of the device's memory).
//
//   bench_gather_scatter [--quick] [--graph SUBSTRING] [--widths 16,64,256] [--dtypes float32,bfloat16]
//                        [--markdown FILE] [--json FILE] [--export DIR]
// --export DIR writes each graph's CSR (DIR/<k>.indptr.npy, DIR/<k>.indices.npy)
// and DIR/graphs.tsv ("k<TAB>name<TAB>nodes<TAB>nnz"), so that
// bench/compare_scatter_pyg.py times PyTorch and PyG on the same graphs;
// --json FILE writes the rows, one JSON object a line.
// GCC 12 reports -Wnull-dereference inside CLI11's inlined string code (a
// false positive in the library's split()), as in the other programs.
#pragma GCC diagnostic ignored "-Wnull-dereference"
#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include "bench/support/bench_graphs.hpp"
#include "bench/support/bench_suite.hpp"
#include "bench/support/bench_support.hpp"
#include "core/cuda_runtime.hpp"
#include "ops/cast.hpp"
#include "ops/edge_endpoints.hpp"
#include "ops/gather_scatter.hpp"
#include "training/output/npy_header.hpp"

using namespace sgnn;
using ops::ReduceKind;

namespace {

constexpr Device kGpu = Device::cuda(0);
constexpr int kWarmup = 5;
constexpr int kRuns = 25;
constexpr int64_t kCheckedEdges = int64_t{1} << 20;

struct GraphCase {
  std::string name;
  std::function<Adjacency()> adjacency;  // built when its turn comes: one large graph at a time
};

std::vector<GraphCase> graph_cases(bool quick) {
  std::vector<GraphCase> graphs;
  const int64_t rmat_nodes = quick ? 100000 : 1000000;
  graphs.push_back({"R-MAT " + bench::suite_detail::thousands(rmat_nodes) + " nodes, degree 16 drawn",
                    [=] { return bench::gcn_adjacency(bench::rmat_edges(rmat_nodes, 8 * rmat_nodes, 42), kGpu); }});
  bool chung_lu = false, sbm = false;
  for (bench::SuiteCase& c : bench::broad_suite(quick)) {
    const bool wanted = (c.family == "chung-lu" && !chung_lu) || (c.family == "sbm" && !sbm) || c.family == "hub";
    if (!wanted) continue;
    chung_lu |= c.family == "chung-lu";
    sbm |= c.family == "sbm";
    graphs.push_back({c.name, [prepare = std::move(c.prepare)] { return prepare(kGpu, false); }});
  }
  return graphs;
}

struct Row {
  std::string graph;
  int64_t nodes, nnz;
  std::string op, path, dtype;
  int64_t features;
  double ms, gbps, fraction;
};

double median_ms(const std::function<void()>& call) { return bench::median_ms(call, kWarmup, kRuns, kGpu); }

// GB/s of a device-to-device copy (read + write), the roofline the table divides by.
double copy_gbps() {
  const int64_t elements = int64_t{1} << 28;  // 1 GiB of floats
  const Tensor source = Tensor::zeros({elements}, DType::Float32, kGpu);
  Tensor destination = Tensor::empty({elements}, DType::Float32, kGpu);
  const double ms = median_ms([&] {
    SGNN_CUDA_CHECK(cudaMemcpyAsync(destination.raw_data(), source.raw_data(), destination.nbytes(),
                                    cudaMemcpyDeviceToDevice, cuda::stream(kGpu)));
  });
  return 2.0 * static_cast<double>(destination.nbytes()) / ms / 1e6;
}

void require_close(const std::string& what, const Tensor& got, const Tensor& expected, double tolerance) {
  const Tensor got32 = ops::cast(got, DType::Float32);
  const Tensor expected32 = ops::cast(expected, DType::Float32);
  const double difference = bench::relative_difference(got32, expected32);
  if (!(difference <= tolerance)) {
    throw Error(detail::concat("bench_gather_scatter: ", what, " differs from the CPU backend (relative error ",
                               difference, " > ", tolerance, "); not timing a wrong kernel"));
  }
}

Tensor cpu(const Tensor& tensor) { return tensor.to(Device::cpu()); }

class Bench {
 public:
  Bench(const std::string& graph, const Adjacency& a, double roofline) : graph_(graph), a_(a), roofline_(roofline) {
    // The longest prefix of rows whose entries stay within kCheckedEdges.
    for (int64_t length : a.csr.row_lengths()) {
      if (checked_edges_ + length > kCheckedEdges) break;
      checked_edges_ += length;
      ++checked_rows_;
    }
  }

  void run(DType dtype, int64_t features, std::vector<Row>& rows) {
    const int64_t n = a_.num_rows(), nnz = a_.nnz();
    const double element = static_cast<double>(dtype_size(dtype));
    const double node_bytes = static_cast<double>(n * features) * element;
    const double edge_bytes = static_cast<double>(nnz * features) * element;
    const double index_bytes = 4.0 * static_cast<double>(nnz);
    const double offset_bytes = 4.0 * static_cast<double>(n + 1);
    const double argument_bytes = 4.0 * static_cast<double>(n * features);
    const double tolerance = dtype == DType::Float32 ? 1e-5 : 1e-2;
    const Tensor x = ops::cast(bench::random_matrix({n, features}, 1, kGpu), dtype);
    const Tensor m = ops::cast(bench::random_matrix({nnz, features}, 2, kGpu), dtype);
    const Tensor sources = ops::edge_sources(a_);
    const Tensor destinations = ops::edge_destinations(a_);
    const Tensor indptr = a_.csr.indptr;
    const std::string type(dtype_name(dtype));
    const auto add = [&](const std::string& op, const std::string& path, double ms, double bytes) {
      const double gbps = bytes / ms / 1e6;
      rows.push_back({graph_, n, nnz, op, path, type, features, ms, gbps, gbps / roofline_});
      std::fprintf(stderr, "%s %s %s F=%lld: %.4f ms, %.0f GB/s\n", graph_.c_str(), op.c_str(), type.c_str(),
                   static_cast<long long>(features), ms, gbps);
    };

    // gather: the first checked_edges_ rows of the output against the CPU's.
    const Tensor gathered = ops::gather_rows(x, sources);
    require_close("gather", gathered.narrow_rows(0, checked_edges_),
                  ops::gather_rows(cpu(x), cpu(sources.narrow_rows(0, checked_edges_))), 0.0);
    add("gather", "rows", median_ms([&] { (void)ops::gather_rows(x, sources); }),
        index_bytes + node_bytes + edge_bytes);

    // segments: the first checked_rows_ outputs depend on the checked edges only.
    const Tensor checked_offsets = cpu(indptr.narrow_rows(0, checked_rows_ + 1));
    const Tensor checked_m = cpu(m.narrow_rows(0, checked_edges_));
    for (ReduceKind reduce : {ReduceKind::Sum, ReduceKind::Mean, ReduceKind::Max}) {
      const std::string op = std::string("segment ") + std::string(ops::reduce_kind_name(reduce));
      const Tensor out = ops::segment_reduce(m, indptr, reduce);
      require_close(op, out.narrow_rows(0, checked_rows_), ops::segment_reduce(checked_m, checked_offsets, reduce),
                    ops::reduce_keeps_argument(reduce) ? 0.0 : tolerance);
      add(op, "segments", median_ms([&] { (void)ops::segment_reduce(m, indptr, reduce); }),
          offset_bytes + edge_bytes + node_bytes + (ops::reduce_keeps_argument(reduce) ? argument_bytes : 0.0));
    }

    // scatter: the GPU on the checked prefix of the edges against the CPU.
    const auto scatter_case = [&](const char* name, const Tensor& index, ReduceKind reduce) {
      const std::string op = std::string("scatter ") + std::string(ops::reduce_kind_name(reduce)) + " " + name;
      const Tensor prefix_index = index.narrow_rows(0, checked_edges_);
      require_close(op, ops::scatter(m.narrow_rows(0, checked_edges_), prefix_index, n, reduce),
                    ops::scatter(checked_m, cpu(prefix_index), n, reduce),
                    ops::reduce_keeps_argument(reduce) ? 0.0 : tolerance);
      const bool atomic = reduce == ReduceKind::Sum && dtype == DType::Float32;
      (void)ops::scatter(m, index, n, reduce);  // sorts the index once (the sorted path), untimed
      const double sorted_bytes = atomic ? 0.0 : offset_bytes + (ops::reduce_keeps_argument(reduce) ? argument_bytes : 0.0);
      add(op, atomic ? "atomic" : "sorted", median_ms([&] { (void)ops::scatter(m, index, n, reduce); }),
          index_bytes + edge_bytes + node_bytes + sorted_bytes);
    };
    scatter_case("dst", destinations, ReduceKind::Sum);
    scatter_case("src", sources, ReduceKind::Sum);
    scatter_case("dst", destinations, ReduceKind::Mean);
    scatter_case("dst", destinations, ReduceKind::Max);
  }

 private:
  std::string graph_;
  const Adjacency& a_;
  double roofline_;
  int64_t checked_rows_ = 0;
  int64_t checked_edges_ = 0;
};

void print(const std::vector<Row>& rows, std::ostream& out, bool markdown) {
  char line[512];
  if (markdown) {
    out << "| graph | nodes | nnz | op | path | dtype | F | ms | GB/s | of copy bandwidth |\n"
           "|---|---:|---:|---|---|---|---:|---:|---:|---:|\n";
  } else {
    std::snprintf(line, sizeof line, "%-48s %-22s %-8s %-8s %5s %10s %8s %8s\n", "graph", "op", "path", "dtype", "F",
                  "ms", "GB/s", "of copy");
    out << line;
  }
  for (const Row& r : rows) {
    if (markdown) {
      std::snprintf(line, sizeof line, "| %s | %lld | %lld | %s | %s | %s | %lld | %.4f | %.0f | %.2f |\n",
                    r.graph.c_str(), static_cast<long long>(r.nodes), static_cast<long long>(r.nnz), r.op.c_str(),
                    r.path.c_str(), r.dtype.c_str(), static_cast<long long>(r.features), r.ms, r.gbps, r.fraction);
    } else {
      std::snprintf(line, sizeof line, "%-48.48s %-22s %-8s %-8s %5lld %10.4f %8.0f %8.2f\n", r.graph.c_str(),
                    r.op.c_str(), r.path.c_str(), r.dtype.c_str(), static_cast<long long>(r.features), r.ms, r.gbps,
                    r.fraction);
    }
    out << line;
  }
}

void write_json(const std::vector<Row>& rows, const std::string& path) {
  std::ofstream file(path);
  for (const Row& r : rows) {
    file << "{\"graph\": \"" << r.graph << "\", \"nodes\": " << r.nodes << ", \"nnz\": " << r.nnz << ", \"op\": \""
         << r.op << "\", \"path\": \"" << r.path << "\", \"dtype\": \"" << r.dtype << "\", \"features\": "
         << r.features << ", \"ms\": " << r.ms << ", \"gbps\": " << r.gbps << ", \"fraction\": " << r.fraction
         << "}\n";
  }
  if (!file) throw IoError(path, 0, "writing failed");
}

template <typename T>
void write_npy(const std::filesystem::path& path, const Tensor& tensor) {
  const std::vector<T> values = tensor.to_vector<T>();
  std::ofstream file(path, std::ios::binary);
  file << training::npy_header(sizeof(T) == 8 ? "'<i8'" : "'<i4'", tensor.numel());
  file.write(reinterpret_cast<const char*>(values.data()), static_cast<std::streamsize>(values.size() * sizeof(T)));
  if (!file) throw IoError(path.string(), 0, "writing failed (disk full?)");
}

void export_graph(const std::filesystem::path& folder, std::size_t k, const std::string& name, const Adjacency& a) {
  std::filesystem::create_directories(folder);
  const std::string stem = std::to_string(k);
  if (a.csr.indptr.dtype() == DType::Int64) write_npy<int64_t>(folder / (stem + ".indptr.npy"), a.csr.indptr);
  else write_npy<int32_t>(folder / (stem + ".indptr.npy"), a.csr.indptr);
  write_npy<int32_t>(folder / (stem + ".indices.npy"), a.csr.indices);
  std::ofstream list(folder / "graphs.tsv", std::ios::app);
  list << k << '\t' << name << '\t' << a.num_rows() << '\t' << a.nnz() << '\n';
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"bench_gather_scatter: gather_rows, scatter and segment_reduce on the GPU"};
  bool quick = false;
  std::string markdown, json, export_folder, graph_filter;
  std::vector<int64_t> widths{16, 64, 256};
  std::vector<std::string> dtypes{"float32", "bfloat16"};
  app.add_flag("--quick", quick, "small graphs");
  app.add_option("--graph", graph_filter, "only the graphs whose name contains this");
  app.add_option("--widths", widths, "feature widths (default 16,64,256)")->delimiter(',');
  app.add_option("--dtypes", dtypes, "float32, bfloat16 or both (default)")
      ->delimiter(',')
      ->check(CLI::IsMember({"float32", "bfloat16"}));
  app.add_option("--markdown", markdown, "also write the table as Markdown to this file");
  app.add_option("--json", json, "also write the rows as JSON lines to this file");
  app.add_option("--export", export_folder, "write each graph's CSR as .npy files here (bench/compare_scatter_pyg.py)");
  CLI11_PARSE(app, argc, argv);
  try {
    require_available(kGpu);
    std::vector<GraphCase> graphs = graph_cases(quick);
    std::erase_if(graphs, [&](const GraphCase& g) { return g.name.find(graph_filter) == std::string::npos; });
    SGNN_CHECK(!graphs.empty(), "bench_gather_scatter: no graph name contains '", graph_filter, "'");
    if (!export_folder.empty()) std::filesystem::remove(std::filesystem::path(export_folder) / "graphs.tsv");
    const double roofline = copy_gbps();
    std::vector<Row> rows;
    for (std::size_t k = 0; k < graphs.size(); ++k) {
      const Adjacency a = graphs[k].adjacency();
      std::fprintf(stderr, "%s: %lld nodes, %lld entries\n", graphs[k].name.c_str(),
                   static_cast<long long>(a.num_rows()), static_cast<long long>(a.nnz()));
      if (!export_folder.empty()) export_graph(export_folder, k, graphs[k].name, a);
      Bench bench(graphs[k].name, a, roofline);
      for (const std::string& type : dtypes) {
        for (int64_t features : widths) bench.run(type == "float32" ? DType::Float32 : DType::BFloat16, features, rows);
      }
    }
    const std::string heading = detail::concat(cuda::properties(kGpu).name, ", median of ", kRuns, " runs after ",
                                               kWarmup, " warm-up runs; device-to-device copy ",
                                               static_cast<int64_t>(roofline), " GB/s");
    std::cout << heading << "\n";
    print(rows, std::cout, false);
    if (!markdown.empty()) {
      std::ofstream file(markdown);
      file << heading << "\n\n";
      print(rows, file, true);
    }
    if (!json.empty()) write_json(rows, json);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "%s\n", error.what());
    return 1;
  }
  return 0;
}
