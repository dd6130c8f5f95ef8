// bench_gspmm: the message-passing ops (ops/gspmm.hpp, ops/gsddmm.hpp) beside
// our own tuned sum SpMM and dot SDDMM on the same graph and width, over the
// broad suite of generated graphs (bench/support/bench_suite.hpp; held-out
// cases in their own table).
//
//   bench_gspmm [--quick] [--graph SUBSTRING]... [--widths 32,64,128,256] [--bf16]
//               [--json FILE] [--export DIR]
//
// Per graph and width: copy_u with sum (the tuned SpMM, the reference time),
// mean, max and min, u_mul_e max (a weight per entry); g-SDDMM add, sub, mul
// of the destination and source rows and dot (the tuned SDDMM). Each op is
// checked against the CPU backend first on graphs of at most 2M entries (the
// first width), then timed: median of 20 runs after 3 warm-up runs, the
// GPU's time (ops::device_launch_ms). GB/s counts the bytes an op must move
// at least: indices, the output, and one read of each dense row it gathers
// per entry (the SpMM's traffic if no gather hit a cache).
//
// --export DIR writes each graph's CSR as DIR/<n>.indptr.npy and
// DIR/<n>.indices.npy (int32) and DIR/cases.json, so that
// bench/compare_gspmm_pyg.py times PyTorch Geometric's equivalents on the
// same graphs in the same run.
// GCC 12 reports -Wnull-dereference inside CLI11's inlined string code (a
// false positive the system-header exemption misses).
#pragma GCC diagnostic ignored "-Wnull-dereference"
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "bench/support/bench_suite.hpp"
#include "bench/support/bench_support.hpp"
#include "core/autograd.hpp"
#include "ops/cast.hpp"
#include "ops/gsddmm.hpp"
#include "ops/gspmm.hpp"
#include "training/output/npy_header.hpp"

