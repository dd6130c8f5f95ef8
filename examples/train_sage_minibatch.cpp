// train_sage_minibatch: GraphSAGE trained on sampled neighbourhoods (see --help).
//   train_sage_minibatch --dataset cora --row-normalize --fanout 10,10 --batch-size 64 --hidden 128
//   train_sage_minibatch --dataset data/products-scale --device cuda --fanout 15,10,5 --batch-size 1024
//   train_sage_minibatch --dataset data/papers100m-scale --device cuda --features host --feature-cache 8 --no-eval
// (sgnn_train --model sage --batch-size ... takes the same flags, examples/minibatch_cli.hpp.)
#include <cstdio>
#include <fstream>

#include "core/error.hpp"
#include "examples/minibatch_cli.hpp"
#include "training/output/progress.hpp"

int main(int argc, char** argv) {
  namespace training = sgnn::training;
  CLI::App app{"Train GraphSAGE on sampled neighbourhoods (mini-batches; GPU sampling, features on the device or in "
               "host memory)",
               "train_sage_minibatch"};
  training::MinibatchOptions options;
  std::string out_json;
  bool quiet = false;
  bool print_json = false;
  app.add_option("--dataset", options.dataset, "dataset name or path (as train_gcn)")->required();
  app.add_option("--device", options.device, "cpu, cuda or cuda:<k> (default cpu)");
  app.add_option("--epochs", options.epochs, "training epochs (default 20)")->check(sgnn::examples::detail::kPositive);
  app.add_option("--seed", options.seed, "seed of weights, dropout, shuffles and samples (default 0)");
  app.add_option_function<std::string>(
         "--precision", [&options](const std::string& value) { options.precision = training::parse_precision(value); },
         "fp32, or bf16 (bfloat16 features and activations; default fp32)")
      ->check(CLI::IsMember({"fp32", "bf16"}));
  sgnn::examples::add_minibatch_flags(app, options);
  app.add_option("--out", out_json, "write the results as JSON here");
  app.add_flag("--quiet", quiet, "no progress and no summary");
  app.add_flag("--print-json", print_json, "print the results JSON as the last line of stdout");
  CLI11_PARSE(app, argc, argv);
  try {
    training::ProgressLine progress(stderr, quiet ? training::ProgressLine::Mode::Quiet : training::ProgressLine::Mode::Auto);
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
      if (!quiet) std::fprintf(stderr, "train_sage_minibatch: %s\n", text.c_str());
    };
    const training::MinibatchResult r = training::run_minibatch_experiment(options, hooks);
    progress.finish();
    const std::string json = training::minibatch_json(r, "train_sage_minibatch");
    if (!out_json.empty()) {
      std::ofstream out(out_json, std::ios::trunc);
      out << json << "\n";
      if (!out) throw sgnn::IoError(out_json, 0, "cannot write the results JSON");
    }
    if (!quiet) {
      std::printf("sage (mini-batch) on %s (%s, %s): graph on %s, features on %s (%lld cached rows)\n",
                  r.dataset.c_str(), r.device.c_str(), r.precision.c_str(), r.graph_residence.c_str(),
                  r.feature_residence.c_str(), static_cast<long long>(r.cached_feature_rows));
      if (r.fit.best_epoch > 0) {
        std::printf("  test accuracy at best validation (epoch %lld): %.2f%% (validation %.2f%%)\n",
                    static_cast<long long>(r.fit.best_epoch), 100.0 * r.test_accuracy,
                    100.0 * r.fit.best.validation.accuracy);
      }
      std::printf("  epoch time (median): %.3f s, %.0f seeds/s, %.3g sampled edges/s\n", r.epoch_seconds_median,
                  r.seeds_per_second, r.sampled_edges_per_second);
      std::printf("  peak device memory %.1f MiB, peak host memory (resident) %.1f MiB; load %.1f s, setup %.1f s\n",
                  static_cast<double>(r.peak_device_bytes) / 1048576.0, static_cast<double>(r.peak_host_bytes) / 1048576.0,
                  r.load_seconds, r.setup_seconds);
    }
    if (print_json) std::printf("%s\n", json.c_str());
    return 0;
  } catch (const sgnn::Error& error) {
    std::fprintf(stderr, "train_sage_minibatch: error: %s\n", error.what());
    return 1;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "train_sage_minibatch: internal error (please report it): %s\n", error.what());
    return 2;
  }
}
