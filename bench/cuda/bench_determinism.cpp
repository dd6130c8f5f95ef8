// bench_determinism: what --deterministic costs (docs/determinism.md). For a
// Cora-sized R-MAT, an R-MAT with one hub node linked to half the graph, and
// a products-scale R-MAT, at feature widths 16, 64 and 256:
//   - SpMM on CSR: split rows merged with atomics vs in a fixed order
//     (ops::set_deterministic);
//   - SpMM on HRPB built with atomic vs deterministic split panels
//     (HrpbOptions::deterministic);
// and a GCN training step on the Cora-sized graph, on CSR and on HRPB, with
// and without determinism (Trainer, CUDA Graph capture auto as in
// train_gcn). The two modes' results are checked to agree (relative
// difference ≤ 1e-5) before anything is timed, and each mode is run 3 times
// on poisoned outputs to see whether the bits repeat. Kernel times are the
// median of CUDA-event timings after warm-up; the training step is the
// median wall time of the steps (EpochRecord::epoch_ms).
//
//   bench_determinism [--quick] [--markdown FILE]
// GCC 12 reports -Wnull-dereference inside CLI11's inlined string code (a
// false positive the system-header exemption misses once inlined here).
#pragma GCC diagnostic ignored "-Wnull-dereference"
#include <CLI/CLI.hpp>
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
#include "ops/determinism.hpp"
#include "ops/sparse_plan.hpp"
#include "ops/spmm_backend.hpp"
#include "ops/spmm_choice.hpp"
#include "ops/spmm_hrpb.hpp"
#include "ops/spmm_hrpb_backend.hpp"
#include "training/nn/models.hpp"
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
  double atomic_ms = 0, deterministic_ms = 0;
  bool deterministic_identical = false, atomic_identical = false;
  double difference = 0;  // between the modes' results
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

// Checks that the modes agree, times both, and tests whether their bits
// repeat. Each run writes `c`.
void measure(Row& row, const std::function<void()>& run_atomic, const std::function<void()>& run_ordered,
             const Tensor& c, int warmup, int runs) {
  const Tensor atomic_first = run_once(run_atomic, c);
  const Tensor ordered_first = run_once(run_ordered, c);
  row.difference = bench::relative_difference(ordered_first, atomic_first);
  SGNN_CHECK(row.difference <= kAgreement, "bench_determinism: ", row.op, " on ", row.graph, " F=", row.width,
             ": the deterministic result differs from the atomic one by ", row.difference);
  row.atomic_ms = bench::median_ms(run_atomic, warmup, runs);
  row.deterministic_ms = bench::median_ms(run_ordered, warmup, runs);
  row.atomic_identical = repeats_bits(run_atomic, c, atomic_first);
  row.deterministic_identical = repeats_bits(run_ordered, c, ordered_first);
}

// The CSR SpMM with the process-wide mode set to `deterministic` for the call.
void csr_spmm(const Adjacency& a, const Tensor& b, Tensor& c, bool deterministic) {
  const ops::DeterministicScope mode(deterministic);
  ops::csr_spmm_into(a.csr, a.values, 1, b.size(1), b, c);
}

Row csr_row(const GraphCase& graph, const Adjacency& a, int64_t width, int warmup, int runs) {
  Row row{graph.name, "SpMM CSR", a.num_rows(), a.nnz(), width};
  row.split = ops::sparse_plan(a.csr)->split_segments;
  const Tensor b = bench::random_matrix({a.num_cols(), width}, 1, kGpu);
  Tensor c = Tensor::empty({a.num_rows(), width}, DType::Float32, kGpu);
  measure(row, [&] { csr_spmm(a, b, c, false); }, [&] { csr_spmm(a, b, c, true); }, c, warmup, runs);
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
  measure(
      row, [&] { ops::spmm_hrpb_forward(ops::Cuda{}, atomic, b, c); },
      [&] { ops::spmm_hrpb_forward(ops::Cuda{}, ordered, b, c); }, c, warmup, runs);
  return row;
}

struct TrainingOutcome {
  double step_ms = 0;
  std::vector<float> bits;  // every epoch's training loss, then every final weight
};

