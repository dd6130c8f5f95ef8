// bench_attention: GATv2's fused attention op (ops::gatv2_aggregate) beside
// the composition it generalizes, spmm(A, dropout(gatv2_attention(...)), x),
// and beside GAT's attention (per-node scores, attention_softmax, dropout,
// spmm), over the broad suite of generated graphs
// (bench/support/bench_suite.hpp; held-out cases marked).
//
//   bench_attention [--quick] [--graph SUBSTRING]... [--shape 8x8|1x41]... [--runs 10]
//
// Per graph: forward + backward, float32, dropout 0.6 in training, at 8
// heads of 8 and one head of 41 (GATv2Conv's hidden and output layers on
// Reddit). The op's first call on each graph and shape times its paths (its
// fused layouts and the composition) and records one
// (ops/gatv2_attention.hpp); the row names it and what it costs: the time of
// that path below. Then each path is forced and timed.
// Before timing, the fused kernels' output and gradients are checked
// against the composition's with the same dropout draw (relative 1e-4: the
// gradients' sums run in other orders); a case that fails is reported in its
// row, not timed, and the program exits with 1 at the end. Times: median of
// --runs after 2 warm-up runs, the GPU's time (ops::device_launch_ms). Each
// row is printed as it is measured, so a run stopped by a time limit keeps
// what it finished.
// GCC 12 reports -Wnull-dereference inside CLI11's inlined string code (a
// false positive the system-header exemption misses).
#pragma GCC diagnostic ignored "-Wnull-dereference"
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "bench/support/bench_suite.hpp"
#include "bench/support/bench_support.hpp"
#include "core/generator.hpp"
#include "ops/attention_softmax.hpp"
#include "ops/choice_keys.hpp"
#include "ops/dropout.hpp"
#include "ops/elementwise.hpp"
#include "ops/gatv2_attention.hpp"
#include "ops/gatv2_backend.hpp"
#include "ops/kernel_choices.hpp"
#include "ops/reduce.hpp"
#include "ops/spmm.hpp"