namespace {

using namespace sgnn;
using ops::BinaryKind;
using ops::MessageKind;
using ops::ReduceKind;
using ops::Target;
constexpr Device kGpu = Device::cuda(0);

struct Op {
  std::string name;
  bool spmm;  // against the sum SpMM (else against the dot SDDMM)
  // x [n_cols, width] (sources), e [nnz, 1], x_rows [n_rows, width] (destinations)
  std::function<Tensor(const Adjacency&, const Tensor& x, const Tensor& e, const Tensor& x_rows)> run;
};

std::vector<Op> ops_to_time() {
  const auto gspmm = [](MessageKind message, ReduceKind reduce) {
    return [=](const Adjacency& a, const Tensor& x, const Tensor& e, const Tensor&) {
      return ops::gspmm(a, message, reduce, x, message == MessageKind::CopyU ? Tensor() : e);
    };
  };
  const auto gsddmm = [](BinaryKind op) {
    return [=](const Adjacency& a, const Tensor& x, const Tensor&, const Tensor& x_rows) {
      return ops::gsddmm(a, op, x_rows, x, Target::V, Target::U);
    };
  };
  return {{"sum", true, gspmm(MessageKind::CopyU, ReduceKind::Sum)},
          {"mean", true, gspmm(MessageKind::CopyU, ReduceKind::Mean)},
          {"max", true, gspmm(MessageKind::CopyU, ReduceKind::Max)},
          {"min", true, gspmm(MessageKind::CopyU, ReduceKind::Min)},
          {"u_mul_e max", true, gspmm(MessageKind::UMulE, ReduceKind::Max)},
          {"dot", false, gsddmm(BinaryKind::Dot)},
          {"add", false, gsddmm(BinaryKind::Add)},
          {"sub", false, gsddmm(BinaryKind::Sub)},
          {"mul", false, gsddmm(BinaryKind::Mul)}};
}

struct Row {
  bool held_out;
  std::string graph;
  int64_t rows, nnz, width;
  std::string op;
  double ms, reference_ms, gb_per_s;
};

// The bytes an op must move at least (see the file comment).
double minimum_bytes(const Op& op, const Adjacency& a, int64_t width, std::size_t element) {
  const double indices = 4.0 * static_cast<double>(a.nnz() + a.num_rows());
  const double gathered = static_cast<double>(a.nnz()) * static_cast<double>(width * static_cast<int64_t>(element));
  const double node_rows = static_cast<double>(a.num_rows() * width * static_cast<int64_t>(element));
  if (op.spmm) return indices + gathered + node_rows;
  const double out = op.name == "dot" ? 4.0 * static_cast<double>(a.nnz()) : gathered;
  return indices + gathered + node_rows + out;
}

void write_npy(const std::filesystem::path& path, const Tensor& values) {
  const Tensor host = values.to(Device::cpu());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << training::npy_header("'<i4'", host.numel());
  out.write(static_cast<const char*>(host.raw_data()), static_cast<std::streamsize>(host.nbytes()));
  SGNN_CHECK(out.good(), "bench_gspmm: cannot write ", path.string());
}

std::string table(const std::vector<Row>& rows) {
  std::string out = "| graph | rows | nnz | width | op | ms | reference ms | ratio | GB/s |\n|---|---|---|---|---|---|---|---|---|\n";
  char line[512];
  for (const Row& r : rows) {
    std::snprintf(line, sizeof line, "| %s | %lld | %lld | %lld | %s | %.4f | %.4f | %.2f | %.0f |\n", r.graph.c_str(),
                  static_cast<long long>(r.rows), static_cast<long long>(r.nnz), static_cast<long long>(r.width),
                  r.op.c_str(), r.ms, r.reference_ms, r.ms / r.reference_ms, r.gb_per_s);
    out += line;
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"The message-passing ops beside our tuned SpMM and SDDMM on the broad suite"};
  bool quick = false, bf16 = false;
  std::vector<std::string> graph_filters;
  std::string json_path, export_dir;
  std::vector<int64_t> widths{32, 64, 128, 256};
  app.add_flag("--quick", quick, "the suite's small sizes");
  app.add_flag("--bf16", bf16, "bfloat16 features (default float32)");
  app.add_option("--graph", graph_filters, "only the graphs whose name contains one of these (repeatable)");
  app.add_option("--widths", widths, "feature widths (default 32,64,128,256)")->delimiter(',');
  app.add_option("--json", json_path, "write every row as JSON here");
  app.add_option("--export", export_dir, "write each graph's CSR as .npy files here (for compare_gspmm_pyg.py)");
  CLI11_PARSE(app, argc, argv);
  try {
    const autograd::NoGradGuard no_grad;
    const DType dtype = bf16 ? DType::BFloat16 : DType::Float32;
    std::vector<Row> rows;
    std::string cases_json = "[";
    int case_number = 0;
    for (bench::SuiteCase& c : bench::broad_suite(quick)) {
      const bool wanted = graph_filters.empty() || std::any_of(graph_filters.begin(), graph_filters.end(), [&](const std::string& f) {
        return c.name.find(f) != std::string::npos;
      });
      if (!wanted) continue;
      const Adjacency a = c.adjacency(kGpu);
      std::fprintf(stderr, "%s: %lld rows, %lld entries\n", c.name.c_str(), static_cast<long long>(a.num_rows()),
                   static_cast<long long>(a.nnz()));
      if (!export_dir.empty()) {
        std::filesystem::create_directories(export_dir);
        const std::string stem = std::to_string(case_number);
        write_npy(std::filesystem::path(export_dir) / (stem + ".indptr.npy"), a.csr.indptr);
        write_npy(std::filesystem::path(export_dir) / (stem + ".indices.npy"), a.csr.indices);
        cases_json += std::string(case_number > 0 ? "," : "") + "{\"file\": \"" + stem + "\", \"name\": \"" + c.name +
                      "\", \"held_out\": " + (c.held_out ? "true" : "false") + ", \"rows\": " +
                      std::to_string(a.num_rows()) + ", \"cols\": " + std::to_string(a.num_cols()) + "}";
      }
      ++case_number;
      const Adjacency host = a.nnz() <= 2000000 ? a.to(Device::cpu()) : Adjacency();
      bool checked = false;
      for (const int64_t width : widths) {
        const Tensor x = ops::cast(bench::random_matrix({a.num_cols(), width}, 1, kGpu), dtype);
        const Tensor e = ops::cast(bench::random_matrix({a.nnz(), 1}, 2, kGpu), dtype);
        const Tensor x_rows = ops::cast(bench::random_matrix({a.num_rows(), width}, 3, kGpu), dtype);
        double sum_ms = 0, dot_ms = 0;
        for (const Op& op : ops_to_time()) {
          if (!checked && host.csr.indptr.defined()) {
            const Tensor expected = op.run(host, x.to(Device::cpu()), e.to(Device::cpu()), x_rows.to(Device::cpu()));
            const double error = bench::relative_difference(ops::cast(op.run(a, x, e, x_rows), DType::Float32),
                                                            ops::cast(expected, DType::Float32));
            SGNN_CHECK(error < (bf16 ? 1e-2 : 1e-5), "bench_gspmm: ", op.name, " differs from the CPU backend on ",
                       c.name, " width ", width, ": ", error);
          }
          const double ms = bench::median_ms([&] { (void)op.run(a, x, e, x_rows); }, 3, 20);
          if (op.name == "sum") sum_ms = ms;
          if (op.name == "dot") dot_ms = ms;
          const double bytes = minimum_bytes(op, a, width, dtype_size(dtype));
          rows.push_back({c.held_out, c.name, a.num_rows(), a.nnz(), width, op.name, ms, op.spmm ? sum_ms : dot_ms,
                          bytes / (ms * 1e6)});
          std::fprintf(stderr, "  width %lld %-12s %.4f ms (%.2fx the reference)\n", static_cast<long long>(width),
                       op.name.c_str(), ms, ms / (op.spmm ? sum_ms : dot_ms));
        }
        checked = true;
      }
    }
    if (!export_dir.empty()) {
      std::ofstream out(std::filesystem::path(export_dir) / "cases.json", std::ios::trunc);
      out << cases_json << "]\n";
    }
    std::vector<Row> calibration, held_out;
    for (const Row& r : rows) (r.held_out ? held_out : calibration).push_back(r);
    std::printf("# bench_gspmm (%s): reference = our sum SpMM (g-SpMM rows) or dot SDDMM (g-SDDMM rows)\n\n%s",
                bf16 ? "bfloat16" : "float32", table(calibration).c_str());
    if (!held_out.empty()) std::printf("\n## held out\n\n%s", table(held_out).c_str());
    if (!json_path.empty()) {
      std::ofstream out(json_path, std::ios::trunc);
      out << "[";
      for (std::size_t i = 0; i < rows.size(); ++i) {
        const Row& r = rows[i];
        out << (i ? ",\n" : "") << "{\"graph\": \"" << r.graph << "\", \"held_out\": " << (r.held_out ? "true" : "false")
            << ", \"rows\": " << r.rows << ", \"nnz\": " << r.nnz << ", \"width\": " << r.width << ", \"op\": \""
            << r.op << "\", \"ms\": " << r.ms << ", \"reference_ms\": " << r.reference_ms << ", \"gb_per_s\": "
            << r.gb_per_s << "}";
      }
      out << "]\n";
    }
    return 0;
  } catch (const Error& error) {
    std::fprintf(stderr, "bench_gspmm: %s\n", error.what());
    return 1;
  }
}
