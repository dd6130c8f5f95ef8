// bench_sampling: mini-batch training's moving parts on one GPU (issue 48),
// each beside the roofline measured in the same run:
//   bandwidth   cudaMemcpy host (pinned) -> device, and device -> device
//   gather      the batch's feature rows (sampling::gather_rows) from device
//               memory and from host memory (pinned, and the mapped processed
//               file copied to pinned memory), GB/s of rows moved, host rows
//               also in the ids' order (the baseline of the ascending-order
//               reads); validated against the CPU gather first. Targets: host gathers >= 80 %
//               of host->device bandwidth, device gathers >= 50 % of
//               device->device bandwidth (bytes read + written, as cudaMemcpy)
//   sampling    sampled edges per second of the GPU sampler, batches of
//               --batch-size training seeds, fanouts --fanout, graph in device
//               memory and in host memory (relabelling and plans included)
//   epochs      GraphSAGE (3 layers, hidden 256) epoch times from
//               training::run_minibatch_experiment: products-scale with the
//               features on the GPU and in host memory, papers100M-scale with
//               the features in host memory; peak device and host memory.
//               Targets: 1 s, 3 s and 10 s. The median of the epochs after the
//               first (which grows the pipeline's arenas) counts.
//
//   bench_sampling --dataset DATA/products-scale [--papers DATA/papers100m-scale]
//                  [--batch-size 1024] [--fanout 15,10,5] [--epochs 3] [--quick] [--markdown FILE]
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/cuda_runtime.hpp"
#include "core/memory.hpp"
#include "graph_io/load_dataset.hpp"
#include "graph_io/prepare.hpp"
#include "sampling/feature_store.hpp"
#include "sampling/neighbor_sampler.hpp"
#include "training/minibatch_experiment.hpp"

using namespace sgnn;