namespace {

using namespace sgnn;
constexpr Device kGpu = Device::cuda(0);
constexpr float kSlope = 0.2f;
constexpr float kDropout = 0.6f;
constexpr uint64_t kSeed = 7;

struct Inputs {
  Tensor target, source, attention, attention_row, grad_out;  // x_target, x_source, a, GAT's second vector, dL/dout
};

using Attend = std::function<Tensor(const Adjacency&, const Inputs&, Generator&)>;

Tensor gatv2_fused(const Adjacency& a, const Inputs& in, Generator& generator) {
  return ops::gatv2_aggregate(a, in.target, in.source, in.attention, kSlope, kDropout, true, generator);
}

Tensor gatv2_composed(const Adjacency& a, const Inputs& in, Generator& generator) {
  const Tensor coefficients = ops::gatv2_attention(a, in.target, in.source, in.attention, kSlope);
  return ops::spmm(a, ops::dropout(coefficients, kDropout, true, generator), in.source);
}

// GATConv's attend (training/nn/gat_conv.cpp) without dropout on the projected values.
Tensor gat(const Adjacency& a, const Inputs& in, Generator& generator) {
  const Tensor score_row = ops::sum(ops::mul(in.target, in.attention_row), 2);
  const Tensor score_column = ops::sum(ops::mul(in.source, in.attention), 2);
  const Tensor coefficients = ops::attention_softmax(a, score_row, score_column, kSlope);
  return ops::spmm(a, ops::dropout(coefficients, kDropout, true, generator), in.source);
}

// Leaves that need gradients, fresh for each check.
Inputs leaves(const Inputs& in) {
  Inputs fresh = in;
  fresh.target = in.target.detach().set_requires_grad(true);
  fresh.source = in.source.detach().set_requires_grad(true);
  fresh.attention = in.attention.detach().set_requires_grad(true);
  fresh.attention_row = in.attention_row.detach().set_requires_grad(true);
  return fresh;
}

// Empty when the fused op's tensor matches the composition's, else what differs.
std::string difference(const char* what, const Tensor& got, const Tensor& expected) {
  const double error = bench::relative_difference(got, expected);
  return error < 1e-4 ? std::string() : detail::concat(what, " differs from the composition's (relative ", error, ")");
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"GATv2's fused attention beside its composition and GAT's attention on the broad suite"};
  bool quick = false;
  int runs = 10;
  std::vector<std::string> graph_filters;
  app.add_flag("--quick", quick, "the suite's small sizes");
  app.add_option("--graph", graph_filters, "only the graphs whose name contains one of these (repeatable)");
  app.add_option("--runs", runs, "timed runs per case (median)")->check(CLI::PositiveNumber);
  std::vector<std::string> shape_filters;
  app.add_option("--shape", shape_filters, "only these heads x features: 8x8, 1x41 (repeatable)");
  CLI11_PARSE(app, argc, argv);
  try {
    require_available(kGpu);
    struct Shape {
      int64_t heads, features;
    };
    const Shape shapes[] = {{8, 8}, {1, 41}};
    bool any_failed = false;
    std::printf("| graph | held out | rows | nnz | heads x features | fused kernels | fused ms | fused, 2x lanes ms | "
                "composition ms | best fused ÷ composition | op's choice | op ms | op ÷ fastest | GAT ms | op ÷ GAT "
                "|\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    std::fflush(stdout);
    for (bench::SuiteCase& c : bench::broad_suite(quick)) {
      const bool wanted = graph_filters.empty() || std::any_of(graph_filters.begin(), graph_filters.end(),
                                                               [&](const std::string& f) {
                                                                 return c.name.find(f) != std::string::npos;
                                                               });
      if (!wanted) continue;
      const Adjacency a = c.adjacency(kGpu, /*edge_map=*/true);  // the backward moves [nnz, H] into Aᵀ's order
      for (const Shape& shape : shapes) {
        const std::string shape_name = std::to_string(shape.heads) + "x" + std::to_string(shape.features);
        if (!shape_filters.empty() &&
            std::find(shape_filters.begin(), shape_filters.end(), shape_name) == shape_filters.end()) {
          continue;
        }
        Inputs in;
        in.target = bench::random_matrix({a.num_rows(), shape.heads, shape.features}, 1, kGpu);
        in.source = bench::random_matrix({a.num_cols(), shape.heads, shape.features}, 2, kGpu);
        in.attention = bench::random_matrix({shape.heads, shape.features}, 3, kGpu);
        in.attention_row = bench::random_matrix({shape.heads, shape.features}, 4, kGpu);
        in.grad_out = bench::random_matrix({a.num_rows(), shape.heads, shape.features}, 5, kGpu);
        const std::vector<int> layouts = ops::gatv2_fused_layouts(ops::Cuda{}, in.target, in.source, a);
        const bool fused = !layouts.empty();
        // The op's own choice first (timed on this call, recorded on the
        // graph); then the fused kernels forced for the check and the timing.
        const std::string key = ops::gatv2_choice_key(shape.heads, shape.features, DType::Float32, true);
        {
          Inputs first = leaves(in);
          Generator generator(kSeed);
          gatv2_fused(a, first, generator).backward(in.grad_out);
        }
        const ops::KernelChoiceMap recorded = ops::kernel_choices(a.csr);
        const std::string chosen = recorded.contains(key) ? recorded.at(key) : "composed";
        ops::import_kernel_choices(a.csr, {{key, "fused"}});

        // The check: one draw of the same generator state for both.
        Inputs fused_in = leaves(in), composed_in = leaves(in);
        Generator fused_generator(kSeed), composed_generator(kSeed);
        const Tensor fused_out = gatv2_fused(a, fused_in, fused_generator);
        fused_out.backward(in.grad_out);
        const Tensor composed_out = gatv2_composed(a, composed_in, composed_generator);
        composed_out.backward(in.grad_out);
        std::string failed = difference("output", fused_out, composed_out);
        if (failed.empty()) failed = difference("x_target's gradient", fused_in.target.grad(), composed_in.target.grad());
        if (failed.empty()) failed = difference("x_source's gradient", fused_in.source.grad(), composed_in.source.grad());
        if (failed.empty()) failed = difference("a's gradient", fused_in.attention.grad(), composed_in.attention.grad());
        if (!failed.empty()) {
          std::printf("| %s | %s | %lld | %lld | %lldx%lld | %s | not timed: %s | | | | | | | |\n", c.name.c_str(),
                      c.held_out ? "yes" : "no", static_cast<long long>(a.num_rows()),
                      static_cast<long long>(a.nnz()), static_cast<long long>(shape.heads),
                      static_cast<long long>(shape.features), fused ? "yes" : "no (composition)", failed.c_str());
          std::fflush(stdout);
          any_failed = true;
          continue;
        }

        const auto time = [&](const Attend& attend) {
          Inputs timed = leaves(in);
          Generator generator(kSeed);
          return bench::median_ms([&] { attend(a, timed, generator).backward(in.grad_out); }, 2, runs);
        };
        const double fused_ms = time(gatv2_fused);
        // The second fused layout (twice the lanes per head), where there is one.
        double wide_ms = 0.0;
        const std::string wide = layouts.size() > 1 ? "fused " + std::to_string(layouts[1]) + " lanes per head" : "";
        if (!wide.empty()) {
          ops::import_kernel_choices(a.csr, {{key, wide}});
          wide_ms = time(gatv2_fused);
        }
        const double composed_ms = time(gatv2_composed);
        const double gat_ms = time(gat);
        const double op_ms = chosen == "fused" ? fused_ms : chosen == "composed" ? composed_ms : wide_ms;
        std::printf(
            "| %s | %s | %lld | %lld | %lldx%lld | %s | %.3f | %s | %.3f | %.2f | %s | %.3f | %.2f | %.3f | %.2f |\n",
            c.name.c_str(), c.held_out ? "yes" : "no", static_cast<long long>(a.num_rows()),
            static_cast<long long>(a.nnz()), static_cast<long long>(shape.heads),
            static_cast<long long>(shape.features), fused ? "yes" : "no (composition)", fused_ms,
            wide.empty() ? "—" : detail::concat(wide_ms).c_str(), composed_ms, std::min(fused_ms, wide.empty() ? fused_ms : wide_ms) / composed_ms, chosen.c_str(), op_ms,
            op_ms / std::min({fused_ms, wide.empty() ? fused_ms : wide_ms, composed_ms}), gat_ms, op_ms / gat_ms);
        std::fflush(stdout);
      }
    }
    return any_failed ? 1 : 0;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "bench_attention: %s\n", error.what());
    return 1;
  }
}
