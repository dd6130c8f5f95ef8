// bench_determinism: what bit-identical results cost (docs/determinism.md).
// For a Cora-sized R-MAT, an R-MAT with one hub node linked to half the graph,
// and a products-scale R-MAT, at feature widths 16, 64 and 256:
//   - SpMM on CSR: always deterministic (split rows merged in segment order
//     by their last segment); checked against the CPU backend, timed, and
//     run 3 times to confirm the bits repeat;
//   - SpMM on HRPB built with atomic vs deterministic split panels
//     (HrpbOptions::deterministic, what --deterministic sets): the two are
//     checked to agree (relative difference ≤ 1e-5) before anything is
//     timed, and each is run 3 times on poisoned outputs to see whether the
//     bits repeat;
// and a GCN training step on the Cora-sized graph with each HRPB build
// (Trainer, CUDA Graph capture auto as in train_gcn). Kernel times are the
// median of CUDA-event timings after warm-up; the training step is the median
// wall time of the steps (EpochRecord::epoch_ms).
//
//   bench_determinism [--quick] [--markdown FILE]
// GCC 12 reports -Wnull-dereference inside CLI11's inlined string code (a
// false positive the system-header exemption misses once inlined here).
#pragma GCC diagnostic ignored "-Wnull-dereference"
#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "bench/support/bench_graphs.hpp"
#include "bench/support/bench_support.hpp"
#include "core/cuda_runtime.hpp"
#include "graph_io/hrpb_builder.hpp"
#include "ops/sparse_plan.hpp"
#include "ops/spmm_backend.hpp"
#include "ops/spmm_hrpb.hpp"
#include "ops/spmm_hrpb_backend.hpp"
#include "training/models.hpp"
#include "training/trainer.hpp"

using namespace sgnn;

