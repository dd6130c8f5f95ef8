// The mini-batch flags (GraphSAGE on sampled neighbourhoods,
// training/minibatch_experiment.hpp), for any program that trains in
// mini-batches: add_minibatch_flags() registers them on a CLI11 app and
// fills a MinibatchOptions; the caller adds --dataset, --device, --epochs,
// --seed, --precision (or reuses its own) and calls
// training::run_minibatch_experiment. Header-only, as training_cli.hpp.
//
//   --batch-size 1024          seeds per batch
//   --fanout 15,10,5           neighbours per hop from the seeds (-1: all); one per layer
//   --replace                  sample with replacement
//   --feature-cache GiB        device cache of the highest-degree nodes' features (features in host memory)
//   --features auto|device|host, --graph auto|device|host, --device-memory-limit GiB
//   --hidden, --dropout, --lr, --weight-decay, --row-normalize, --eval-every, --eval-from, --no-eval
#pragma once

#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdint>
#include <string>

#include "examples/training_cli.hpp"
#include "training/minibatch_experiment.hpp"

namespace sgnn::examples {

namespace minibatch_detail {
inline int64_t gibibytes_to_bytes(double gib) { return static_cast<int64_t>(std::llround(gib * 1073741824.0)); }

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

inline void add_minibatch_flags(CLI::App& app, training::MinibatchOptions& options) {
  app.add_option("--batch-size", options.batch_size, "seed nodes per mini-batch (default 1024)")
      ->check(detail::kPositive);
  app.add_option_function<std::vector<int64_t>>(
         "--fanout", [&options](const std::vector<int64_t>& fanouts) { options.fanouts = fanouts; },
         "neighbours sampled per hop from the seeds, one per layer, -1 = all (default 15,10,5)")
      ->delimiter(',')
      ->check(minibatch_detail::kFanout);
  app.add_flag("--replace", options.replace, "sample neighbours with replacement (default: without)");
  app.add_option_function<double>(
         "--feature-cache",
         [&options](double gib) { options.feature_cache_bytes = minibatch_detail::gibibytes_to_bytes(gib); },
         "GiB of device memory caching the features of the highest-degree nodes, when the features stay in host "
         "memory (default 0)")
      ->check(detail::kNonNegative);
  app.add_option("--features", options.feature_residence,
                 "where a GPU reads the features: auto (device if they fit the budget), device, or host (pinned or "
                 "the mapped dataset file, over unified addressing)")
      ->check(CLI::IsMember({"auto", "device", "host"}));
  app.add_option("--graph", options.graph_residence, "where a GPU samples the graph from: auto, device or host")
      ->check(CLI::IsMember({"auto", "device", "host"}));
  app.add_option_function<double>(
         "--device-memory-limit",
         [&options](double gib) { options.device_memory_limit = minibatch_detail::gibibytes_to_bytes(gib); },
         "GiB of device memory the graph and the features may take under auto (default: half the free memory)")
      ->check(detail::kNonNegative);
  app.add_option("--hidden", options.hidden, "hidden features (default 256)")->check(detail::kPositive);
  app.add_option("--dropout", options.dropout, "dropout after each hidden layer (default 0.5)")
      ->check(detail::kProbability);
  app.add_option("--lr", options.learning_rate, "Adam learning rate (default 0.003)")->check(detail::kPositive);
  app.add_option("--weight-decay", options.weight_decay, "L2 weight decay (default 0)")->check(detail::kNonNegative);
  app.add_flag("--row-normalize", options.row_normalize_features, "scale feature rows to sum 1 (bag-of-words features)");
  app.add_option("--train-nodes", options.train_nodes,
                 "train on this many nodes of the train split (its first; default all)")
      ->check(detail::kNonNegative);
  app.add_option("--eval-every", options.eval_every, "evaluate every this many epochs (default 1)")
      ->check(detail::kPositive);
  app.add_option("--eval-from", options.eval_from, "first epoch evaluated (default 1)")->check(detail::kPositive);
  app.add_flag_function("--no-eval", [&options](int64_t) { options.evaluate = false; },
                        "no layer-wise evaluation (time the training epochs only)");
  app.add_flag_function("--no-train-eval", [&options](int64_t) { options.evaluate_train = false; },
                        "evaluate the validation and test splits only");
}

}  // namespace sgnn::examples
