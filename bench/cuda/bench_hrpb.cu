// bench_hrpb: HRPB tensor-core SpMM (ops::spmm_hrpb, TF32 and BF16) against
// our CSR SpMM (fp32, ops::spmm) and cuSPARSE SpMM (fp32 CSR,
// CUSPARSE_SPMM_CSR_ALG2; and bf16 A, B and C with fp32 compute,
// CUSPARSE_SPMM_ALG_DEFAULT, "n/a" where cuSPARSE refuses it) on the same
// GCN-normalised graphs: the citation graphs as given and after
// RCM reordering (when found by graph_io::load_dataset), R-MAT power-law
// graphs and the broad suite of generated graphs (bench/support/bench_suite.hpp:
// heavy tails, communities, stencils, a band and FEM meshes in natural order
// (where HRPB should shine), a rectangular adjacency, a hub row, a very
// sparse graph). The suite's held-out cases get their own table, "held out
// (never used for calibration)".
//
//   bench_hrpb [--quick] [--describe] [--statistics-only] [--dataset NAME|DIR]... [--runs N] [--markdown FILE]
//              [--graph SUBSTRING] [--width N]...
//
// Every case is checked first (HRPB vs cuSPARSE, relative error; HRPB BF16
// vs cuSPARSE fp32 on the same bf16-rounded B), then each
// kernel is timed with CUDA events: median of N ≥ 20 runs after warm-up.
// --statistics-only builds each case's HRPB on the host instead (the same
// buffers as the GPU build) and prints its synergy and memory; no GPU needed.
// --graph keeps the cases whose name contains SUBSTRING and --width the
// widths given (one case under ncu, say).
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "bench/support/bench_graphs.hpp"
#include "bench/support/bench_suite.hpp"
#include "bench/support/bench_support.hpp"
#include "core/cuda_runtime.hpp"
#include "core/error.hpp"
#include "graph_io/generators/generators.hpp"
#include "graph_io/hrpb_builder.hpp"
#include "graph_io/prepare.hpp"
#include "graph_io/reordering.hpp"
#include "ops/cast.hpp"
#include "ops/cuda/hrpb_bf16_fragments.cuh"
#include "ops/spmm_backend.hpp"
#include "ops/spmm_choice.hpp"
#include "ops/spmm_hrpb_backend.hpp"

using namespace sgnn;

namespace {

constexpr Device kGpu = Device::cuda(0);

struct Case {
  std::string name;
  std::function<Adjacency(Device)> adjacency;  // generated and prepared when the case's turn comes
  bool held_out = false;
};

Case gcn_case(std::string name, graph_io::EdgeList edges) {
  return {std::move(name), [edges = std::move(edges)](Device device) { return bench::gcn_adjacency(edges, device); }};
}

struct Row {
  bool held_out;
  std::string graph;
  int64_t width;
  double alpha, hrpb_ms, csr_ms, cusparse_ms, error;
  double bf16_ms, cusparse_bf16_ms, bf16_error;  // cusparse_bf16_ms < 0: cuSPARSE refused bf16
  double bf16_copies_ms;                          // B rows staged by 16-byte copies; < 0 where staging does not matter
  int64_t nnz;
  double memory_ratio;  // HRPB bytes ÷ int32 CSR with values
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"HRPB tensor-core SpMM vs cuSPARSE CSR SpMM"};
  bool quick = false, describe = false, statistics_only = false;
  std::vector<std::string> datasets{"cora", "citeseer"};
  std::string markdown;
  int runs = 20;
  app.add_flag("--quick", quick, "small graphs, widths 32 and 128");
  app.add_flag("--describe", describe, "print the HRPB statistics of every graph");
  app.add_flag("--statistics-only", statistics_only,
               "build the HRPBs on the host and print their statistics; no timing, no GPU");
  app.add_option("--dataset", datasets, "datasets to add, as given and RCM-reordered (name or OGB directory; default cora citeseer, skipped when not found)");
  app.add_option("--runs", runs, "timed runs per kernel (median reported)")->check(CLI::Range(20, 100000));
  app.add_option("--markdown", markdown, "also write the table to this markdown file");
  std::string graph_filter;
  std::vector<int64_t> only_widths;
  app.add_option("--graph", graph_filter, "only the cases whose name contains this");
  app.add_option("--width", only_widths, "only these feature widths")->check(CLI::Range(int64_t{1}, int64_t{1} << 20));
  CLI11_PARSE(app, argc, argv);