// `epochs` GCN epochs (Kipf & Welling's sizes: hidden 16, dropout 0.5) from
// seed 1, with the process-wide mode set to `deterministic`.
TrainingOutcome train(const training::TrainingData& data, int64_t classes, int64_t epochs, bool deterministic) {
  const ops::DeterministicScope mode(deterministic);
  Generator generator(1);
  const std::shared_ptr<training::Model> model =
      training::make_model({.kind = "gcn", .in_features = data.features.size(1), .classes = classes}, generator);
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

// A node-classification task on `a` (aggregated on CSR, or on HRPB when
// `hrpb`): random features (Cora's 1433 columns), labels of 7 classes,
// Planetoid-sized splits.
Row training_row(const GraphCase& graph, const Adjacency& a, bool hrpb, int64_t epochs) {
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
  // The graph as training sees it: with an HRPB build of each kind attached when asked.
  const auto prepared = [&](bool deterministic) {
    Adjacency copy = a;
    copy.hrpb.reset();
    if (!hrpb) return copy;
    graph_io::HrpbOptions options;
    options.concurrent_blocks = ops::spmm_hrpb_concurrent_blocks(kGpu, hidden);
    options.deterministic = deterministic;
    graph_io::attach_hrpb(copy, SpmmFormat::Hrpb, options);
    return copy;
  };
  const Adjacency atomic_graph = prepared(false);
  const Adjacency ordered_graph = prepared(true);
  const auto train_on = [&](const Adjacency& adjacency, bool deterministic) {
    const training::TrainingData data{training::GraphInput(adjacency), features, node_labels, range(0, 140),
                                      range(140, 640), range(n - 1000, n)};
    return train(data, classes, epochs, deterministic);
  };
  Row row{graph.name, std::string("GCN training step, ") + (hrpb ? "HRPB" : "CSR") + " (F 1433, hidden 16)", n,
          a.nnz(), hidden};
  row.split = hrpb ? ordered_graph.hrpb->forward.schedule.num_split_panels +
                         ordered_graph.hrpb->transpose.schedule.num_split_panels
                   : ops::sparse_plan(a.csr)->split_segments + ops::sparse_plan(a.transpose)->split_segments;
  const TrainingOutcome atomic = train_on(atomic_graph, false);
  const TrainingOutcome ordered = train_on(ordered_graph, true);
  const auto as_tensor = [](const std::vector<float>& bits) {
    return Tensor::from_vector(bits, {static_cast<int64_t>(bits.size())});
  };
  row.difference = bench::relative_difference(as_tensor(ordered.bits), as_tensor(atomic.bits));
  row.atomic_ms = atomic.step_ms;
  row.deterministic_ms = ordered.step_ms;
  row.atomic_identical = same_bits(atomic.bits, train_on(atomic_graph, false).bits);
  row.deterministic_identical = same_bits(ordered.bits, train_on(ordered_graph, true).bits);
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
    std::snprintf(line, sizeof line, "| %s | %lld | %lld | %s | %lld | %lld | %.4f | %.4f | %.2f | %s | %s | %.1e |\n",
                  r.graph.c_str(), static_cast<long long>(r.nodes), static_cast<long long>(r.nnz), r.op.c_str(),
                  static_cast<long long>(r.width), static_cast<long long>(r.split), r.atomic_ms, r.deterministic_ms,
                  r.deterministic_ms / r.atomic_ms, r.deterministic_identical ? "yes" : "no",
                  r.atomic_identical ? "yes" : "no", r.difference);
    out << line;
  }
  out << "\nSpMM rows: \"identical\" compares " << kRepeats
      << " runs of a mode; rel. diff is between the modes (checked ≤ 1e-5 before timing). Training rows: step ms "
         "is the median wall time of a step; \"identical\" compares two trainings of a mode (every epoch's loss "
         "and the final weights); the split count is of A and Aᵀ; rel. diff is between the modes after training "
         "(drift over the epochs, not checked).\n";
  return out.str();
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"What --deterministic costs: SpMM (CSR and HRPB) and a GCN training step, atomic vs fixed order"};
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
      std::fprintf(stderr, "%s: %lld nodes, %lld entries\n", graph.name.c_str(), static_cast<long long>(a.num_rows()),
                   static_cast<long long>(a.nnz()));
      for (const int64_t width : {16, 64, 256}) {
        rows.push_back(csr_row(graph, a, width, warmup, runs));
        rows.push_back(hrpb_row(graph, a, width, warmup, runs));
      }
      if (graph.name == cora.name) {
        for (const bool hrpb : {false, true}) rows.push_back(training_row(graph, a, hrpb, quick ? 20 : 100));
      }
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
