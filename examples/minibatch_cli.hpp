// Mini-batch training in sgnn_train (training/minibatch_experiment.hpp):
// add_minibatch_flags() registers the batching, sampling and placement
// flags, which need --batch-size; train_minibatch() runs a model whose
// layers take sampled blocks (sage, gcn, gat) with its registry entry's
// hyperparameters (--hidden, --dropout, --lr, --epochs ... as sgnn_train
// gives them), a per-epoch progress bar (batches, seeds per second) and the
// summary, and returns the results JSON. Header-only, as training_cli.hpp.
//
//   --batch-size 1024          seeds per batch: trains in mini-batches
//   --fanout 15,10,5           neighbours per hop from the seeds (-1: all); one per layer
//   --replace                  sample with replacement
//   --feature-cache GiB        device cache of the highest-degree nodes' features (features in host memory)
//   --features auto|device|host, --graph auto|device|host, --device-memory-limit GiB
//   --train-nodes, --eval-every, --eval-from, --no-eval, --no-train-eval
#pragma once

#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>

#include "examples/cli_checks.hpp"
#include "training/experiment.hpp"
#include "training/minibatch_experiment.hpp"
#include "training/output/progress.hpp"

namespace sgnn::examples {

namespace minibatch_detail {
// An option given in GiB (non-negative), stored in `bytes`.
inline CLI::Option* add_gibibytes_option(CLI::App& app, const std::string& name, int64_t& bytes,
                                         const std::string& help) {
  return app
      .add_option_function<double>(
          name, [&bytes](double gib) { bytes = static_cast<int64_t>(std::llround(gib * 1073741824.0)); }, help)
      ->check(checks::kNonNegative);
}

inline const CLI::Validator kFanout(
    [](std::string& text) -> std::string {
      std::size_t used = 0;
      long long value = 0;
      try {
        value = std::stoll(text, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used == 0 || used != text.size()) return "expected an integer, got \"" + text + "\"";
      if (value < 1 && value != -1) return "each fanout is >= 1, or -1 for every neighbour; got " + text;
      return "";
    },
    "FANOUT");
}  // namespace minibatch_detail

// The mini-batch flags; every one but --batch-size needs --batch-size.
// Returns --batch-size, whose presence selects mini-batch training.
inline CLI::Option* add_minibatch_flags(CLI::App& app, training::MinibatchOptions& options) {
  std::string models;
  for (const std::string& kind : training::minibatch_model_names()) models += (models.empty() ? "" : ", ") + kind;
  CLI::Option* batch_size =
      app.add_option("--batch-size", options.batch_size,
                     "train in mini-batches of this many seed nodes on sampled neighbourhoods (models whose layers "
                     "take sampled blocks: " + models + "); evaluation by layer-wise full-neighbour inference")
          ->check(checks::kPositive);
  const auto needs_batches = [batch_size](CLI::Option* option) { option->needs(batch_size); };
  needs_batches(app.add_option_function<std::vector<int64_t>>(
                       "--fanout", [&options](const std::vector<int64_t>& fanouts) { options.fanouts = fanouts; },
                       "mini-batches: neighbours sampled per hop from the seeds, one per layer, -1 = all (default "
                       "15,10,5)")
                    ->delimiter(',')
                    ->check(minibatch_detail::kFanout));
  needs_batches(app.add_flag("--replace", options.replace, "mini-batches: sample with replacement (default: without)"));
  needs_batches(minibatch_detail::add_gibibytes_option(
      app, "--feature-cache", options.feature_cache_bytes,
      "mini-batches: GiB of device memory caching the features of the highest-degree nodes, when the features stay "
      "in host memory (default 0)"));
  needs_batches(app.add_option("--features", options.feature_residence,
                               "mini-batches: where a GPU reads the features: auto (device if they fit the budget), "
                               "device, or host (pinned or the mapped dataset file, over unified addressing)")
                    ->check(CLI::IsMember({"auto", "device", "host"})));
  needs_batches(app.add_option("--graph", options.graph_residence,
                               "mini-batches: where a GPU samples the graph from: auto, device or host")
                    ->check(CLI::IsMember({"auto", "device", "host"})));
  needs_batches(minibatch_detail::add_gibibytes_option(
      app, "--device-memory-limit", options.device_memory_limit,
      "mini-batches: GiB of device memory the graph and the features may take under auto (default: half the free "
      "memory)"));
  needs_batches(app.add_option("--train-nodes", options.train_nodes,
                               "mini-batches: train on this many nodes of the train split (its first; default all)")
                    ->check(checks::kNonNegative));
  needs_batches(app.add_option("--eval-every", options.eval_every,
                               "mini-batches: evaluate every this many epochs (default 1)")
                    ->check(checks::kPositive));
  needs_batches(app.add_option("--eval-from", options.eval_from, "mini-batches: first epoch evaluated (default 1)")
                    ->check(checks::kPositive));
  needs_batches(app.add_flag_function("--no-eval", [&options](int64_t) { options.evaluate = false; },
                                      "mini-batches: no layer-wise evaluation (time the training epochs only)"));
  needs_batches(app.add_flag_function("--no-train-eval", [&options](int64_t) { options.evaluate_train = false; },
                                      "mini-batches: evaluate the validation and test splits only"));
  return batch_size;
}

inline void print_minibatch_summary(const training::MinibatchResult& r, const std::string& model, std::FILE* stream) {
  std::fprintf(stream, "%s (mini-batch) on %s (%s, %s): graph on %s, features on %s (%lld cached rows)\n",
               model.c_str(), r.dataset.c_str(), r.device.c_str(), r.precision.c_str(), r.graph_residence.c_str(),
               r.feature_residence.c_str(), static_cast<long long>(r.cached_feature_rows));
  if (!r.feature_readers.empty()) std::fprintf(stream, "  feature gathers: %s\n", r.feature_readers.c_str());
  if (r.fit.best_epoch > 0) {
    std::fprintf(stream, "  test accuracy at best validation (epoch %lld): %.2f%% (validation %.2f%%)\n",
                 static_cast<long long>(r.fit.best_epoch), 100.0 * r.test_accuracy,
                 100.0 * r.fit.best.validation.accuracy);
  }
  std::fprintf(stream, "  epoch time (median): %.3f s, %.0f seeds/s, %.3g sampled edges/s\n", r.epoch_seconds_median,
               r.seeds_per_second, r.sampled_edges_per_second);
  std::fprintf(stream, "  peak device memory %.1f MiB, peak host memory (resident) %.1f MiB; load %.1f s, setup %.1f s\n",
               static_cast<double>(r.peak_device_bytes) / 1048576.0, static_cast<double>(r.peak_host_bytes) / 1048576.0,
               r.load_seconds, r.setup_seconds);
  if (!r.predictions.empty()) std::fprintf(stream, "  predictions of every node: %s\n", r.predictions.c_str());
  if (!r.checkpoint.empty()) std::fprintf(stream, "  checkpoint (sgnn_predict reads it, --resume continues it): %s\n", r.checkpoint.c_str());
}

// Trains `experiment`'s model in mini-batches with `sampling`'s settings
// (training::minibatch_options refuses what does not apply); returns the
// results JSON of `program`.
inline std::string train_minibatch(const std::string& program, const training::ExperimentOptions& experiment,
                                   const training::MinibatchOptions& sampling, bool quiet,
                                   training::ProgressLine& progress) {
  const training::MinibatchOptions options = training::minibatch_options(experiment, sampling);
  training::MinibatchHooks hooks;
  hooks.on_progress = [&](const training::MinibatchProgress& p) {
    progress.update(training::format_minibatch_progress(p, options.epochs));
  };
  hooks.on_epoch = [&](const training::MinibatchEpochRecord& record) {
    progress.update(training::format_minibatch_epoch(record, options.epochs));
    progress.finish();
  };
  hooks.on_note = [&](const std::string& text) {
    progress.finish();
    if (!quiet) std::fprintf(stderr, "%s: %s\n", program.c_str(), text.c_str());
  };
  const training::MinibatchResult result = training::run_minibatch_experiment(options, hooks);
  progress.finish();
  if (!quiet) print_minibatch_summary(result, experiment.model, stdout);
  return training::minibatch_json(result, program);
}

}  // namespace sgnn::examples