namespace {

constexpr Device kGpu = Device::cuda(0);
constexpr int kRepeats = 3;  // runs compared bit for bit in each mode
constexpr double kAgreement = 1e-5;

struct GraphCase {
  std::string name;
  int64_t nodes;
  int64_t edges;      // R-MAT edges before symmetrisation
  int64_t hub_edges;  // node 0 linked to nodes 1..hub_edges (0: none)
};

struct Row {
  std::string graph, op;
  int64_t nodes = 0, nnz = 0, width = 0;
  int64_t split = 0;  // split segments (CSR) or split panels (HRPB)
  double atomic_ms = NAN, deterministic_ms = 0;  // NaN: the op has no atomic mode
  bool deterministic_identical = false, atomic_identical = false;
  double difference = 0;  // deterministic vs atomic, or CSR vs the CPU backend
};

Adjacency make_graph(const GraphCase& graph) {
  graph_io::EdgeList edges = bench::rmat_edges(graph.nodes, graph.edges, 42);
  if (graph.hub_edges > 0) {
    std::vector<int32_t> source = edges.source.to_vector<int32_t>();
    std::vector<int32_t> target = edges.target.to_vector<int32_t>();
    for (int64_t node = 1; node <= graph.hub_edges; ++node) {
      source.push_back(0);
      target.push_back(static_cast<int32_t>(node));
    }
    const auto count = static_cast<int64_t>(source.size());
    edges.source = Tensor::from_vector(source, {count});
    edges.target = Tensor::from_vector(target, {count});
  }
  return bench::gcn_adjacency(edges, kGpu);
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// All bits set: a NaN in every float, so an output the kernel skipped shows.
void poison(const Tensor& t) {
  SGNN_CUDA_CHECK(cudaMemsetAsync(t.raw_data(), 0xff, t.nbytes(), cuda::stream(kGpu)));
}

// One run of `run` (which writes `c`) on a poisoned `c`; a copy of the result.
Tensor run_once(const std::function<void()>& run, const Tensor& c) {
  poison(c);
  run();
  return c.clone();
}

// Whether kRepeats − 1 more runs give the bits of `first`.
bool repeats_bits(const std::function<void()>& run, const Tensor& c, const Tensor& first) {
  const std::vector<float> expected = first.to_vector<float>();
  for (int k = 1; k < kRepeats; ++k) {
    if (!same_bits(expected, run_once(run, c).to_vector<float>())) return false;
  }
  return true;
}

void require_agreement(const Row& row, const char* versus) {
  SGNN_CHECK(row.difference <= kAgreement, "bench_determinism: ", row.op, " on ", row.graph, " F=", row.width,
             " differs from ", versus, " by ", row.difference);
}

Row csr_row(const GraphCase& graph, const Adjacency& a, const Adjacency& host, int64_t width, int warmup, int runs) {
  Row row{graph.name, "SpMM CSR", a.num_rows(), a.nnz(), width};
  row.split = ops::sparse_plan(a.csr)->split_segments;
  const Tensor b = bench::random_matrix({a.num_cols(), width}, 1, kGpu);
  Tensor c = Tensor::empty({a.num_rows(), width}, DType::Float32, kGpu);
  const std::function<void()> run = [&] { ops::spmm_forward(ops::Cuda{}, a.csr, a.values, 1, width, b, c); };
  const Tensor first = run_once(run, c);
  Tensor reference = Tensor::empty({a.num_rows(), width});
  ops::spmm_forward(ops::Cpu{}, host.csr, host.values, 1, width, b.to(Device::cpu()), reference);
  row.difference = bench::relative_difference(first, reference);
  require_agreement(row, "the CPU backend");
  row.deterministic_ms = bench::median_ms(run, warmup, runs);
  row.deterministic_identical = repeats_bits(run, c, first);
  return row;
}

Hrpb build_hrpb(const Adjacency& a, int64_t width, bool deterministic) {
  graph_io::HrpbOptions options;
  options.concurrent_blocks = ops::spmm_hrpb_concurrent_blocks(kGpu, width);
  options.deterministic = deterministic;
  return graph_io::build_hrpb(a.csr, a.values, options);
}

Row hrpb_row(const GraphCase& graph, const Adjacency& a, int64_t width, int warmup, int runs) {
  Row row{graph.name, "SpMM HRPB (TF32)", a.num_rows(), a.nnz(), width};
  const Hrpb atomic = build_hrpb(a, width, false);
  const Hrpb ordered = build_hrpb(a, width, true);
  row.split = ordered.schedule.num_split_panels;
  const Tensor b = bench::random_matrix({a.num_cols(), width}, 2, kGpu);
  Tensor c = Tensor::empty({a.num_rows(), width}, DType::Float32, kGpu);
  const std::function<void()> run_atomic = [&] { ops::spmm_hrpb_forward(ops::Cuda{}, atomic, b, c); };
  const std::function<void()> run_ordered = [&] { ops::spmm_hrpb_forward(ops::Cuda{}, ordered, b, c); };
  const Tensor atomic_first = run_once(run_atomic, c);
  const Tensor ordered_first = run_once(run_ordered, c);
  row.difference = bench::relative_difference(ordered_first, atomic_first);
  require_agreement(row, "the atomic build");
  row.atomic_ms = bench::median_ms(run_atomic, warmup, runs);
  row.deterministic_ms = bench::median_ms(run_ordered, warmup, runs);
  row.atomic_identical = repeats_bits(run_atomic, c, atomic_first);
  row.deterministic_identical = repeats_bits(run_ordered, c, ordered_first);
  return row;
}

struct TrainingOutcome {
  double step_ms = 0;
  std::vector<float> bits;  // every epoch's training loss, then every final weight
};

// `epochs` GCN epochs (Kipf & Welling's sizes: hidden 16, dropout 0.5) from seed 1.
TrainingOutcome train(const training::TrainingData& data, int64_t classes, int64_t epochs) {
  Generator generator(1);
  const std::shared_ptr<training::Model> model =
      training::make_gcn({data.features.size(1), classes, 16, 2, 0.5f}, generator);
  model->to(kGpu);
  training::Adam optimizer(model->parameter_groups(5e-4f), ops::AdamHyperparameters{});
  training::TrainerOptions options;
  options.epochs = epochs;
  options.restore_best = false;
  training::Trainer trainer(*model, optimizer, data, options);
  const training::TrainResult result = trainer.fit();
  TrainingOutcome outcome;
  outcome.step_ms = result.epoch_ms_median;
  for (const training::EpochRecord& record : result.history) outcome.bits.push_back(static_cast<float>(record.train_loss));
  for (const Tensor& parameter : model->parameters()) {
    const std::vector<float> weights = parameter.to_vector<float>();
    outcome.bits.insert(outcome.bits.end(), weights.begin(), weights.end());
  }
  return outcome;
}

// A node-classification task on `a` aggregated through HRPB: random features
// (Cora's 1433 columns), labels of 7 classes, Planetoid-sized splits.
Row training_row(const GraphCase& graph, const Adjacency& a, int64_t epochs) {
  const int64_t n = a.num_rows();
  const int64_t classes = 7;
  const int64_t hidden = 16;
  SGNN_CHECK(n >= 1000, "bench_determinism: the training row needs at least 1000 nodes, got ", n);
  std::vector<int32_t> labels(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < labels.size(); ++i) labels[i] = static_cast<int32_t>((i * 2654435761u) % classes);
  const auto range = [](int64_t begin, int64_t end) {
    std::vector<int32_t> ids(static_cast<std::size_t>(end - begin));
    std::iota(ids.begin(), ids.end(), static_cast<int32_t>(begin));
    return Tensor::from_vector(ids, {end - begin}, kGpu);
  };
  const Tensor features = bench::random_matrix({n, 1433}, 3, kGpu);
  const Tensor node_labels = Tensor::from_vector(labels, {n}, kGpu);
  // The same graph with each HRPB build, as attach_hrpb leaves it for training.
  const auto with_hrpb = [&](bool deterministic) {
    Adjacency copy = a;
    copy.hrpb.reset();
    graph_io::HrpbOptions options;
    options.concurrent_blocks = ops::spmm_hrpb_concurrent_blocks(kGpu, hidden);
    options.deterministic = deterministic;
    graph_io::attach_hrpb(copy, SpmmFormat::Hrpb, options);
    return copy;
  };
  const Adjacency atomic_graph = with_hrpb(false);
  const Adjacency ordered_graph = with_hrpb(true);
  const auto train_on = [&](const Adjacency& adjacency) {
    const training::TrainingData data{training::GraphInput(adjacency), features, node_labels, range(0, 140),
                                      range(140, 640), range(n - 1000, n)};
    return train(data, classes, epochs);
  };
  Row row{graph.name, "GCN training step, HRPB (F 1433, hidden 16)", n, a.nnz(), hidden};
  row.split = ordered_graph.hrpb->forward.schedule.num_split_panels + ordered_graph.hrpb->transpose.schedule.num_split_panels;
  const TrainingOutcome atomic = train_on(atomic_graph);
  const TrainingOutcome ordered = train_on(ordered_graph);
  const auto as_tensor = [](const std::vector<float>& bits) {
    return Tensor::from_vector(bits, {static_cast<int64_t>(bits.size())});
  };
  row.difference = bench::relative_difference(as_tensor(ordered.bits), as_tensor(atomic.bits));
  row.atomic_ms = atomic.step_ms;
  row.deterministic_ms = ordered.step_ms;
  row.atomic_identical = same_bits(atomic.bits, train_on(atomic_graph).bits);
  row.deterministic_identical = same_bits(ordered.bits, train_on(ordered_graph).bits);
  return row;
}

std::string format_table(const std::vector<Row>& rows, const std::string& device) {
  std::ostringstream out;
  out << "Device: " << device << "\n\n";
  out << "| graph | nodes | nnz | op | F | split segments / panels | atomic ms | deterministic ms | "
         "deterministic ÷ atomic | deterministic runs identical | atomic runs identical | rel. diff |\n";
  out << "|---|---:|---:|---|---:|---:|---:|---:|---:|---|---|---:|\n";
  char line[512];
  for (const Row& r : rows) {
    const bool atomic = !std::isnan(r.atomic_ms);
    char atomic_ms[32] = "–", ratio[32] = "–";
    if (atomic) {
      std::snprintf(atomic_ms, sizeof atomic_ms, "%.4f", r.atomic_ms);
      std::snprintf(ratio, sizeof ratio, "%.2f", r.deterministic_ms / r.atomic_ms);
    }
    std::snprintf(line, sizeof line, "| %s | %lld | %lld | %s | %lld | %lld | %s | %.4f | %s | %s | %s | %.1e |\n",
                  r.graph.c_str(), static_cast<long long>(r.nodes), static_cast<long long>(r.nnz), r.op.c_str(),
                  static_cast<long long>(r.width), static_cast<long long>(r.split), atomic_ms, r.deterministic_ms,
                  ratio, r.deterministic_identical ? "yes" : "no", !atomic ? "–" : r.atomic_identical ? "yes" : "no",
                  r.difference);
    out << line;
  }
  out << "\nSpMM CSR has one mode (split rows always merged in segment order); its rel. diff is against the CPU "
         "backend. SpMM HRPB: \"identical\" compares "
      << kRepeats
      << " runs of a build; rel. diff is between the builds (both checked ≤ 1e-5 before timing). Training row: "
         "step ms is the median wall time of a step; \"identical\" compares two trainings of a build (every "
         "epoch's loss and the final weights); its split count is of A and Aᵀ; rel. diff is between the builds "
         "after training (drift over the epochs, not checked).\n";
  return out.str();
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"What bit-identical results cost: SpMM on CSR, and HRPB SpMM and a GCN training step with atomic vs "
               "fixed-order split panels"};
  bool quick = false;
  std::string markdown;
  app.add_flag("--quick", quick, "smaller graphs, fewer runs and epochs");
  app.add_option("--markdown", markdown, "also write the table to this file");
  CLI11_PARSE(app, argc, argv);
  try {
    require_available(kGpu);
    const GraphCase cora{"cora-like R-MAT", 2708, 5278, 0};
    std::vector<GraphCase> graphs = {cora};
    if (quick) {
      graphs.push_back({"R-MAT 20K + hub of 10K", 20000, 160000, 10000});
      graphs.push_back({"R-MAT 100K", 100000, 1600000, 0});
    } else {
      graphs.push_back({"R-MAT 200K + hub of 100K", 200000, 1600000, 100000});
      graphs.push_back({"products-scale R-MAT", 2449029, 61000000, 0});
    }
    const int warmup = 5;
    const int runs = quick ? 10 : 25;
    std::vector<Row> rows;
    for (const GraphCase& graph : graphs) {
      const Adjacency a = make_graph(graph);
      const Adjacency host = a.to(Device::cpu());  // the CPU reference of the CSR rows
      std::fprintf(stderr, "%s: %lld nodes, %lld entries\n", graph.name.c_str(), static_cast<long long>(a.num_rows()),
                   static_cast<long long>(a.nnz()));
      for (const int64_t width : {16, 64, 256}) {
        rows.push_back(csr_row(graph, a, host, width, warmup, runs));
        rows.push_back(hrpb_row(graph, a, width, warmup, runs));
      }
      if (graph.name == cora.name) rows.push_back(training_row(graph, a, quick ? 20 : 100));
    }
    const std::string table = format_table(rows, cuda::properties(kGpu).name);
    std::printf("%s", table.c_str());
    if (!markdown.empty()) std::ofstream(markdown) << table;
  } catch (const Error& error) {
    std::fprintf(stderr, "bench_determinism: %s\n", error.what());
    return 1;
  }
  return 0;
}
