// bench_spmm_bf16: our bfloat16 CSR SpMM (issue 22) against our float32 SpMM
// and cuSPARSE on the same GPU in the same run: cusparseSpMM in float32
// (default algorithm and CSR_ALG2, the better of the two) and in bfloat16
// (A, B and C CUDA_R_16BF, CUDA_R_32F compute: its values are rounded to
// bfloat16 too, ours stay float32). Graphs: the Reddit- and products-scale
// presets of graph_io::synthetic_preset (the graphs the training benchmarks
// generate), GCN-normalised; widths 64, 128, 256 by default.
//
// Each of our kernels runs once untimed first (the CSR tile is timed and
// chosen there, ops/kernel_choices.hpp); times are the median of 20 calls
// after 3 warm-up calls (CUDA events on the library's stream), into
// preallocated outputs. Before timing, our bfloat16 result is checked
// against our float32 kernel on the same (widened) bfloat16 inputs: the
// relative difference must stay within one bfloat16 rounding (2^-8).
//
//   bench_spmm_bf16 [--quick] [--graph SUBSTRING] [--widths 64,128,256] [--markdown FILE]
// --quick: a 100K-node R-MAT instead of the presets (a smoke run).
#pragma GCC diagnostic ignored "-Wnull-dereference"  // CLI11's inlined string code, as in the other programs
#include <cusparse.h>

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "bench/support/bench_graphs.hpp"
#include "bench/support/bench_support.hpp"
#include "core/cuda_runtime.hpp"
#include "graph_io/generators/synthetic_presets.hpp"
#include "ops/cast.hpp"
#include "ops/choice_keys.hpp"
#include "ops/kernel_choices.hpp"
#include "ops/sparse_plan.hpp"
#include "ops/spmm_backend.hpp"
#include "ops/spmm_choice.hpp"

using namespace sgnn;

namespace {

constexpr Device kGpu = Device::cuda(0);

struct GraphCase {
  std::string name;
  std::function<Adjacency()> adjacency;
};

GraphCase preset_case(std::string name, std::string preset) {
  return {std::move(name), [preset = std::move(preset)] {
            graph_io::SyntheticOptions options = graph_io::synthetic_preset(preset);
            options.num_features = 0;  // only the graph is used
            return bench::gcn_adjacency(graph_io::generate_synthetic_dataset(options).edges, kGpu);
          }};
}

class Cusparse {
 public:
  Cusparse() {
    BENCH_CUSPARSE(cusparseCreate(&handle_));
    BENCH_CUSPARSE(cusparseSetStream(handle_, cuda::stream(kGpu)));
  }
  ~Cusparse() { cusparseDestroy(handle_); }
  cusparseHandle_t get() const { return handle_; }