  try {
    std::vector<Case> cases;
    cases.push_back(gcn_case("cora-like R-MAT 2708 nodes", bench::rmat_edges(2708, 5278, 1)));
    cases.push_back(gcn_case("R-MAT power-law",
                             quick ? bench::rmat_edges(1 << 14, 1 << 18, 2) : bench::rmat_edges(1 << 18, 1 << 22, 2)));
    for (const graph_io::Dataset& dataset : bench::available_datasets(datasets)) {
      cases.push_back(gcn_case(dataset.name, dataset.edges));
      const Tensor order = graph_io::compute_node_order(dataset.edges, graph_io::Reordering::Rcm);
      cases.push_back(gcn_case(dataset.name + " (RCM)", graph_io::reorder_dataset(dataset, order).edges));
    }
    for (bench::SuiteCase& c : bench::broad_suite(quick)) {
      cases.push_back({c.name, [prepare = std::move(c.prepare)](Device device) { return prepare(device, false); },
                       c.held_out});
    }
    std::erase_if(cases, [&](const Case& c) { return c.name.find(graph_filter) == std::string::npos; });
    if (cases.empty()) throw InvalidArgument("no case name contains '" + graph_filter + "'");
    std::vector<int64_t> widths = quick ? std::vector<int64_t>{32, 128} : std::vector<int64_t>{16, 32, 64, 128, 256};
    if (!only_widths.empty()) widths = only_widths;
    if (statistics_only) {
      for (const Case& c : cases) {
        const Adjacency a = c.adjacency(Device::cpu());
        std::cout << c.name << ": " << a.num_rows() << " rows\n"
                  << graph_io::build_hrpb(a.csr, a.values, graph_io::HrpbOptions{}).describe() << "\n";
      }
      return 0;
    }
    require_available(kGpu);

    const cudaStream_t stream = cuda::stream(kGpu);
    cusparseHandle_t handle;
    BENCH_CUSPARSE(cusparseCreate(&handle));
    BENCH_CUSPARSE(cusparseSetStream(handle, stream));
    std::vector<Row> rows;
    for (const Case& c : cases) {
      const Adjacency a = c.adjacency(kGpu);
      if (a.csr.indptr.dtype() != DType::Int32) throw InvalidArgument(c.name + ": nnz >= 2^31, not benchmarked");
      graph_io::HrpbOptions options;
      options.concurrent_blocks = ops::spmm_hrpb_occupancy(ops::Cuda{}, kGpu, 128);
      memory::synchronize(kGpu);
      const auto build_start = std::chrono::steady_clock::now();
      const Hrpb h = graph_io::build_hrpb(a.csr, a.values, options);
      memory::synchronize(kGpu);
      const double build_ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - build_start).count();
      std::cout << c.name << ": " << a.num_rows() << " rows, " << a.nnz() << " non-zeros, HRPB built on the GPU in "
                << build_ms << " ms\n";
      if (describe) std::cout << h.describe() << "\n";
      {
        // The BF16 kernel's A fragments are built once per HRPB, at its first call; what that costs:
        Hrpb fresh = h;
        fresh.derived = std::make_shared<HrpbDerived>();
        memory::synchronize(kGpu);
        const auto start = std::chrono::steady_clock::now();
        const Tensor fragments = ops::hrpb_bf16_fragments(fresh);
        memory::synchronize(kGpu);
        std::cout << "  BF16 A fragments: " << fragments.nbytes() << " bytes, built in "
                  << std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count()
                  << " ms (once per HRPB; packed blocks " << h.packed_blocks.nbytes() << " bytes)\n";
      }

      cusparseSpMatDescr_t matrix, bf16_matrix;
      const Tensor bf16_values = ops::cast(a.values, DType::BFloat16);
      BENCH_CUSPARSE(cusparseCreateCsr(&bf16_matrix, a.num_rows(), a.num_cols(), a.nnz(), a.csr.indptr.raw_data(),
                                       a.csr.indices.raw_data(), const_cast<void*>(bf16_values.raw_data()),
                                       CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_16BF));
      BENCH_CUSPARSE(cusparseCreateCsr(&matrix, a.num_rows(), a.num_cols(), a.nnz(), a.csr.indptr.raw_data(),
                                       a.csr.indices.raw_data(), a.values.raw_data(), CUSPARSE_INDEX_32I,
                                       CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
      for (const int64_t width : widths) {
        Tensor b = Tensor::full({a.num_cols(), width}, 0.5, DType::Float32, kGpu);
        {
          std::vector<float> host(static_cast<std::size_t>(b.numel()));
          for (std::size_t i = 0; i < host.size(); ++i) host[i] = static_cast<float>((i * 2654435761u) % 1000) / 1000.0f - 0.5f;
          b = Tensor::from_vector(host, b.shape(), kGpu);
        }
        Tensor c_hrpb = Tensor::empty({a.num_rows(), width}, DType::Float32, kGpu);
        Tensor c_sparse = Tensor::empty({a.num_rows(), width}, DType::Float32, kGpu);
        cusparseDnMatDescr_t dense_b, dense_c;
        BENCH_CUSPARSE(cusparseCreateDnMat(&dense_b, a.num_cols(), width, width, b.raw_data(), CUDA_R_32F,
                                           CUSPARSE_ORDER_ROW));
        BENCH_CUSPARSE(cusparseCreateDnMat(&dense_c, a.num_rows(), width, width, c_sparse.raw_data(), CUDA_R_32F,
                                           CUSPARSE_ORDER_ROW));
        const float one = 1.0f, zero = 0.0f;
        std::size_t buffer_bytes = 0;
        BENCH_CUSPARSE(cusparseSpMM_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                               CUSPARSE_OPERATION_NON_TRANSPOSE, &one, matrix, dense_b, &zero, dense_c,
                                               CUDA_R_32F, CUSPARSE_SPMM_CSR_ALG2, &buffer_bytes));
        Tensor buffer = Tensor::empty({static_cast<int64_t>(buffer_bytes / 4 + 1)}, DType::Float32, kGpu);
        const auto run_cusparse = [&] {
          BENCH_CUSPARSE(cusparseSpMM(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &one,
                                      matrix, dense_b, &zero, dense_c, CUDA_R_32F, CUSPARSE_SPMM_CSR_ALG2,
                                      buffer.raw_data()));
        };
        const auto run_hrpb = [&] { ops::spmm_hrpb_forward(ops::Cuda{}, h, b, c_hrpb); };
        Tensor c_csr = Tensor::empty({a.num_rows(), width}, DType::Float32, kGpu);
        const auto run_csr = [&] { ops::csr_spmm_into(a.csr, a.values, 1, width, b, c_csr); };
        // BF16: B rounded to bfloat16; its float32 copy feeds the fp32 cuSPARSE reference of the check.
        const Tensor b_bf16 = ops::cast(b, DType::BFloat16);
        const Tensor b_rounded = ops::cast(b_bf16, DType::Float32);
        Tensor c_bf16 = Tensor::empty({a.num_rows(), width}, DType::BFloat16, kGpu);
        const auto run_hrpb_bf16 = [&] { ops::spmm_hrpb_bf16_forward(ops::Cuda{}, h, b_bf16, c_bf16); };
        // The other row staging, where the kernel has one (ops/spmm_hrpb.hpp): the same values are checked below.
        const bool staging_matters = ops::hrpb_row_staging_matters(DType::BFloat16, width);
        Tensor c_bf16_copies = Tensor::empty({a.num_rows(), width}, DType::BFloat16, kGpu);
        const auto run_hrpb_bf16_copies = [&] {
          ops::spmm_hrpb_bf16_forward(ops::Cuda{}, h, b_bf16, c_bf16_copies, ops::HrpbRowStaging::Copies);
        };
        run_cusparse();
        run_hrpb();
        run_csr();
        run_hrpb_bf16();
        if (staging_matters) {
          run_hrpb_bf16_copies();
          if (ops::cast(c_bf16, DType::Float32).to_vector<float>() !=
              ops::cast(c_bf16_copies, DType::Float32).to_vector<float>()) {
            std::cerr << c.name << " width " << width << ": HRPB BF16 differs between its two row stagings\n";
            return 1;
          }
        }
        const double error = bench::relative_difference(c_hrpb, c_sparse);
        const double csr_error = bench::relative_difference(c_csr, c_sparse);
        BENCH_CUSPARSE(cusparseDnMatSetValues(dense_b, const_cast<void*>(b_rounded.raw_data())));
        run_cusparse();
        const double bf16_error = bench::relative_difference(ops::cast(c_bf16, DType::Float32), c_sparse);
        BENCH_CUSPARSE(cusparseDnMatSetValues(dense_b, b.raw_data()));
        // bf16 A rounds the weights as the HRPB BF16 kernel does; 2^-8 relative is bfloat16's unit roundoff.
        if (!(error < 2e-3) || !(csr_error < 1e-5) || !(bf16_error < 1e-2)) {
          std::cerr << c.name << " width " << width << ": differs from cuSPARSE: HRPB " << error << ", CSR "
                    << csr_error << ", HRPB BF16 " << bf16_error << "\n";
          return 1;
        }
        const double hrpb_ms = bench::median_ms(run_hrpb, 3, runs);
        const double csr_ms = bench::median_ms(run_csr, 3, runs);
        const double cusparse_ms = bench::median_ms(run_cusparse, 3, runs);
        const double bf16_ms = bench::median_ms(run_hrpb_bf16, 3, runs);
        const double bf16_copies_ms = staging_matters ? bench::median_ms(run_hrpb_bf16_copies, 3, runs) : -1.0;
        double cusparse_bf16_ms = -1.0;
        {
          cusparseDnMatDescr_t bf16_b, bf16_c;
          Tensor c_cusparse_bf16 = Tensor::empty({a.num_rows(), width}, DType::BFloat16, kGpu);
          BENCH_CUSPARSE(cusparseCreateDnMat(&bf16_b, a.num_cols(), width, width, const_cast<void*>(b_bf16.raw_data()),
                                             CUDA_R_16BF, CUSPARSE_ORDER_ROW));
          BENCH_CUSPARSE(cusparseCreateDnMat(&bf16_c, a.num_rows(), width, width, c_cusparse_bf16.raw_data(),
                                             CUDA_R_16BF, CUSPARSE_ORDER_ROW));
          std::size_t bf16_buffer_bytes = 0;
          if (cusparseSpMM_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &one,
                                      bf16_matrix, bf16_b, &zero, bf16_c, CUDA_R_32F, CUSPARSE_SPMM_ALG_DEFAULT,
                                      &bf16_buffer_bytes) == CUSPARSE_STATUS_SUCCESS) {
            Tensor bf16_buffer =
                Tensor::empty({static_cast<int64_t>(bf16_buffer_bytes / 4 + 1)}, DType::Float32, kGpu);
            const auto run_cusparse_bf16 = [&] {
              BENCH_CUSPARSE(cusparseSpMM(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                          &one, bf16_matrix, bf16_b, &zero, bf16_c, CUDA_R_32F,
                                          CUSPARSE_SPMM_ALG_DEFAULT, bf16_buffer.raw_data()));
            };
            run_cusparse_bf16();
            cusparse_bf16_ms = bench::median_ms(run_cusparse_bf16, 3, runs);
          }
          BENCH_CUSPARSE(cusparseDestroyDnMat(bf16_b));
          BENCH_CUSPARSE(cusparseDestroyDnMat(bf16_c));
        }
        rows.push_back({c.held_out, c.name, width, h.statistics.alpha(), hrpb_ms, csr_ms, cusparse_ms, error, bf16_ms,
                        cusparse_bf16_ms, bf16_error, bf16_copies_ms, a.nnz(),
                        static_cast<double>(h.statistics.hrpb_bytes) / static_cast<double>(h.statistics.csr_bytes)});
        BENCH_CUSPARSE(cusparseDestroyDnMat(dense_b));
        BENCH_CUSPARSE(cusparseDestroyDnMat(dense_c));
      }
      BENCH_CUSPARSE(cusparseDestroySpMat(matrix));
      BENCH_CUSPARSE(cusparseDestroySpMat(bf16_matrix));
    }
    BENCH_CUSPARSE(cusparseDestroy(handle));