namespace {

constexpr Device kGpu = Device::cuda(0);
using Clock = std::chrono::steady_clock;

struct Row {
  std::string section, name, value, baseline, ratio, note;
};

std::string format(double value, const char* unit, int digits = 1) {
  char text[64];
  std::snprintf(text, sizeof(text), "%.*f %s", digits, value, unit);
  return text;
}

// Median of `runs` timed calls after `warmup`, timed with CUDA events on `stream`.
double median_ms(const std::function<void()>& call, cudaStream_t stream, int warmup = 3, int runs = 15) {
  for (int i = 0; i < warmup; ++i) call();
  cudaEvent_t start = nullptr, stop = nullptr;
  SGNN_CUDA_CHECK(cudaEventCreate(&start));
  SGNN_CUDA_CHECK(cudaEventCreate(&stop));
  std::vector<double> times;
  for (int i = 0; i < runs; ++i) {
    SGNN_CUDA_CHECK(cudaEventRecord(start, stream));
    call();
    SGNN_CUDA_CHECK(cudaEventRecord(stop, stream));
    SGNN_CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    SGNN_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    times.push_back(ms);
  }
  (void)cudaEventDestroy(start);
  (void)cudaEventDestroy(stop);
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

struct Bandwidth {
  double host_to_device = 0;  // GB/s, pinned source
  double device_to_device = 0;  // GB/s of bytes read + written
};

Bandwidth measure_bandwidth(std::size_t bytes) {
  const cudaStream_t stream = cuda::stream(kGpu);
  const Tensor pinned = Tensor::empty_pinned({static_cast<int64_t>(bytes / 4)});
  std::memset(pinned.raw_data(), 1, pinned.nbytes());
  const Tensor a = Tensor::empty({static_cast<int64_t>(bytes / 4)}, DType::Float32, kGpu);
  const Tensor b = Tensor::empty({static_cast<int64_t>(bytes / 4)}, DType::Float32, kGpu);
  Bandwidth result;
  const double h2d = median_ms([&] { SGNN_CUDA_CHECK(cudaMemcpyAsync(a.raw_data(), pinned.raw_data(), bytes, cudaMemcpyHostToDevice, stream)); }, stream);
  const double d2d = median_ms([&] { SGNN_CUDA_CHECK(cudaMemcpyAsync(b.raw_data(), a.raw_data(), bytes, cudaMemcpyDeviceToDevice, stream)); }, stream);
  result.host_to_device = static_cast<double>(bytes) / (h2d * 1e6);
  result.device_to_device = 2.0 * static_cast<double>(bytes) / (d2d * 1e6);
  return result;
}

// Random ids in [0, n) as a batch's first block would hold them (distinct nodes).
Tensor random_rows(int64_t n, int64_t count, uint64_t seed) {
  std::mt19937_64 random(seed);
  std::uniform_int_distribution<int32_t> pick(0, static_cast<int32_t>(n - 1));
  std::vector<int32_t> ids(static_cast<std::size_t>(count));
  for (int32_t& id : ids) id = pick(random);
  return Tensor::from_vector(ids, {count});
}

void require_same_rows(const Tensor& gpu, const Tensor& cpu, const std::string& what) {
  const Tensor host = gpu.to(Device::cpu());
  if (host.nbytes() != cpu.nbytes() || std::memcmp(host.raw_data(), cpu.raw_data(), cpu.nbytes()) != 0) {
    throw Error("bench_sampling: the " + what + " gather differs from the CPU's; not timing a wrong kernel");
  }
}

// Gathers `count` random rows of `table` (host tensor) through a store of `residence`.
void bench_gather(const std::string& label, const Tensor& table, sampling::Residence residence, int64_t count,
                  const Bandwidth& bandwidth, std::vector<Row>& rows) {
  sampling::FeatureStoreOptions options;
  options.residence = residence;
  options.dtype = table.dtype();
  const sampling::FeatureStore store(table, kGpu, options);
  const Tensor ids = random_rows(table.size(0), count, 5);
  const Tensor device_ids = ids.to(kGpu);
  const sampling::FeatureStore reference(table, Device::cpu(), options);
  require_same_rows(store.gather(device_ids), reference.gather(ids), label);
  // A host store's first gathers are its readers' trials (sampling/gather.hpp):
  // the timed runs are those of the way it chose.
  for (int trial = 0; residence == sampling::Residence::Host && !store.split_trials().chosen &&
                      trial < sampling::kSplitTrialGathers;
       ++trial) {
    (void)store.gather(device_ids);
  }
  const double ms = median_ms([&] { (void)store.gather(device_ids); }, cuda::stream(kGpu));
  const double row_bytes = static_cast<double>(table.size(1) * static_cast<int64_t>(dtype_size(table.dtype())));
  const double moved = static_cast<double>(count) * row_bytes;
  if (residence == sampling::Residence::Host) {
    // Beside the store's gather (the GPU and host threads at the measured
    // share): the GPU alone in ascending id order, and in the ids' order.
    Tensor out = Tensor::empty({count, table.size(1)}, table.dtype(), kGpu);
    const auto gpu_alone_ms = [&](bool ascending) {
      const sampling::RowSource source{store.table().raw_data(), table.dtype(), table.size(0), table.size(1), ascending};
      return median_ms([&] { sampling::gather_rows(source, device_ids, out, sampling::WorkContext::on(kGpu)); },
                       cuda::stream(kGpu));
    };
    const double sorted_ms = gpu_alone_ms(true);
    const double given_ms = gpu_alone_ms(false);
    const double rate = moved / (ms * 1e6);
    // The store's own choice: its trial gathers, the GPU alone and the best shared one.
    const sampling::FeatureStore::SplitTrials trials = store.split_trials();
    const auto trial_rate = [&](double rows_per_ms) { return format(rows_per_ms * row_bytes / 1e6, "GB/s"); };
    rows.push_back({"gather", label, format(rate, "GB/s"), format(bandwidth.host_to_device, "GB/s H2D"),
                    format(100.0 * rate / bandwidth.host_to_device, "%", 1),
                    "target >= 80 %; GPU share " + format(100.0 * store.gpu_read_share(), "%", 0) +
                        (store.gpu_read_share() == 0.0 && trials.ring ? ", through a ring" : "") +
                        " (choice's trials: GPU alone " + trial_rate(trials.gpu_alone_rows_per_ms) +
                        ", shared at best " + trial_rate(trials.best_shared_rows_per_ms) + ", host threads alone " +
                        trial_rate(trials.host_alone_rows_per_ms) + ", through a ring " +
                        trial_rate(trials.host_ring_rows_per_ms) + "); GPU alone " +
                        format(moved / (sorted_ms * 1e6), "GB/s") + ", ids' order " +
                        format(moved / (given_ms * 1e6), "GB/s")});
  } else {
    const double rate = 2.0 * moved / (ms * 1e6);  // read + write, as the device copy counts
    rows.push_back({"gather", label, format(rate, "GB/s"), format(bandwidth.device_to_device, "GB/s D2D"),
                    format(100.0 * rate / bandwidth.device_to_device, "%", 1), "target >= 50 %"});
  }
}

void bench_sampler(const std::string& label, const Csr& csr, sampling::Residence residence, const Tensor& train,
                   const std::vector<int64_t>& fanouts, int64_t batch_size, int batches, std::vector<Row>& rows) {
  sampling::SamplerOptions options;
  options.fanouts = fanouts;
  const sampling::NeighborSampler sampler(std::make_shared<const sampling::SamplingGraph>(csr, kGpu, residence), options);
  const int64_t available = train.numel() / batch_size;
  const int total = std::min<int>(batches + 3, static_cast<int>(std::max<int64_t>(available, 1)));
  std::vector<Tensor> seeds;
  for (int b = 0; b < total; ++b) seeds.push_back(train.narrow_rows(b * batch_size, std::min(train.numel(), (b + 1) * batch_size)).to(kGpu));
  int64_t edges = 0;
  for (int b = 0; b < std::min(3, total); ++b) (void)sampler.sample(seeds[static_cast<std::size_t>(b)], static_cast<uint64_t>(b));
  memory::synchronize(kGpu);
  const Clock::time_point start = Clock::now();
  for (int b = std::min(3, total); b < total; ++b) {
    for (const sampling::Block& block : sampler.sample(seeds[static_cast<std::size_t>(b)], static_cast<uint64_t>(b))) {
      edges += block.num_edges();
    }
  }
  memory::synchronize(kGpu);
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  const int timed = total - std::min(3, total);
  rows.push_back({"sampling", label, format(static_cast<double>(edges) / seconds / 1e6, "M edges/s"),
                  format(seconds * 1e3 / std::max(timed, 1), "ms/batch", 2), "",
                  std::to_string(timed) + " batches"});
}

void bench_epochs(const std::string& label, training::MinibatchOptions options, std::vector<Row>& rows,
                  double target_seconds) {
  const training::MinibatchResult r = training::run_minibatch_experiment(options);
  std::vector<training::MinibatchEpochRecord> later(r.fit.history.begin() + (r.fit.history.size() > 1 ? 1 : 0),
                                                     r.fit.history.end());
  std::sort(later.begin(), later.end(), [](const auto& a, const auto& b) { return a.train_seconds < b.train_seconds; });
  const training::MinibatchEpochRecord& median_epoch = later[later.size() / 2];
  const double epoch = median_epoch.train_seconds;
  std::ostringstream note;
  note << "graph " << r.graph_residence << ", features " << r.feature_residence << ", first epoch "
       << format(r.fit.history.front().train_seconds, "s", 2) << ", " << format(r.seeds_per_second, "seeds/s", 0)
       << ", peak device " << format(static_cast<double>(r.peak_device_bytes) / 1073741824.0, "GiB", 2)
       << ", peak host " << format(static_cast<double>(r.peak_host_bytes) / 1073741824.0, "GiB", 2);
  if (r.fit.best_epoch > 0) note << ", test accuracy " << format(100.0 * r.test_accuracy, "%", 2);
  if (!r.feature_readers.empty()) note << ", feature gathers: " << r.feature_readers;
  note << "; that epoch's host time: sampling " << format(median_epoch.stages.sampling, "s", 2) << ", gathering "
       << format(median_epoch.stages.gathering, "s", 2) << ", the trainer waiting "
       << format(median_epoch.stages.waiting, "s", 2);
  rows.push_back({"epoch", label, format(epoch, "s", 3), format(target_seconds, "s target", 0),
                  format(epoch / target_seconds, "x target", 2), note.str()});
}

void print(const std::vector<Row>& rows, std::ostream& out, bool markdown) {
  if (markdown) {
    out << "| part | case | ours | baseline | ratio | notes |\n|---|---|---|---|---|---|\n";
  }
  for (const Row& row : rows) {
    if (markdown) {
      out << "| " << row.section << " | " << row.name << " | " << row.value << " | " << row.baseline << " | "
          << row.ratio << " | " << row.note << " |\n";
    } else {
      char line[512];
      std::snprintf(line, sizeof(line), "%-9s %-44s %-16s %-20s %-12s %s\n", row.section.c_str(), row.name.c_str(),
                    row.value.c_str(), row.baseline.c_str(), row.ratio.c_str(), row.note.c_str());
      out << line;
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Mini-batch training's sampling, gathers and epochs on one GPU, beside the bandwidth measured in the same run"};
  std::string products, papers, markdown;
  int64_t batch_size = 1024;
  std::vector<int64_t> fanouts{15, 10, 5};
  int64_t epochs = 3;
  bool quick = false;
  double feature_cache_gib = 0.0;
  app.add_option("--dataset", products, "the products-scale dataset (sgnn_gen --preset products-scale)")->required();
  app.add_option("--papers", papers, "the papers100M-scale dataset (sgnn_gen --preset papers100m-scale)");
  app.add_option("--batch-size", batch_size, "seeds per batch (default 1024)");
  app.add_option("--fanout", fanouts, "fanouts (default 15,10,5)")->delimiter(',');
  app.add_option("--epochs", epochs, "epochs per training case; the first is not counted (default 3)");
  app.add_flag("--quick", quick, "gathers and sampling only (no epochs)");
  app.add_option("--feature-cache", feature_cache_gib,
                 "also a papers100M-scale epoch with a device cache of this many GiB of the highest-degree nodes' features");
  app.add_option("--markdown", markdown, "also write the table as markdown here");
  CLI11_PARSE(app, argc, argv);
  try {
    require_available(kGpu);
    std::vector<Row> rows;
    const Bandwidth bandwidth = measure_bandwidth(std::size_t{1} << 30);
    rows.push_back({"bandwidth", "cudaMemcpy host (pinned) -> device, 1 GiB", format(bandwidth.host_to_device, "GB/s"), "", "", ""});
    rows.push_back({"bandwidth", "cudaMemcpy device -> device, 1 GiB (read + write)", format(bandwidth.device_to_device, "GB/s"), "", "", ""});

    graph_io::Dataset dataset = graph_io::load_dataset(products);
    const int64_t gather_rows = 1 << 20;  // about a batch's input layer at 1024 seeds, 15,10,5
    bench_gather("products features fp32 [N, 100], device", dataset.features, sampling::Residence::Device, gather_rows,
                 bandwidth, rows);
    Tensor pinned = Tensor::empty_pinned(dataset.features.shape(), dataset.features.dtype());
    std::memcpy(pinned.raw_data(), dataset.features.raw_data(), dataset.features.nbytes());
    bench_gather("products features fp32 [N, 100], pinned host", pinned, sampling::Residence::Host, gather_rows,
                 bandwidth, rows);
    pinned = Tensor();

    graph_io::PrepareOptions prepare;
    prepare.symmetrize = true;
    prepare.self_loops = graph_io::SelfLoops::Remove;
    prepare.duplicates = graph_io::Duplicates::Drop;
    prepare.edge_map = false;
    prepare.device = kGpu;
    graph_io::EdgeList edges = dataset.edges;
    edges.weight = Tensor();
    const Csr csr = graph_io::prepare_adjacency(edges, prepare).csr;
    const Tensor train = dataset.train_index;
    bench_sampler("products, graph on the device", csr, sampling::Residence::Device, train, fanouts, batch_size, 40, rows);
    bench_sampler("products, graph in host memory", csr.to(Device::cpu()), sampling::Residence::Host, train, fanouts,
                  batch_size, 40, rows);

    if (!papers.empty()) {
      const graph_io::Dataset big = graph_io::load_dataset(papers);
      bench_gather("papers features bf16 [N, 128], mapped file, pinned copy", big.features, sampling::Residence::Host, gather_rows,
                   bandwidth, rows);
      if (!quick) {
        bench_sampler("papers, graph on the device", big.csr, sampling::Residence::Device, big.train_index, fanouts,
                      batch_size, 40, rows);
      }
    }

    if (!quick) {
      training::MinibatchOptions options;
      options.dataset = products;
      options.device = "cuda";
      options.batch_size = batch_size;
      options.fanouts = fanouts;
      options.epochs = epochs;
      options.eval_from = epochs;  // one evaluation, after the timed epochs
      options.evaluate_train = false;
      options.train_nodes = 196615;  // ogbn-products' training split (the preset's holds 60 % of the nodes)
      options.feature_residence = "device";
      bench_epochs("products-scale, features on the GPU", options, rows, 1.0);
      options.feature_residence = "host";
      bench_epochs("products-scale, features in host memory", options, rows, 3.0);
      if (!papers.empty()) {
        options.dataset = papers;
        options.train_nodes = 0;  // the preset's 1.2M, as ogbn-papers100M's
        options.evaluate = false;
        bench_epochs("papers100M-scale, features in host memory", options, rows, 10.0);
        if (feature_cache_gib > 0.0) {
          options.feature_cache_bytes = static_cast<int64_t>(feature_cache_gib * 1073741824.0);
          std::ostringstream label;
          label << "papers100M-scale, features in host memory, device cache " << feature_cache_gib << " GiB";
          bench_epochs(label.str(), options, rows, 10.0);
        }
      }
    }
    std::printf("%s\n", cuda::properties(kGpu).name);
    print(rows, std::cout, false);
    if (!markdown.empty()) {
      std::ofstream out(markdown);
      out << "Device: " << cuda::properties(kGpu).name << "\n\n";
      print(rows, out, true);
    }
    return 0;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "bench_sampling: %s\n", error.what());
    return 1;
  }
}