 private:
  cusparseHandle_t handle_{};
};

cudaDataType cuda_type(DType dtype) { return dtype == DType::BFloat16 ? CUDA_R_16BF : CUDA_R_32F; }

// cusparseSpMM C = A·B with A's values, B and C all of `values`' dtype,
// float compute; `c` receives the result. Median ms.
double time_cusparse(const Cusparse& cs, const Adjacency& a, const Tensor& values, const Tensor& b, Tensor& c,
                     cusparseSpMMAlg_t algorithm) {
  const cudaDataType type = cuda_type(values.dtype());
  cusparseSpMatDescr_t matrix;
  BENCH_CUSPARSE(cusparseCreateCsr(&matrix, a.num_rows(), a.num_cols(), a.nnz(), a.csr.indptr.raw_data(),
                                   a.csr.indices.raw_data(), values.raw_data(), CUSPARSE_INDEX_32I,
                                   CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, type));
  cusparseDnMatDescr_t dense_b, dense_c;
  BENCH_CUSPARSE(cusparseCreateDnMat(&dense_b, b.size(0), b.size(1), b.size(1), b.raw_data(), type,
                                     CUSPARSE_ORDER_ROW));
  BENCH_CUSPARSE(cusparseCreateDnMat(&dense_c, c.size(0), c.size(1), c.size(1), c.raw_data(), type,
                                     CUSPARSE_ORDER_ROW));
  const float alpha = 1.0f, beta = 0.0f;
  std::size_t bytes = 0;
  BENCH_CUSPARSE(cusparseSpMM_bufferSize(cs.get(), CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                         &alpha, matrix, dense_b, &beta, dense_c, CUDA_R_32F, algorithm, &bytes));
  const Tensor workspace = Tensor::empty({static_cast<int64_t>(bytes / 4 + 1)}, DType::Float32, kGpu);
  auto call = [&] {
    BENCH_CUSPARSE(cusparseSpMM(cs.get(), CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha,
                                matrix, dense_b, &beta, dense_c, CUDA_R_32F, algorithm, workspace.raw_data()));
  };
  const double ms = bench::median_ms(call, 3, 20);
  cusparseDestroySpMat(matrix);
  cusparseDestroyDnMat(dense_b);
  cusparseDestroyDnMat(dense_c);
  return ms;
}

// Our CSR SpMM in b's dtype into `c` (the tile chosen at the first call). Median ms.
double time_ours(const Adjacency& a, const Tensor& b, Tensor& c) {
  auto call = [&] { ops::csr_spmm_into(a.csr, a.values, 1, b.size(1), b, c); };
  call();
  return bench::median_ms(call, 3, 20);
}

std::string tile_of(const Adjacency& a, const std::string& key) {
  const ops::KernelChoiceMap choices = ops::kernel_choices(a.csr);
  return choices.contains(key) ? choices.at(key) : "rule";
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"bfloat16 SpMM: sparsegnn's CUDA kernel against its float32 one and cuSPARSE"};
  bool quick = false;
  std::string markdown, graph_filter;
  std::vector<int64_t> widths{64, 128, 256};
  app.add_flag("--quick", quick, "a 100K-node R-MAT instead of the Reddit- and products-scale presets");
  app.add_option("--graph", graph_filter, "only the graphs whose name contains this");
  app.add_option("--widths", widths, "feature widths")->delimiter(',');
  app.add_option("--markdown", markdown, "also write the table to this file");
  CLI11_PARSE(app, argc, argv);
  try {
    require_available(kGpu);
    std::vector<GraphCase> graphs;
    if (quick) {
      graphs.push_back({"R-MAT 100K", [] { return bench::gcn_adjacency(bench::rmat_edges(100000, 1600000, 42), kGpu); }});
    } else {
      graphs.push_back(preset_case("reddit-scale R-MAT", "reddit-scale"));
      graphs.push_back(preset_case("products-scale R-MAT", "products-scale"));
    }
    std::erase_if(graphs, [&](const GraphCase& g) { return g.name.find(graph_filter) == std::string::npos; });
    SGNN_CHECK(!graphs.empty(), "bench_spmm_bf16: no graph name contains '", graph_filter, "'");
    Cusparse cs;
    std::ostringstream table;
    table << "Device: " << cuda::properties(kGpu).name << "\n\n"
          << "| graph | nodes | nnz | F | ours FP32 ms | ours BF16 ms | FP32 ÷ BF16 | cuSPARSE FP32 ms (best of 2) "
             "| cuSPARSE BF16 ms | cuSPARSE BF16 ÷ ours BF16 | ours BF16 GB/s (compulsory) | BF16 rel. diff "
             "| tiles FP32 / BF16 |\n"
          << "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n";
    for (const GraphCase& graph : graphs) {
      const Adjacency a = graph.adjacency();
      SGNN_CHECK(a.csr.indptr.dtype() == DType::Int32, "bench_spmm_bf16: graphs with ≥ 2^31 entries are not supported");
      std::fprintf(stderr, "%s: %lld nodes, %lld entries\n", graph.name.c_str(), static_cast<long long>(a.num_rows()),
                   static_cast<long long>(a.nnz()));
      const Tensor values_bf16 = ops::cast(a.values, DType::BFloat16);
      for (const int64_t features : widths) {
        const Tensor b32 = bench::random_matrix({a.num_cols(), features}, 1, kGpu);
        const Tensor b16 = ops::cast(b32, DType::BFloat16);
        Tensor c32 = Tensor::empty({a.num_rows(), features}, DType::Float32, kGpu);
        Tensor c16 = Tensor::full({a.num_rows(), features}, NAN, DType::BFloat16, kGpu);  // poisoned
        const double ours32 = time_ours(a, b32, c32);
        const double ours16 = time_ours(a, b16, c16);
        // The float32 kernel on the same bfloat16 inputs: ours must be its result rounded once.
        Tensor widened = Tensor::empty({a.num_rows(), features}, DType::Float32, kGpu);
        ops::csr_spmm_into(a.csr, a.values, 1, features, ops::cast(b16, DType::Float32), widened);
        const double difference = bench::relative_difference(ops::cast(c16, DType::Float32), widened);
        SGNN_CHECK(difference < 1.0 / 256, "bfloat16 SpMM differs from float32 on ", graph.name, " F=", features, ": ",
                   difference);
        Tensor reference32 = Tensor::empty({a.num_rows(), features}, DType::Float32, kGpu);
        const double cusparse32 = std::min(time_cusparse(cs, a, a.values, b32, reference32, CUSPARSE_SPMM_ALG_DEFAULT),
                                           time_cusparse(cs, a, a.values, b32, reference32, CUSPARSE_SPMM_CSR_ALG2));
        SGNN_CHECK(bench::relative_difference(c32, reference32) < 1e-4, "float32 SpMM differs from cuSPARSE");
        double cusparse16 = NAN;
        try {
          Tensor reference16 = Tensor::empty({a.num_rows(), features}, DType::BFloat16, kGpu);
          cusparse16 = time_cusparse(cs, a, values_bf16, b16, reference16, CUSPARSE_SPMM_ALG_DEFAULT);
          const double off = bench::relative_difference(ops::cast(reference16, DType::Float32), widened);
          SGNN_CHECK(off < 1e-2, "cuSPARSE bfloat16 SpMM differs from float32 by ", off);
        } catch (const CudaError& error) {
          std::fprintf(stderr, "cuSPARSE bfloat16: %s\n", error.what());
        }
        const double compulsory = 4.0 * static_cast<double>(a.num_rows() + 1) + 8.0 * static_cast<double>(a.nnz()) +
                                  2.0 * static_cast<double>(features) * static_cast<double>(a.num_cols() + a.num_rows());
        char line[640];
        std::snprintf(line, sizeof line,
                      "| %s | %lld | %lld | %lld | %.3f | %.3f | %.2f | %.3f | %s | %s | %.0f | %.1e | %s / %s |\n",
                      graph.name.c_str(), static_cast<long long>(a.num_rows()), static_cast<long long>(a.nnz()),
                      static_cast<long long>(features), ours32, ours16, ours32 / ours16, cusparse32,
                      std::isnan(cusparse16) ? "–" : std::to_string(cusparse16).substr(0, 6).c_str(),
                      std::isnan(cusparse16) ? "–" : std::to_string(cusparse16 / ours16).substr(0, 4).c_str(),
                      compulsory / (ours16 * 1e6), difference, tile_of(a, ops::spmm_choice_key(1, features)).c_str(),
                      tile_of(a, ops::spmm_choice_key(1, features, DType::BFloat16)).c_str());
        std::fprintf(stderr, "%s", line);
        table << line;
      }
    }
    std::printf("%s", table.str().c_str());
    if (!markdown.empty()) std::ofstream(markdown) << table.str();
  } catch (const Error& error) {
    std::fprintf(stderr, "bench_spmm_bf16: %s\n", error.what());
    return 1;
  }
  return 0;
}
