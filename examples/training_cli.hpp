// The command line of sgnn_train (and of train_gcn and train_gat, its names
// for one model): flags (CLI11; each model's own from its registry entry,
// examples/model_flags.hpp), the progress line, the final summary, and the
// --out / --plot / --print-json outputs; with --batch-size, mini-batch
// training (examples/minibatch_cli.hpp). Header-only so each example stays
// one .cpp file.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>

#include "core/error.hpp"
#include "examples/cli_checks.hpp"
#include "examples/minibatch_cli.hpp"
#include "fetch_missing.hpp"
#include "model_flags.hpp"
#include "training/nn/model_plugin.hpp"
#include "training/nn/model_registry.hpp"
#include "training/experiment.hpp"
#include "training/output/progress.hpp"
#include "training/output/svg_plot.hpp"

namespace sgnn::examples {

struct ProgramOptions {
  training::ExperimentOptions experiment;
  training::MinibatchOptions minibatch;     // --batch-size and the sampling flags
  CLI::Option* batch_size = nullptr;        // given: mini-batch training
  std::string out_json;  // --out
  std::string plot;      // --plot
  bool quiet = false;
  bool print_json = false;
  bool download = false;  // --download
};

namespace detail {
// The registered models that aggregate with the prepared fixed weights
// (`fixed`) or with weights of their own, comma-separated.
inline std::string models_with_fixed_weights(bool fixed) {
  std::string names;
  for (const std::string& name : training::model_names()) {
    if (training::model_entry(name).fixed_weights == fixed) names += (names.empty() ? "" : ", ") + name;
  }
  return names;
}
}  // namespace detail

// The flags of training `entry`'s model: the dataset and run flags every
// model shares, then the model's hyperparameters.
inline void add_training_flags(CLI::App& app, const training::ModelEntry& entry, ProgramOptions& options) {
  training::ExperimentOptions& e = options.experiment;
  e.model = entry.name;
  app.add_option("--dataset", e.dataset,
                 "dataset name (cora, citeseer, pubmed: searched in $SGNN_DATA, ./data, ~/.local/share/sparsegnn, the bundled datasets) or a path "
                 "(OGB raw-layout directory, edge list, Matrix Market file)")
      ->required();
  app.add_flag("--download", options.download,
               "fetch the --dataset first when it is missing and sgnn_data can fetch it (as `sgnn_data fetch "
               "NAME` does: into the user data folder; $SGNN_DATA_MIRROR is honoured)");
  add_model_flags(app, entry, e.hyperparameters);
  const std::string rows_default = entry.feature_transform == graph_io::FeatureTransform::RowNormalize
                                     ? "rows scaled to sum 1"
                                     : "the features as stored";
  auto* normalize = app.add_flag_function(
      "--row-normalize", [&e](int64_t) { e.row_normalize_features = true; },
      "scale each feature row to sum 1 (default for " + entry.name + ": " + rows_default + ")");
  app.add_flag_function(
         "--no-row-normalize", [&e](int64_t) { e.row_normalize_features = false; },
         "use the features as stored (default for " + entry.name + ": " + rows_default + ")")
      ->excludes(normalize);
  app.add_option("--seed", e.seed, "seed of run 1; run k uses seed + k - 1 (default 0)");
  app.add_option("--runs", e.runs, "independent runs; the summary gives mean ± std (default 1)")
      ->check(checks::kPositive);
  app.add_option("--device", e.device, "cpu, cuda or cuda:<k> (default cpu)");
  app.add_option("--spmm", e.spmm,
                 "aggregation kernel of models of fixed edge weights (" + detail::models_with_fixed_weights(true) +
                     "): csr (FP32), hrpb (TF32 tensor cores) or auto (hrpb where the graph's brick density pays; "
                     "default auto); the others (" + detail::models_with_fixed_weights(false) + ") use csr")
      ->check(CLI::IsMember({"csr", "hrpb", "auto"}));
  app.add_option("--cuda-graph", e.cuda_graph,
                 "capture the training step in a CUDA Graph and replay it each epoch: auto (on CUDA), on or "
                 "off (default auto)")
      ->check(CLI::IsMember({"auto", "on", "off"}));
  app.add_option("--cache", e.cache_dir, "directory of the prepared-adjacency cache (default: no cache)");
  app.add_option("--out", options.out_json, "write the results as JSON here (schema: docs/results-json.md)");
  app.add_option("--plot", options.plot, "draw loss and train/validation accuracy per epoch of run 1 as SVG here");
  app.add_option("--checkpoint", e.checkpoint, "save model, optimizer and progress here (single run)");
  app.add_option("--checkpoint-every", e.checkpoint_every, "epochs between checkpoint saves (default 1)")
      ->check(checks::kPositive);
  app.add_option("--resume", e.resume, "continue training from this checkpoint (single run)")
      ->check(CLI::ExistingFile);
  app.add_flag("--check-numerics", e.check_numerics,
               "after every op of the training step, stop at the first NaN/Inf output or gradient and name the "
               "epoch, layer and op (slow: one device read per op)");
  app.add_flag("--deterministic", e.deterministic,
               "bit-identical results for the same seed, device and build: sparse sums of split rows and HRPB "
               "panels, max/min gradients and GATv2's gradients in a fixed order instead of atomics (slower on "
               "graphs with hub rows; docs/determinism.md)");
  app.add_option_function<std::string>(
         "--precision", [&e](const std::string& value) { e.precision = training::parse_precision(value); },
         "fp32, or bf16 for mixed precision: bfloat16 features, activations and gradients, float32 master weights "
         "updated by Adam, float32 loss (default fp32; docs/mixed_precision.md)")
      ->check(CLI::IsMember({"fp32", "bf16"}));
  app.add_option("--predictions", e.predictions,
                 "write per node its id, predicted class and class probabilities here, from the parameters training "
                 "ends with (the best validation epoch's); CSV, or NumPy when the name ends in .npy (single run; "
                 "docs/predictions.md)");
  app.add_option("--embeddings", e.embeddings,
                 "write per node its id and last hidden layer here (CSV, or .npy; single run)");
  app.add_flag("--gradient-ranges", e.gradient_ranges,
               "record the smallest non-zero and the largest |gradient| per layer during run 1 and print them (slow: "
               "every gradient is read back; shows that bf16 needs no loss scaling, docs/mixed_precision.md)");
  app.add_flag("--quiet", options.quiet, "no progress line and no summary");
  app.add_flag("--print-json", options.print_json, "print the results JSON as the last line of stdout");
  options.batch_size = add_minibatch_flags(app, options.minibatch);
  options.batch_size->excludes(app.get_option("--plot"));  // the curves are full-graph training's
}

inline void print_summary(const training::ExperimentResult& r, std::FILE* stream) {
  std::fprintf(stream, "%s on %s (%s, spmm %s, %s%s): %zu run(s)\n", r.model.c_str(), r.dataset.c_str(),
               r.device.c_str(), r.spmm.c_str(), r.precision.c_str(), r.deterministic ? ", deterministic" : "",
               r.runs.size());
  std::fprintf(stream, "  test accuracy at best validation: %.2f%% ± %.2f%%  (macro-F1 %.4f)\n",
               100.0 * r.test_accuracy, 100.0 * r.test_accuracy_std, r.test_macro_f1);
  std::fprintf(stream, "  epoch time (median): %.3f ms, training time (median run): %.2f s\n", r.epoch_ms_median,
               r.train_seconds);
  std::fprintf(stream, "  peak device memory: %.1f MiB (preparing the graph %.1f MiB, training %.1f MiB)\n",
               static_cast<double>(r.peak_device_bytes) / (1024.0 * 1024.0),
               static_cast<double>(r.preparation_peak_device_bytes) / (1024.0 * 1024.0),
               static_cast<double>(r.training_peak_device_bytes) / (1024.0 * 1024.0));
  const training::ExperimentResult::Phases& p = r.phases;
  std::fprintf(stream, "  dataset %s %.1f ms, adjacency %s %.1f ms, upload %.1f ms, HRPB %.1f ms, first epoch %.1f ms\n",
               p.processed_hit ? "mapped (processed file)" : "parsed", p.load_ms,
               p.adjacency_cache_hit ? "cache hit" : "prepared", p.adjacency_ms, p.upload_ms, p.hrpb_ms,
               p.first_epoch_ms);
  const std::string choices = p.kernel_choices_stored ? "stored with the adjacency cache, nothing timed"
                              : p.tuning_ms > 0 ? "timed in " + std::to_string(static_cast<int64_t>(p.tuning_ms)) + " ms"
                                                : "by rule (small graph, CPU or deterministic run)";
  std::fprintf(stream, "  kernel choices: %s\n", choices.c_str());
  if (p.start_to_first_epoch_s > 0) {
    std::fprintf(stream, "  process start to the end of epoch 1: %.2f s\n", p.start_to_first_epoch_s);
  }
}

// Full-graph training of options.experiment with the progress line, the
// summary, --plot and the gradient ranges; returns the results JSON.
inline std::string train_full_graph(const std::string& program, const ProgramOptions& options,
                                    training::ProgressLine& progress) {
  training::ExperimentHooks hooks;
  hooks.on_epoch = [&](int64_t run, int64_t epochs, const training::EpochRecord& record) {
    std::string line = training::format_epoch(record, epochs);
    if (options.experiment.runs > 1) line = "run " + std::to_string(run + 1) + "  " + line;
    progress.update(line);
  };
  hooks.on_note = [&](const std::string& text) {
    progress.finish();
    if (!options.quiet) std::fprintf(stderr, "%s: %s\n", program.c_str(), text.c_str());
  };
  const training::ExperimentResult result = training::run_experiment(options.experiment, hooks);
  progress.finish();
  if (!options.plot.empty()) {
    training::write_training_curves_svg(options.plot, result.runs.front().result.history,
                                        result.model + " on " + result.dataset + " (seed " +
                                            std::to_string(result.runs.front().seed) + ")");
  }
  if (!options.quiet) print_summary(result, stdout);
  if (!result.gradient_ranges.empty()) {
    std::printf("gradient magnitudes of run 1 (%s):\n", result.precision.c_str());
    for (const auto& [layer, range] : result.gradient_ranges) {
      std::printf("  %-10s smallest non-zero %.3e, largest %.3e (%lld of %lld values zero)\n",
                  layer.empty() ? "(none)" : layer.c_str(), range.smallest, range.largest,
                  static_cast<long long>(range.zeros), static_cast<long long>(range.values));
    }
  }
  return training::experiment_json(result, program);
}

// sgnn_train (`fixed_model` empty: --model NAME, --list-models), or one of
// its names for one model (train_gcn: "gcn"), whose flags and outputs are
// those of sgnn_train --model gcn without --model.
inline int training_main(const std::string& program, const std::string& fixed_model, int argc, char** argv) {
  std::vector<std::string> plugins;
  if (fixed_model.empty()) {
    try {
      for (const std::string& path : plugin_arguments(argc, argv)) training::load_model_plugin(path);
    } catch (const Error& error) {
      std::fprintf(stderr, "%s: error: %s\n", program.c_str(), error.what());
      return 1;
    }
  }
  const std::string model = fixed_model.empty() ? requested_model(argc, argv, "gcn") : fixed_model;
  const training::ModelEntry* entry = training::find_model_entry(model);
  CLI::App app{(entry != nullptr ? "Train " + entry->about : std::string("Train a graph neural network")) +
                   ". Node classification; flags left out take the model's defaults",
               program};
  ProgramOptions options;
  if (fixed_model.empty()) {
    options.experiment.model = "gcn";
    add_model_option(app, options.experiment.model, training::model_names(),
                     "its flags follow it (--list-models: every model and its flags)");
    app.add_flag_callback(
        "--list-models",
        [] {
          std::fputs(model_list(training::model_names()).c_str(), stdout);
          throw CLI::Success();
        },
        "list the models, each with its flags, and exit");
    add_plugin_option(app, plugins);
  }
  // An unknown --model has no flags to add: its check names the models.
  if (entry != nullptr) add_training_flags(app, *entry, options);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    return app.exit(error);
  }
  try {
    if (options.download) fetch_if_missing(options.experiment.dataset, options.quiet);
    options.experiment.model = model;
    training::ProgressLine progress(stderr, options.quiet ? training::ProgressLine::Mode::Quiet
                                                          : training::ProgressLine::Mode::Auto);
    const std::string json =
        options.batch_size->count() > 0
            ? train_minibatch(program, options.experiment, options.minibatch, options.quiet, progress)
            : train_full_graph(program, options, progress);
    if (!options.out_json.empty()) {
      std::ofstream out(options.out_json, std::ios::trunc);
      out << json << "\n";
      if (!out) throw IoError(options.out_json, 0, "cannot write the results JSON");
    }
    if (options.print_json) std::printf("%s\n", json.c_str());
    return 0;
  } catch (const Error& error) {
    std::fprintf(stderr, "%s: error: %s\n", program.c_str(), error.what());
    return 1;
  } catch (const std::exception& error) {  // not an sgnn::Error: a defect of the library, reported, not aborted on
    std::fprintf(stderr, "%s: internal error (please report it): %s\n", program.c_str(), error.what());
    return 2;
  }
}

}  // namespace sgnn::examples
