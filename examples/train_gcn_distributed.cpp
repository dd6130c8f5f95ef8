// train_gcn_distributed: full-graph GCN or GAT training with one process per
// rank (one per GPU, or per CPU rank), across the GPUs of one host or of
// several. Three ways to start it (distributed/launch.hpp):
//
//   mpirun -np 4 train_gcn_distributed --partitions parts/products-4 --device cuda
//   srun -n 8 --gpus-per-task 1 train_gcn_distributed --partitions P --device cuda --rendezvous /shared/run.id
//   train_gcn_distributed --dataset cora                       # one process, one rank
//
// Under MPI, GPUs talk over NCCL (the unique id broadcast over MPI) and CPU
// ranks over MPI. Without MPI (--rendezvous FILE, or $SGNN_RENDEZVOUS) rank 0
// writes NCCL's id to a shared file the others wait for: GPUs only. Each rank
// reads only its file of a partition made once by sgnn_partition
// (--partitions), or partitions the dataset itself (--dataset: every process
// then holds the whole graph while it partitions). Losses equal single-process
// training (dropout masks aside). A rank that fails ends every rank, which
// exit non-zero naming the failed rank and why (docs/distributed.md).
// The models whose layers run on row partitions: gcn and gat; their flags
// come from the model registry (examples/model_flags.hpp).
// GCC 12 reports -Wnull-dereference inside CLI11's inlined string code (a
// false positive the system-header exemption misses).
#pragma GCC diagnostic ignored "-Wnull-dereference"
#include <CLI/CLI.hpp>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>

#include "core/device.hpp"
#include "distributed/integer_collectives.hpp"
#include "distributed/launch.hpp"
#include "distributed/mpi_communicator.hpp"
#include "distributed/nccl_process.hpp"
#include "distributed/partition_files.hpp"
#include "distributed/rank_training.hpp"
#include "distributed/rendezvous.hpp"
#include "distributed/thread_communicator.hpp"
#include "distributed/watchdog.hpp"
#include "graph_io/load_dataset.hpp"
#include "examples/model_flags.hpp"
#include "training/experiment.hpp"
#include "training/output/json.hpp"

using namespace sgnn;
using namespace sgnn::distributed;

namespace {

struct Options {
  std::string partitions;
  std::string dataset;
  std::string model = "gcn";
  std::string device = "cpu";
  std::map<std::string, std::string> hyperparameters;  // given; the others take the model's defaults for the dataset
  uint64_t seed = 0;
  bool row_normalize_features = true;
  training::Precision precision = training::Precision::Fp32;
  std::string halo = "auto";
  bool print_json = false;
  LaunchFlags launch;
  double rendezvous_timeout = 300;  // seconds
  double progress_timeout = 600;    // seconds, 0 = none
};

// The registered models this program trains: those whose layers run on row partitions.
const std::vector<std::string> kRowPartitionModels{"gcn", "gat"};

// What the failure path needs to end this rank and tell the others.
struct Process {
  Launch launch;
  std::unique_ptr<MpiSession> mpi;
  std::atomic<NcclProcessRank*> nccl{nullptr};
  int rank = 0;
  int size = 1;

  RendezvousKey key() const { return {launch.run_id, launch.world_size}; }