    std::ostringstream table;
    const cudaDeviceProp& device = cuda::properties(kGpu);
    table << "Device: " << device.name << "; median of " << runs << " runs after 3 warm-up runs\n";
    // The calibration cases, then the held-out ones in their own table.
    for (const bool held_out : {false, true}) {
      if (std::none_of(rows.begin(), rows.end(), [&](const Row& r) { return r.held_out == held_out; })) continue;
      table << (held_out ? "\n## held out (never used for calibration)\n\n" : "\n")
            << "| graph | nnz | alpha | HRPB memory ÷ CSR | width | HRPB TF32 ms | our CSR ms | cuSPARSE ALG2 ms | "
               "HRPB vs cuSPARSE | HRPB vs CSR | HRPB GFLOP/s | rel. diff | HRPB BF16 ms | HRPB BF16 copies ms | "
               "BF16 (faster staging) speed-up over TF32 | cuSPARSE BF16 ms | BF16 rel. diff |\n"
            << "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
      for (const Row& r : rows) {
        if (r.held_out != held_out) continue;
        const double gflops = 2.0 * static_cast<double>(r.nnz) * static_cast<double>(r.width) / (r.hrpb_ms * 1e6);
        table << "| " << r.graph << " | " << r.nnz << " | " << r.alpha << " | " << r.memory_ratio << " | " << r.width
              << " | " << r.hrpb_ms << " | " << r.csr_ms << " | " << r.cusparse_ms << " | " << r.cusparse_ms / r.hrpb_ms
              << " | " << r.csr_ms / r.hrpb_ms << " | " << gflops << " | " << r.error << " | " << r.bf16_ms << " | ";
        if (r.bf16_copies_ms < 0) {
          table << "—";
        } else {
          table << r.bf16_copies_ms;
        }
        const double faster_bf16_ms = r.bf16_copies_ms < 0 ? r.bf16_ms : std::min(r.bf16_ms, r.bf16_copies_ms);
        table << " | " << r.hrpb_ms / faster_bf16_ms << " | ";
        if (r.cusparse_bf16_ms < 0) {
          table << "n/a";
        } else {
          table << r.cusparse_bf16_ms;
        }
        table << " | " << r.bf16_error << " |\n";
      }
    }
    std::cout << "\n" << table.str();
    if (!markdown.empty()) {
      std::ofstream out(markdown);
      out << "# bench_hrpb\n\n" << table.str();
      if (!out) throw IoError(markdown, 0, "cannot write the markdown table");
    }
  } catch (const std::exception& error) {
    std::cerr << "bench_hrpb: " << error.what() << "\n";
    return 1;
  }
  return 0;
}
