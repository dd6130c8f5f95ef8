// bench_dense: the dense CUDA ops of a GCN/GAT training step at the sizes
// those models use. Every case is validated against the CPU backend before it
// is timed (matmul on its first 256 rows); times are the median of 25 runs
// after 5 warm-up runs, measured with CUDA events on the library's stream.
//
// Columns: ms, the achieved rate (TFLOP/s for matmul, GB/s of compulsory
// traffic otherwise), and a ratio to a baseline measured in the same run:
//   matmul           fp32 cuBLAS vs TF32 cuBLAS (the same call, TF32 allowed)
//   narrow product   (at most 64 output columns) our 3xTF32 kernel
//                    (ops/cuda/gemm_narrow.hpp) and the timed choice against
//                    cuBLAS's default algorithm, the one a deterministic run
//                    and PyTorch call
//   memory-bound op  fraction of the bandwidth of a device-to-device
//                    cudaMemcpyAsync of the same bytes (the practical roofline)
//   bias_activation  speed-up over the unfused add + relu (forward + backward)
//
// The broadcasting binary ops time a column [N, 1] over [N, D], a per-head
// [N, H, 1] over [N, H, D] and the strided form [N, 1, D] over [N, H, D]
// (float32, and the column in bfloat16); batch_norm and layer_norm their
// forward (training statistics) and forward + backward. Their GB/s count the
// traffic of our passes: batch_norm's forward reads x twice (statistics,
// then normalising) and writes y; its backward reads grad and x twice (the
// sums, then grad_x) and writes grad_x; layer_norm reads a row once from
// memory (its second pass hits the cache).
//
//   bench_dense [--quick] [--markdown FILE]
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

#include "bench/support/bench_graphs.hpp"
#include "bench/support/bench_support.hpp"
#include "core/cuda_runtime.hpp"
#include "ops/activation.hpp"
#include "ops/cast.hpp"
#include "ops/bias_activation.hpp"
#include "ops/dropout.hpp"
#include "ops/determinism.hpp"
#include "ops/elementwise.hpp"
#include "ops/gemm_choices.hpp"
#include "ops/loss.hpp"
#include "ops/matmul.hpp"
#include "ops/matmul_backend.hpp"
#include "ops/normalization.hpp"
#include "ops/optimizer_step.hpp"
#include "ops/softmax.hpp"

using namespace sgnn;