  // Ends this process (and under MPI the whole job) after saying which rank failed and why.
  // Off the main thread (the watchdog) MPI is not called: mpirun ends the job when a rank exits anyway.
  [[noreturn]] void fail(const std::string& reason, bool own_failure, bool main_thread = true) {
    std::fprintf(stderr, "train_gcn_distributed: rank %d of %d%s: %s\n", rank, size,
                 mpi ? (" on " + mpi->host_name()).c_str() : "", reason.c_str());
    std::fflush(stderr);
    if (own_failure && launch.mode == LaunchMode::Rendezvous) {
      (void)report_rank_failure(launch.rendezvous, key(), rank, reason);
    }
    if (NcclProcessRank* communicator = nccl.load()) communicator->abort();
    if (mpi && main_thread) mpi->abort(1);  // every rank of the job
    std::_Exit(1);
  }
};

// This rank's shard: its partition file, or its part of the dataset partitioned here.
RankFile load_shard(const Options& options, int rank, int size) {
  if (!options.partitions.empty()) return read_rank_file(options.partitions, rank, size);
  const graph_io::Dataset dataset = graph_io::load_dataset(options.dataset);
  SGNN_CHECK(dataset.features.defined() && dataset.labels.defined() && dataset.train_index.defined() &&
                 dataset.valid_index.defined(),
             "dataset ", dataset.name, " lacks features, labels or train/valid splits");
  const graph_io::Graph graph = graph_io::make_graph(dataset, graph_io::gcn_graph_options(), Device::cpu());
  SGNN_CHECK(graph.num_nodes >= size, graph.num_nodes, " nodes cannot fill ", size, " ranks");
  const GraphPartition partition = partition_graph(graph.adjacency, size);
  RankFile file;
  file.shard = make_rank_shard(partition, rank, graph.features, graph.labels, graph.train_index, graph.valid_index,
                               graph.test_index, graph.num_classes);
  file.info.dataset = dataset.name;
  return file;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values.empty() ? 0.0 : values[values.size() / 2];
}

void report(const Options& options, const Process& process, const RankFile& file, const RankTrainingOptions& training,
            const RankTrainingResult& result, const std::vector<std::vector<int64_t>>& sizes,
            const std::vector<std::vector<int64_t>>& bytes, const std::string& transport) {
  std::vector<double> epoch_ms;
  std::vector<int64_t> epoch_bytes;
  for (std::size_t epoch = 0; epoch < result.epochs.size(); ++epoch) {
    epoch_ms.push_back(result.epochs[epoch].epoch_ms);
    int64_t total = 0;
    for (const std::vector<int64_t>& rank_bytes : bytes) total += rank_bytes[epoch];
    epoch_bytes.push_back(total);
  }
  double squares = 0;
  for (const Tensor& parameter : result.parameters) {
    for (const float value : parameter.to_vector<float>()) squares += static_cast<double>(value) * static_cast<double>(value);
  }
  const training::TrainingSettings h = training::training_settings(training.hyperparameters);
  const auto integer = [&](const char* name) {
    const auto found = training.hyperparameters.find(name);
    return found == training.hyperparameters.end() ? int64_t{0} : training::integer_value(found->second, name, "");
  };
  if (!options.print_json) {
    std::printf("%s on %s: %d rank(s) (%s, %s), halo %s; rows/halo per rank:", training.model.c_str(),
                file.info.dataset.c_str(), process.size, launch_mode_name(process.launch.mode), transport.c_str(),
                halo_mode_name(result.halo));
    for (const std::vector<int64_t>& rank_sizes : sizes) {
      std::printf(" %lld/%lld", static_cast<long long>(rank_sizes[0]), static_cast<long long>(rank_sizes[2]));
    }
    std::printf("\nepoch time %.2f ms (median), communication %.2f MB per epoch\n", median(epoch_ms),
                static_cast<double>(epoch_bytes.empty() ? 0 : epoch_bytes.back()) / 1e6);
    std::printf("final: train accuracy %.4f, validation accuracy %.4f, test accuracy %.4f (macro-F1 %.4f)\n",
                result.final.train.accuracy, result.final.validation.accuracy, result.final.test.accuracy,
                result.final.test.macro_f1);
    return;
  }
  training::JsonWriter json;
  json.begin_object();
  json.field("program", "train_gcn_distributed").field("mode", launch_mode_name(process.launch.mode));
  json.field("ranks", int64_t{process.size}).field("device", options.device).field("transport", transport);
  json.field("model", training.model).field("dataset", file.info.dataset);
  json.field("nodes", file.shard.partition.num_nodes).field("halo", halo_mode_name(result.halo));
  json.key("hyperparameters").begin_object();
  json.field("epochs", h.epochs).field("hidden", integer("hidden"));
  json.field("lr", static_cast<double>(h.learning_rate)).field("weight_decay", static_cast<double>(h.weight_decay));
  for (const auto& [name, value] : training.hyperparameters) {
    if (name != "epochs" && name != "hidden" && name != "lr" && name != "weight_decay") json.field(name, value);
  }
  json.field("seed", static_cast<int64_t>(training.seed));
  json.field("precision", training::precision_name(training.precision));
  json.end_object();
  for (const auto& [name, column] : {std::pair{"rank_rows", 0}, std::pair{"rank_entries", 1}, std::pair{"rank_halo", 2}}) {
    json.key(name).begin_array();
    for (const std::vector<int64_t>& rank_sizes : sizes) json.value(rank_sizes[static_cast<std::size_t>(column)]);
    json.end_array();
  }
  json.key("epochs").begin_array();
  for (std::size_t i = 0; i < result.epochs.size(); ++i) {
    json.begin_object()
        .field("epoch", result.epochs[i].epoch)
        .field("train_loss", result.epochs[i].train_loss)
        .field("epoch_ms", result.epochs[i].epoch_ms)
        .field("bytes", epoch_bytes[i])
        .end_object();
  }
  json.end_array();
  json.field("epoch_ms_median", median(epoch_ms));
  json.field("train_accuracy", result.final.train.accuracy)
      .field("validation_accuracy", result.final.validation.accuracy)
      .field("test_accuracy", result.final.test.accuracy)
      .field("test_macro_f1", result.final.test.macro_f1)
      .field("test_loss", result.final.test.loss)
      .field("parameter_norm", std::sqrt(squares));
  json.end_object();
  std::cout << json.str() << "\n" << std::flush;
}

// Trains this rank's shard over `communicator` and reports on rank 0.
void train(const Options& options, Process& process, const RankFile& file, Communicator& communicator,
           const std::string& transport, Watchdog* watchdog) {
  if (!options.partitions.empty()) check_same_partition(communicator, file.info.partition_id);
  RankTrainingOptions training;
  training.model = options.model;
  training.hyperparameters = training::resolve_hyperparameters(training::model_entry(options.model),
                                                               file.info.dataset, options.hyperparameters);
  training.seed = options.seed;
  training.halo = parse_halo_mode(options.halo);
  training.row_normalize_features = options.row_normalize_features;
  training.precision = options.precision;
  const RankTrainingResult result = train_rank(communicator, file.shard, training, [&](const RankEpoch& epoch) {
    if (watchdog != nullptr) watchdog->progress();
    if (process.rank == 0 && !options.print_json) {
      std::fprintf(stderr, "epoch %4lld  loss %.4f  %.1f ms\n", static_cast<long long>(epoch.epoch), epoch.train_loss,
                   epoch.epoch_ms);
    }
  });
  const RankBlock& block = file.shard.partition.block;
  const std::vector<std::vector<int64_t>> sizes =
      all_gather_integers(communicator, {block.num_rows(), block.adjacency.nnz(), block.num_halo()});
  std::vector<int64_t> my_bytes;
  for (const RankEpoch& epoch : result.epochs) my_bytes.push_back(epoch.bytes_sent);
  const std::vector<std::vector<int64_t>> bytes = all_gather_integers(communicator, my_bytes);
  if (process.rank == 0) report(options, process, file, training, result, sizes, bytes, transport);
}

// GPUs: NCCL between the processes, the unique id shared over MPI or the rendezvous file.
void train_on_gpu(const Options& options, Process& process, const RankFile& file, const Device& device) {
  const Launch& launch = process.launch;
  const int gpu = launch.mode == LaunchMode::Single ? device.index
                                                    : device_for_local_rank(process.mpi ? process.mpi->local_rank()
                                                                                        : launch.local_rank,
                                                                            cuda_device_count());
  // From here on a rank can block in NCCL waiting for a peer: the watchdog ends it on NCCL's asynchronous
  // error, a peer's failure report (launcher-free mode) or a step that makes no progress.
  Watchdog::Options limits;
  limits.progress_timeout = std::chrono::milliseconds(static_cast<int64_t>(options.progress_timeout * 1000));
  int polls = 0;
  Watchdog watchdog(
      limits,
      [&]() -> std::optional<std::string> {
        if (NcclProcessRank* communicator = process.nccl.load()) {
          if (std::optional<std::string> error = communicator->async_error()) return error;
        }
        if (launch.mode == LaunchMode::Rendezvous && ++polls % 10 == 0) {  // the shared file system once a second
          if (const std::optional<RankFailure> failure = find_rank_failure(launch.rendezvous, process.key(), process.rank)) {
            return detail::concat("rank ", failure->rank, " failed: ", failure->reason);
          }
        }
        return std::nullopt;
      },
      [&](const std::string& reason) { process.fail(reason, reason.rfind("no progress", 0) == 0, false); });
  std::vector<uint8_t> id;
  if (launch.mode == LaunchMode::Mpi) {
    if (process.rank == 0) id = make_nccl_unique_id();
    id = process.mpi->broadcast(id, 0);
  } else if (launch.mode == LaunchMode::Rendezvous) {
    if (process.rank == 0) {
      id = make_nccl_unique_id();
      publish_rendezvous(launch.rendezvous, process.key(), id);
    } else {
      id = wait_for_rendezvous(launch.rendezvous, process.key(),
                               std::chrono::milliseconds(static_cast<int64_t>(options.rendezvous_timeout * 1000)));
    }
  } else {
    id = make_nccl_unique_id();
  }
  NcclProcessRank nccl(id, process.rank, process.size, gpu);
  process.nccl = &nccl;
  // ncclCommInitRank returned on rank 0: every rank has read the id.
  if (launch.mode == LaunchMode::Rendezvous && process.rank == 0) remove_rendezvous(launch.rendezvous);
  train(options, process, file, nccl.communicator(), "nccl " + nccl.nccl_version(), &watchdog);
  nccl.synchronize();
  process.nccl = nullptr;
}

int run(const Options& options, Process& process) {
  const Device device = Device::parse(options.device);
  SGNN_CHECK(device.is_cpu() || process.launch.mode != LaunchMode::Mpi || options.device == "cuda",
             "--device ", options.device, ": under mpirun each rank takes the GPU of its local rank; pass --device cuda");
  const RankFile file = load_shard(options, process.rank, process.size);
  if (!device.is_cpu()) {
    train_on_gpu(options, process, file, device);
  } else if (process.launch.mode == LaunchMode::Mpi) {
    MpiCommunicator communicator(*process.mpi);
    train(options, process, file, communicator, "mpi", nullptr);
  } else {
    SGNN_CHECK(process.launch.mode == LaunchMode::Single, "the launcher-free mode connects the ranks with NCCL (GPUs: "
               "--device cuda); to train on CPU ranks, start them with mpirun");
    ThreadRanks one(1);
    one.run([&](Communicator& communicator) { train(options, process, file, communicator, "none", nullptr); });
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("Full-graph GCN/GAT training with one process per rank (mpirun, srun, or a rendezvous file); the "
               "models whose layers run on row partitions: gcn and gat");
  Options options;
  auto* partitions = app.add_option("--partitions", options.partitions,
                                    "folder of per-rank files from sgnn_partition (each rank reads only its own)");
  auto* dataset = app.add_option("--dataset", options.dataset,
                                 "dataset name or path, partitioned by every rank at start (small graphs)");
  partitions->excludes(dataset);
  options.model = examples::requested_model(argc, argv, "gcn");
  examples::add_model_option(app, options.model, kRowPartitionModels,
                             "the models whose layers run on row partitions (docs/distributed.md)");
  app.add_option("--device", options.device, "cpu (ranks talk over MPI) or cuda (NCCL; one GPU per rank)")
      ->check(CLI::IsMember({"cpu", "cuda", "cuda:0", "cuda:1", "cuda:2", "cuda:3", "cuda:4", "cuda:5", "cuda:6",
                             "cuda:7"}));
  if (const training::ModelEntry* entry = training::find_model_entry(options.model)) {
    // Every epoch runs (dropout masks differ per rank).
    examples::add_model_flags(app, *entry, options.hyperparameters, {"patience", "monitor"});
  }
  app.add_option("--seed", options.seed, "seed of the initial weights and dropout (default 0)");
  app.add_option("--halo", options.halo, "halo exchange: auto, sendrecv or allgather (default auto: by size)")
      ->check(CLI::IsMember({"auto", "sendrecv", "allgather"}));
  app.add_flag_function("--no-row-normalize", [&options](int64_t) { options.row_normalize_features = false; },
                        "use the features as stored (default: rows scaled to sum 1)");
  app.add_option_function<std::string>(
         "--precision",
         [&options](const std::string& value) { options.precision = training::parse_precision(value); },
         "fp32, or bf16 for mixed precision: bfloat16 activations and gradients, float32 master weights summed over "
         "ranks (default fp32)")
      ->check(CLI::IsMember({"fp32", "bf16"}));
  app.add_flag("--print-json", options.print_json, "rank 0 prints the results as one JSON object");
  app.add_option("--rendezvous", options.launch.rendezvous,
                 "launcher-free mode: a file all ranks see, through which rank 0 hands out NCCL's id "
                 "(or $SGNN_RENDEZVOUS)");
  app.add_option("--rank", options.launch.rank, "launcher-free mode: this process's rank (or $SGNN_RANK, $SLURM_PROCID)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--world-size", options.launch.world_size,
                 "launcher-free mode: the number of ranks (or $SGNN_WORLD_SIZE, $SLURM_NTASKS)")
      ->check(CLI::PositiveNumber);
  app.add_option("--local-rank", options.launch.local_rank,
                 "launcher-free mode: the rank's index on its host, its GPU (or $SGNN_LOCAL_RANK, $SLURM_LOCALID)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--run-id", options.launch.run_id,
                 "launcher-free mode: names this start of the job for the rendezvous (or $SGNN_RUN_ID; SLURM's job "
                 "and step ids by default)");
  app.add_option("--rendezvous-timeout", options.rendezvous_timeout,
                 "seconds the ranks wait for rank 0's rendezvous file (default 300)")
      ->check(CLI::PositiveNumber);
  app.add_option("--timeout", options.progress_timeout,
                 "GPU ranks: seconds without a finished epoch after which a rank gives up, its peer presumed dead "
                 "(default 600, 0: never)")
      ->check(CLI::NonNegativeNumber);
  CLI11_PARSE(app, argc, argv);
  if (options.partitions.empty() && options.dataset.empty()) {
    std::fprintf(stderr, "error: give --partitions DIR (from sgnn_partition) or --dataset NAME\n");
    return 2;
  }

  Process process;
  try {
    process.launch = detect_launch(options.launch, process_environment());
    if (process.launch.mode == LaunchMode::Mpi) {
      process.mpi = std::make_unique<MpiSession>();
      process.rank = process.mpi->rank();
      process.size = process.mpi->size();
    } else {
      process.rank = process.launch.rank;
      process.size = process.launch.world_size;
    }
  } catch (const std::exception& error) {
    std::fprintf(stderr, "error: %s\n", error.what());
    return 2;
  }
  try {
    return run(options, process);
  } catch (const std::exception& error) {
    process.fail(detail::concat("error: ", error.what()), true);
  }
}
