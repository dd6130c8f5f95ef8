// bench_sparse: our CUDA SpMM and SDDMM against cuSPARSE on the same GPU in
// the same run (cusparseSpMM with the default algorithm and CSR_ALG2;
// cusparseSDDMM after cusparseSDDMM_preprocess), on Cora- and Citeseer-sized
// graphs and R-MAT graphs, at feature widths 16..256. Every kernel is checked
// against cuSPARSE before it is timed; times are the median of ≥ 20 runs after
// warm-up, measured with CUDA events on the library's stream.
//
//   bench_sparse [--quick] [--markdown FILE]
#include <cusparse.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/cuda_runtime.hpp"
#include "graph_io/generators.hpp"
#include "graph_io/prepare.hpp"
#include "ops/sddmm_backend.hpp"
#include "ops/spmm_backend.hpp"

using namespace sgnn;

namespace {

#define CUSPARSE_CHECK(call)                                                                            \
  do {                                                                                                  \
    const cusparseStatus_t status_ = (call);                                                            \
    if (status_ != CUSPARSE_STATUS_SUCCESS) {                                                           \
      throw Error(detail::concat(#call, " failed: ", cusparseGetErrorString(status_), " (", __FILE__, \
                                 ":", __LINE__, ")"));                                                  \
    }                                                                                                   \
  } while (false)

constexpr Device kGpu = Device::cuda(0);

struct GraphCase {
  std::string name;
  int64_t nodes;
  int64_t edges;  // before symmetrisation
};

Tensor random_matrix(int64_t rows, int64_t cols, uint64_t seed) {
  std::mt19937_64 engine(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<float> values(static_cast<std::size_t>(rows * cols));
  for (float& v : values) v = uniform(engine);
  return Tensor::from_vector(values, {rows, cols}, kGpu);
}

double relative_difference(const Tensor& got, const Tensor& reference) {
  const std::vector<float> a = got.to_vector<float>();
  const std::vector<float> b = reference.to_vector<float>();
  double diff = 0.0, norm = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    diff += (double{a[i]} - double{b[i]}) * (double{a[i]} - double{b[i]});
    norm += double{b[i]} * double{b[i]};
  }
  return std::isfinite(diff) ? std::sqrt(diff / std::max(norm, 1e-30)) : std::numeric_limits<double>::infinity();
}

// Median milliseconds of `runs` timed calls after `warmup` untimed ones.
double median_ms(const std::function<void()>& call, int warmup, int runs) {
  cudaStream_t stream = cuda::stream(kGpu);
  for (int i = 0; i < warmup; ++i) call();
  cudaEvent_t start, stop;
  SGNN_CUDA_CHECK(cudaEventCreate(&start));
  SGNN_CUDA_CHECK(cudaEventCreate(&stop));
  std::vector<double> times;
  for (int i = 0; i < runs; ++i) {
    SGNN_CUDA_CHECK(cudaEventRecord(start, stream));
    call();
    SGNN_CUDA_CHECK(cudaEventRecord(stop, stream));
    SGNN_CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0.0f;
    SGNN_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    times.push_back(ms);
  }
  SGNN_CUDA_CHECK(cudaEventDestroy(start));
  SGNN_CUDA_CHECK(cudaEventDestroy(stop));
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

Adjacency make_graph(const GraphCase& graph) {
  graph_io::RmatOptions rmat;
  rmat.num_nodes = graph.nodes;
  rmat.num_edges = graph.edges;
  rmat.seed = 42;
  graph_io::PrepareOptions options;
  options.symmetrize = true;
  options.self_loops = graph_io::SelfLoops::Add;
  options.normalization = graph_io::Normalization::Symmetric;
  options.device = kGpu;
  return graph_io::prepare_adjacency(graph_io::generate_rmat(rmat), options);
}

struct Row {
  std::string graph, op;
  int64_t nodes, nnz, features;
  double ours, cusparse_default, cusparse_alg2;  // ms; alg2 NaN for SDDMM
  double error;
};

class Cusparse {
 public:
  Cusparse() { CUSPARSE_CHECK(cusparseCreate(&handle_)); CUSPARSE_CHECK(cusparseSetStream(handle_, cuda::stream(kGpu))); }
  ~Cusparse() { cusparseDestroy(handle_); }
  cusparseHandle_t get() const { return handle_; }

 private:
  cusparseHandle_t handle_{};
};

cusparseSpMatDescr_t csr_descriptor(const Adjacency& a, const Tensor& values) {
  cusparseSpMatDescr_t matrix;
  CUSPARSE_CHECK(cusparseCreateCsr(&matrix, a.num_rows(), a.num_cols(), a.nnz(), a.csr.indptr.raw_data(),
                                   a.csr.indices.raw_data(), values.raw_data(), CUSPARSE_INDEX_32I,
                                   CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
  return matrix;
}

cusparseDnMatDescr_t dense_descriptor(const Tensor& t) {
  cusparseDnMatDescr_t matrix;
  CUSPARSE_CHECK(cusparseCreateDnMat(&matrix, t.size(0), t.size(1), t.size(1), t.raw_data(), CUDA_R_32F,
                                     CUSPARSE_ORDER_ROW));
  return matrix;
}

double time_cusparse_spmm(const Cusparse& cs, const Adjacency& a, const Tensor& values, const Tensor& b,
                          const Tensor& ours, cusparseSpMMAlg_t algorithm, int warmup, int runs, double& error) {
  Tensor c = Tensor::zeros({a.num_rows(), b.size(1)}, DType::Float32, kGpu);
  cusparseSpMatDescr_t matrix = csr_descriptor(a, values);
  cusparseDnMatDescr_t dense_b = dense_descriptor(b);
  cusparseDnMatDescr_t dense_c = dense_descriptor(c);
  const float alpha = 1.0f, beta = 0.0f;
  std::size_t bytes = 0;
  CUSPARSE_CHECK(cusparseSpMM_bufferSize(cs.get(), CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                         &alpha, matrix, dense_b, &beta, dense_c, CUDA_R_32F, algorithm, &bytes));
  const Tensor workspace = Tensor::empty({static_cast<int64_t>(bytes / 4 + 1)}, DType::Float32, kGpu);
  auto call = [&] {
    CUSPARSE_CHECK(cusparseSpMM(cs.get(), CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha,
                                matrix, dense_b, &beta, dense_c, CUDA_R_32F, algorithm, workspace.raw_data()));
  };
  call();
  error = std::max(error, relative_difference(ours, c));
  const double ms = median_ms(call, warmup, runs);
  cusparseDestroySpMat(matrix);
  cusparseDestroyDnMat(dense_b);
  cusparseDestroyDnMat(dense_c);
  return ms;
}

double time_cusparse_sddmm(const Cusparse& cs, const Adjacency& a, const Tensor& x, const Tensor& y,
                           const Tensor& ours, int warmup, int runs, double& error) {
  Tensor out = Tensor::zeros({a.nnz()}, DType::Float32, kGpu);
  cusparseSpMatDescr_t matrix = csr_descriptor(a, out);
  cusparseDnMatDescr_t dense_x = dense_descriptor(x);
  cusparseDnMatDescr_t dense_y = dense_descriptor(y);  // used transposed: out = x · yᵀ on the pattern
  const float alpha = 1.0f, beta = 0.0f;
  std::size_t bytes = 0;
  CUSPARSE_CHECK(cusparseSDDMM_bufferSize(cs.get(), CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_TRANSPOSE,
                                          &alpha, dense_x, dense_y, &beta, matrix, CUDA_R_32F,
                                          CUSPARSE_SDDMM_ALG_DEFAULT, &bytes));
  const Tensor workspace = Tensor::empty({static_cast<int64_t>(bytes / 4 + 1)}, DType::Float32, kGpu);
  CUSPARSE_CHECK(cusparseSDDMM_preprocess(cs.get(), CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_TRANSPOSE,
                                          &alpha, dense_x, dense_y, &beta, matrix, CUDA_R_32F,
                                          CUSPARSE_SDDMM_ALG_DEFAULT, workspace.raw_data()));
  auto call = [&] {
    CUSPARSE_CHECK(cusparseSDDMM(cs.get(), CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_TRANSPOSE, &alpha,
                                 dense_x, dense_y, &beta, matrix, CUDA_R_32F, CUSPARSE_SDDMM_ALG_DEFAULT,
                                 workspace.raw_data()));
  };
  call();
  error = std::max(error, relative_difference(ours, out));
  const double ms = median_ms(call, warmup, runs);
  cusparseDestroySpMat(matrix);
  cusparseDestroyDnMat(dense_x);
  cusparseDestroyDnMat(dense_y);
  return ms;
}

std::string format_table(const std::vector<Row>& rows, const std::string& device) {
  std::ostringstream out;
  out << "Device: " << device << "\n\n";
  out << "| graph | nodes | nnz | op | F | ours ms | cuSPARSE default ms | cuSPARSE ALG2 ms | ours GFLOP/s | "
         "best cuSPARSE ÷ ours | max rel. diff |\n";
  out << "|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|\n";
  char line[512];
  for (const Row& r : rows) {
    const double best = std::isnan(r.cusparse_alg2) ? r.cusparse_default : std::min(r.cusparse_default, r.cusparse_alg2);
    const double gflops = 2.0 * static_cast<double>(r.nnz) * static_cast<double>(r.features) / (r.ours * 1e6);
    std::snprintf(line, sizeof line, "| %s | %lld | %lld | %s | %lld | %.4f | %.4f | %s | %.1f | %.2f | %.1e |\n",
                  r.graph.c_str(), static_cast<long long>(r.nodes), static_cast<long long>(r.nnz), r.op.c_str(),
                  static_cast<long long>(r.features), r.ours, r.cusparse_default,
                  std::isnan(r.cusparse_alg2) ? "–" : std::to_string(r.cusparse_alg2).substr(0, 7).c_str(), gflops,
                  best / r.ours, r.error);
    out << line;
  }
  return out.str();
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"SpMM and SDDMM: sparsegnn's CUDA kernels against cuSPARSE"};
  bool quick = false;
  std::string markdown;
  app.add_flag("--quick", quick, "small graphs, fewer runs");
  app.add_option("--markdown", markdown, "also write the table to this file");
  CLI11_PARSE(app, argc, argv);
  try {
    require_available(kGpu);
    std::vector<GraphCase> graphs = {{"cora-like R-MAT", 2708, 5278}, {"citeseer-like R-MAT", 3327, 4552}};
    if (quick) {
      graphs.push_back({"R-MAT 100K", 100000, 1600000});
    } else {
      graphs.push_back({"R-MAT 1M", 1000000, 16000000});
      graphs.push_back({"reddit-scale R-MAT", 232965, 55000000});
      graphs.push_back({"products-scale R-MAT", 2449029, 61000000});
    }
    const int warmup = 5;
    const int runs = quick ? 20 : 30;
    Cusparse cs;
    std::vector<Row> rows;
    for (const GraphCase& graph : graphs) {
      const Adjacency a = make_graph(graph);
      SGNN_CHECK(a.csr.indptr.dtype() == DType::Int32, "bench_sparse: graphs with ≥ 2^31 entries are not supported");
      std::fprintf(stderr, "%s: %lld nodes, %lld entries\n", graph.name.c_str(), static_cast<long long>(a.num_rows()),
                   static_cast<long long>(a.nnz()));
      for (int64_t features : {16, 32, 64, 128, 256}) {
        const Tensor b = random_matrix(a.num_cols(), features, 1);
        Tensor c = Tensor::empty({a.num_rows(), features}, DType::Float32, kGpu);
        auto ours_spmm = [&] { ops::spmm_forward(ops::Cuda{}, a.csr, a.values, 1, features, b, c); };
        ours_spmm();
        Row spmm{graph.name, "SpMM", a.num_rows(), a.nnz(), features, 0, 0, 0, 0};
        spmm.cusparse_default = time_cusparse_spmm(cs, a, a.values, b, c, CUSPARSE_SPMM_ALG_DEFAULT, warmup, runs,
                                                   spmm.error);
        spmm.cusparse_alg2 = time_cusparse_spmm(cs, a, a.values, b, c, CUSPARSE_SPMM_CSR_ALG2, warmup, runs,
                                                spmm.error);
        SGNN_CHECK(spmm.error < 1e-4, "SpMM differs from cuSPARSE on ", graph.name, " F=", features, ": ", spmm.error);
        spmm.ours = median_ms(ours_spmm, warmup, runs);
        rows.push_back(spmm);

        const Tensor x = random_matrix(a.num_rows(), features, 2);
        Tensor out = Tensor::empty({a.nnz()}, DType::Float32, kGpu);
        auto ours_sddmm = [&] { ops::sddmm_dot_forward(ops::Cuda{}, a.csr, 1, features, x, b, out); };
        ours_sddmm();
        Row sddmm{graph.name, "SDDMM", a.num_rows(), a.nnz(), features, 0, 0, NAN, 0};
        sddmm.cusparse_default = time_cusparse_sddmm(cs, a, x, b, out, warmup, runs, sddmm.error);
        SGNN_CHECK(sddmm.error < 1e-4, "SDDMM differs from cuSPARSE on ", graph.name, " F=", features, ": ",
                   sddmm.error);
        sddmm.ours = median_ms(ours_sddmm, warmup, runs);
        rows.push_back(sddmm);
      }
    }
    const std::string table = format_table(rows, cuda::properties(kGpu).name);
    std::printf("%s", table.c_str());
    if (!markdown.empty()) std::ofstream(markdown) << table;
  } catch (const Error& error) {
    std::fprintf(stderr, "bench_sparse: %s\n", error.what());
    return 1;
  }
  return 0;
}