namespace {

constexpr Device kGpu = Device::cuda(0);
constexpr int kWarmup = 5;
constexpr int kRuns = 25;

// Uniform in [-1, 1) on the GPU.
Tensor random_matrix(const Shape& shape, uint64_t seed) { return bench::random_matrix(shape, seed, kGpu); }

void require_close(const char* what, const Tensor& got, const Tensor& reference, double tolerance) {
  const double difference = bench::relative_difference(got, reference);
  if (!(difference <= tolerance)) {
    throw Error(detail::concat("bench_dense: ", what, " differs from the CPU backend (relative error ", difference,
                               " > ", tolerance, "); not timing a wrong kernel"));
  }
}

double median_ms(const std::function<void()>& call) { return bench::median_ms(call, kWarmup, kRuns, kGpu); }

// Milliseconds of a device-to-device copy of `bytes` (read + write = 2·bytes of traffic).
// Rounded up to whole floats, at least one (a zero-size copy has no buffer).
double copy_ms(std::size_t bytes) {
  const auto elements = static_cast<int64_t>(std::max<std::size_t>(1, (bytes + 3) / 4));
  const Tensor source = Tensor::zeros({elements}, DType::Float32, kGpu);
  Tensor destination = Tensor::empty({elements}, DType::Float32, kGpu);
  return median_ms([&] {
    SGNN_CUDA_CHECK(cudaMemcpyAsync(destination.raw_data(), source.raw_data(), destination.nbytes(),
                                    cudaMemcpyDeviceToDevice, cuda::stream(kGpu)));
  });
}

struct Row {
  std::string name, shape;
  double ms, rate;
  std::string unit;
  double ratio;
  std::string baseline;
};

void print(const std::vector<Row>& rows, std::ostream& out, bool markdown) {
  char line[512];
  if (markdown) {
    out << "| case | shape | ms | rate | vs baseline | baseline |\n|---|---|---:|---:|---:|---|\n";
  } else {
    std::snprintf(line, sizeof line, "%-28s %-24s %10s %14s %12s  %s\n", "case", "shape", "ms", "rate", "vs base",
                  "baseline");
    out << line;
  }
  for (const Row& r : rows) {
    if (markdown) {
      std::snprintf(line, sizeof line, "| %s | %s | %.4f | %.2f %s | %.2f | %s |\n", r.name.c_str(), r.shape.c_str(),
                    r.ms, r.rate, r.unit.c_str(), r.ratio, r.baseline.c_str());
    } else {
      std::snprintf(line, sizeof line, "%-28s %-24s %10.4f %9.2f %-4s %12.2f  %s\n", r.name.c_str(), r.shape.c_str(),
                    r.ms, r.rate, r.unit.c_str(), r.ratio, r.baseline.c_str());
    }
    out << line;
  }
}

std::string shape_text(std::initializer_list<int64_t> extents) {
  std::ostringstream text;
  const char* separator = "";
  for (int64_t e : extents) {
    text << separator << e;
    separator = "x";
  }
  return text.str();
}

void bench_matmul(int64_t m, int64_t k, int64_t n, std::vector<Row>& rows) {
  const Tensor a = random_matrix({m, k}, 1);
  const Tensor b = random_matrix({k, n}, 2);
  const int64_t check_rows = std::min<int64_t>(m, 256);
  const Tensor reference = ops::matmul(a.narrow_rows(0, check_rows).to(Device::cpu()), b.to(Device::cpu()));
  ops::set_allow_tf32(false);
  require_close("matmul fp32", ops::matmul(a, b).narrow_rows(0, check_rows), reference, 1e-5);
  const double fp32 = median_ms([&] { (void)ops::matmul(a, b); });
  ops::set_allow_tf32(true);
  require_close("matmul tf32", ops::matmul(a, b).narrow_rows(0, check_rows), reference, 5e-3);
  const double tf32 = median_ms([&] { (void)ops::matmul(a, b); });
  ops::set_allow_tf32(false);
  const double flops = 2.0 * static_cast<double>(m) * static_cast<double>(k) * static_cast<double>(n);
  rows.push_back({"matmul fp32", shape_text({m, k, n}), fp32, flops / fp32 / 1e9, "TF/s", 1.0, "itself"});
  rows.push_back({"matmul tf32", shape_text({m, k, n}), tf32, flops / tf32 / 1e9, "TF/s", fp32 / tf32, "fp32"});
}

// c [m, n] = x [m, k] · w [k, n] three ways: cuBLAS's default (deterministic
// mode), our 3xTF32 kernel (its stored choice), and the timed choice (the
// fastest of cuBLASLt's candidates and ours; the baseline column names what won).
void bench_narrow(int64_t m, int64_t k, int64_t n, std::vector<Row>& rows) {
  const Tensor x = random_matrix({m, k}, 3);
  const Tensor w = random_matrix({k, n}, 4);
  const int64_t check_rows = std::min<int64_t>(m, 256);
  const Tensor reference = ops::matmul(x.narrow_rows(0, check_rows).to(Device::cpu()), w.to(Device::cpu()));
  Tensor product = Tensor::empty({m, n}, DType::Float32, kGpu);
  const auto forward = [&] { ops::matmul_forward(ops::Cuda{}, x, false, w, false, product); };
  const auto time_checked = [&](const std::string& what) {
    forward();
    require_close((what + " " + shape_text({m, k, n})).c_str(), product.narrow_rows(0, check_rows), reference, 1e-5);
    return median_ms(forward);
  };
  const double flops = 2.0 * static_cast<double>(m) * static_cast<double>(k) * static_cast<double>(n);
  const std::string shape = shape_text({m, k, n});
  ops::set_allow_tf32(false);
  ops::set_deterministic(true);
  const double by_default = time_checked("cuBLAS default");
  ops::set_deterministic(false);
  ops::forget_gemm_choices();
  const double chosen = time_checked("timed choice");
  const ops::KernelChoiceMap choices = ops::gemm_choices();
  ops::KernelChoiceMap narrow;
  for (const auto& [key, variant] : choices) narrow[key] = "sgnn:3xtf32";
  ops::forget_gemm_choices();
  ops::import_gemm_choices(narrow);
  const double ours = time_checked("3xTF32 narrow");
  ops::forget_gemm_choices();
  const std::string won = !choices.empty() && choices.begin()->second.starts_with("sgnn") ? "ours" : "cuBLASLt";
  rows.push_back({"narrow cuBLAS default", shape, by_default, flops / by_default / 1e9, "TF/s", 1.0, "itself"});
  rows.push_back({"narrow 3xTF32", shape, ours, flops / ours / 1e9, "TF/s", by_default / ours, "cuBLAS default"});
  rows.push_back({"narrow timed choice", shape, chosen, flops / chosen / 1e9, "TF/s", by_default / chosen,
                  "cuBLAS default; chose " + won});
}

// A memory-bound case: `bytes` of compulsory traffic, compared with a copy moving the same traffic.
void add_bandwidth_row(const std::string& name, const std::string& shape, double ms, double bytes,
                       std::vector<Row>& rows) {
  const double copy = copy_ms(static_cast<std::size_t>(bytes / 2.0));
  rows.push_back({name, shape, ms, bytes / ms / 1e6, "GB/s", copy / ms, "D2D memcpy"});
}

void bench_memory_bound(int64_t nodes, int64_t width, int64_t classes, std::vector<Row>& rows) {
  const double f = 4.0;  // bytes per float
  const double cells = static_cast<double>(nodes * width);
  const Tensor x = random_matrix({nodes, width}, 3);
  const Tensor bias = random_matrix({width}, 4);
  const Tensor x_cpu = x.to(Device::cpu()), bias_cpu = bias.to(Device::cpu());
  const std::string shape = shape_text({nodes, width});

  require_close("add", ops::add(x, bias), ops::add(x_cpu, bias_cpu), 1e-6);
  add_bandwidth_row("add bias", shape, median_ms([&] { (void)ops::add(x, bias); }), 2 * cells * f, rows);

  Generator gpu_generator(1), cpu_generator(1);
  require_close("dropout", ops::dropout(x, 0.5f, true, gpu_generator), ops::dropout(x_cpu, 0.5f, true, cpu_generator),
                0.0);
  add_bandwidth_row("dropout p=0.5", shape, median_ms([&] { (void)ops::dropout(x, 0.5f, true, gpu_generator); }),
                    2 * cells * f, rows);

  // Fused epilogue, forward + backward, against add + relu.
  Tensor xg = x.clone(), bg = bias.clone();
  xg.set_requires_grad(true);
  bg.set_requires_grad(true);
  const Tensor grad = random_matrix({nodes, width}, 5);
  // Gradients are dropped before each run so that no accumulation kernel is timed.
  auto fused = [&] {
    xg.zero_grad();
    bg.zero_grad();
    ops::bias_activation(xg, bg, ops::FusedActivation::Relu).backward(grad);
  };
  auto unfused = [&] {
    xg.zero_grad();
    bg.zero_grad();
    ops::relu(ops::add(xg, bg)).backward(grad);
  };
  require_close("bias_activation", ops::bias_activation(x, bias, ops::FusedActivation::Relu),
                ops::relu(ops::add(x_cpu, bias_cpu)), 1e-6);
  const double fused_ms = median_ms(fused);
  const double unfused_ms = median_ms(unfused);
  // Compulsory traffic: forward reads x, writes y; backward reads y, dy, writes dx.
  rows.push_back({"bias+relu fused fwd+bwd", shape, fused_ms, 5 * cells * f / fused_ms / 1e6, "GB/s",
                  unfused_ms / fused_ms, "add+relu"});

  const Tensor logits = random_matrix({nodes, classes}, 6);
  const Tensor logits_cpu = logits.to(Device::cpu());
  const std::string logit_shape = shape_text({nodes, classes});
  const double logit_cells = static_cast<double>(nodes * classes);
  require_close("log_softmax", ops::log_softmax(logits), ops::log_softmax(logits_cpu), 1e-5);
  add_bandwidth_row("log_softmax", logit_shape, median_ms([&] { (void)ops::log_softmax(logits); }),
                    2 * logit_cells * f, rows);

  std::mt19937_64 engine(7);
  std::vector<int32_t> labels(static_cast<std::size_t>(nodes));
  for (int32_t& label : labels) label = static_cast<int32_t>(engine() % static_cast<uint64_t>(classes));
  const Tensor labels_cpu = Tensor::from_vector(labels, {nodes});
  const Tensor labels_gpu = labels_cpu.to(kGpu);
  Tensor logits_grad = logits.clone();
  logits_grad.set_requires_grad(true);
  require_close("cross_entropy", ops::cross_entropy(logits, labels_gpu), ops::cross_entropy(logits_cpu, labels_cpu),
                1e-5);
  add_bandwidth_row("cross_entropy fwd+bwd", logit_shape,
                    median_ms([&] {
                      logits_grad.zero_grad();
                      ops::cross_entropy(logits_grad, labels_gpu).backward();
                    }),
                    3 * logit_cells * f, rows);

  Tensor p = x.clone(), m, v;
  int64_t step = 0;
  add_bandwidth_row("adam_step", shape, median_ms([&] { ops::adam_step(p, grad, m, v, ++step, {}); }),
                    7 * cells * f, rows);  // reads p, g, m, v; writes p, m, v
}

// The broadcasting binary ops: a column, a per-head value, the strided form, and a bfloat16 column.
void bench_broadcast(int64_t nodes, int64_t heads, int64_t width, std::vector<Row>& rows) {
  const double cells = static_cast<double>(nodes * heads * width);
  const std::string shape = shape_text({nodes, heads, width});
  struct Case {
    const char* name;
    Shape big, small;
    DType dtype;
  };
  const Case cases[] = {{"mul column [N,1]", {nodes, heads * width}, {nodes, 1}, DType::Float32},
                        {"mul column [N,1] bf16", {nodes, heads * width}, {nodes, 1}, DType::BFloat16},
                        {"mul per-head [N,H,1]", {nodes, heads, width}, {nodes, heads, 1}, DType::Float32},
                        {"sub strided [N,1,D]", {nodes, heads, width}, {nodes, 1, width}, DType::Float32}};
  for (const Case& c : cases) {
    const Tensor x = ops::cast(random_matrix(c.big, 11), c.dtype);
    const Tensor small = ops::cast(random_matrix(c.small, 12), c.dtype);
    const bool subtract = c.name[0] == 's';
    auto run = [&](const Tensor& a, const Tensor& b) { return subtract ? ops::sub(a, b) : ops::mul(a, b); };
    // Compared in float32; a bfloat16 result may differ by its one rounding (2^-8 relative).
    const double tolerance = c.dtype == DType::BFloat16 ? 4e-3 : 1e-6;
    require_close(c.name, ops::cast(run(x, small), DType::Float32),
                  ops::cast(run(x.to(Device::cpu()), small.to(Device::cpu())), DType::Float32), tolerance);
    const double element = c.dtype == DType::BFloat16 ? 2.0 : 4.0;
    const double small_cells = static_cast<double>(small.numel());
    add_bandwidth_row(c.name, shape, median_ms([&] { (void)run(x, small); }), (2 * cells + small_cells) * element, rows);
  }
}

// batch_norm (training) and layer_norm on [N, C], forward and forward + backward.
void bench_normalization(int64_t nodes, int64_t channels, std::vector<Row>& rows) {
  const double f = 4.0;
  const double cells = static_cast<double>(nodes * channels);
  const double parameters = static_cast<double>(channels) * f;
  const std::string shape = shape_text({nodes, channels});
  Tensor x = random_matrix({nodes, channels}, 13);
  Tensor weight = Tensor::full({channels}, 1.0, DType::Float32, kGpu), bias = Tensor::zeros({channels}, DType::Float32, kGpu);
  const ops::RunningStatistics running{Tensor::zeros({channels}, DType::Float32, kGpu),
                                       Tensor::full({channels}, 1.0, DType::Float32, kGpu), Tensor()};
  const Tensor x_cpu = x.to(Device::cpu());
  const ops::RunningStatistics running_cpu{Tensor::zeros({channels}), Tensor::full({channels}, 1.0), Tensor()};
  require_close("batch_norm", ops::batch_norm(x, weight, bias, running, true),
                ops::batch_norm(x_cpu, weight.to(Device::cpu()), bias.to(Device::cpu()), running_cpu, true), 1e-5);
  require_close("layer_norm", ops::layer_norm(x, weight, bias),
                ops::layer_norm(x_cpu, weight.to(Device::cpu()), bias.to(Device::cpu())), 1e-5);
  add_bandwidth_row("batch_norm fwd", shape,
                    median_ms([&] { (void)ops::batch_norm(x, weight, bias, running, true); }),
                    3 * cells * f + 2 * parameters, rows);
  add_bandwidth_row("layer_norm fwd", shape, median_ms([&] { (void)ops::layer_norm(x, weight, bias); }),
                    2 * cells * f + 2 * parameters, rows);

  const Tensor grad = random_matrix({nodes, channels}, 14);
  x.set_requires_grad(true);
  weight.set_requires_grad(true);
  bias.set_requires_grad(true);
  // Gradients are dropped before each run so that no accumulation kernel is timed.
  auto zero = [&] {
    x.zero_grad();
    weight.zero_grad();
    bias.zero_grad();
  };
  add_bandwidth_row("batch_norm fwd+bwd", shape, median_ms([&] {
                      zero();
                      ops::batch_norm(x, weight, bias, running, true).backward(grad);
                    }),
                    8 * cells * f + 4 * parameters, rows);
  add_bandwidth_row("layer_norm fwd+bwd", shape, median_ms([&] {
                      zero();
                      ops::layer_norm(x, weight, bias).backward(grad);
                    }),
                    7 * cells * f + 4 * parameters, rows);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"bench_dense: dense CUDA ops of GCN/GAT training"};
  bool quick = false;
  std::string markdown;
  app.add_flag("--quick", quick, "Cora-sized cases only");
  app.add_option("--markdown", markdown, "also write the table as Markdown to this file");
  CLI11_PARSE(app, argc, argv);
  try {
    require_available(kGpu);
    std::vector<Row> rows;
    bench_matmul(2708, 1433, 16, rows);  // Cora, GCN layer 1
    bench_matmul(2708, 1433, 64, rows);  // Cora, GAT layer 1 (8 heads x 8)
    bench_narrow(2708, 1433, 16, rows);  // Cora, GCN layer 1
    bench_narrow(2708, 16, 7, rows);     // Cora, GCN layer 2
    bench_memory_bound(2708, 64, 7, rows);
    bench_broadcast(2708, 8, 8, rows);  // Cora, GAT layer 1 (8 heads x 8)
    bench_normalization(2708, 64, rows);
    if (!quick) {
      bench_matmul(169343, 128, 256, rows);  // ogbn-arxiv
      bench_matmul(232965, 602, 256, rows);  // Reddit
      bench_narrow(232965, 602, 41, rows);   // Reddit, SGC
      bench_narrow(169343, 128, 40, rows);   // ogbn-arxiv, SGC
      bench_narrow(2449029, 100, 47, rows);  // ogbn-products, SGC
      bench_narrow(232965, 128, 41, rows);   // Reddit, GCN's last layer
      bench_memory_bound(232965, 256, 41, rows);
      bench_broadcast(232965, 8, 32, rows);  // Reddit, 8 heads x 32
      bench_normalization(232965, 256, rows);
    }
    const cudaDeviceProp& properties = cuda::properties(kGpu);
    std::printf("device: %s\n", properties.name);
    std::ostringstream table;
    print(rows, table, false);
    std::fputs(table.str().c_str(), stdout);
    if (!markdown.empty()) {
      std::ofstream file(markdown);
      file << "Device: " << properties.name << " — median of " << kRuns << " runs after " << kWarmup
           << " warm-up runs\n\n";
      print(rows, file, true);
    }
  } catch (const std::exception& error) {
    std::fprintf(stderr, "%s\n", error.what());
    return 1;
  }
  return 0;
}
