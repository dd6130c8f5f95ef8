// sgnn_gen: writes a synthetic node-classification dataset in OGB's raw
// layout, readable by every program of this project and by PyG
// (bench/pyg_train.py), deterministic from --seed.
//
//   sgnn_gen --out data/sbm-10k --kind sbm --nodes 10000 --edges 100000
//            --symmetric --features 64 --classes 8 --seed 1 [--no-gzip]
//   sgnn_gen --out data/reddit-scale --preset reddit-scale --no-gzip
// A --preset (graph_io/synthetic_presets.hpp) fixes every option of the graph.
// GCC 12 reports -Wnull-dereference inside CLI11's inlined string code (a
// false positive the system-header exemption misses).
#pragma GCC diagnostic ignored "-Wnull-dereference"
#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>

#include "graph_io/ogb_writer.hpp"
#include "graph_io/synthetic_dataset.hpp"
#include "graph_io/synthetic_presets.hpp"

int main(int argc, char** argv) {
  CLI::App app{"Write a synthetic graph dataset (R-MAT or stochastic block model) in OGB's raw layout"};
  std::string out;
  std::string kind = "sbm";
  sgnn::graph_io::SyntheticOptions options;
  std::string preset;
  bool no_gzip = false;
  app.add_option("--out", out, "output folder (raw/ is created inside)")->required();
  CLI::Option* preset_option =
      app.add_option("--preset", preset, "a named benchmark graph; sets every option below")
          ->check(CLI::IsMember(sgnn::graph_io::synthetic_preset_names()));
  app.add_option("--kind", kind, "rmat (power-law degrees) or sbm (planted classes)")
      ->check(CLI::IsMember({"rmat", "sbm"}));
  app.add_option("--nodes", options.num_nodes, "number of nodes")->check(CLI::Range(int64_t{1}, int64_t{2147483647}));
  app.add_option("--edges", options.num_edges, "edges drawn (per direction with --symmetric) before removing loops and repeats")
      ->check(CLI::NonNegativeNumber);
  app.add_flag("--symmetric", options.symmetric, "write every edge in both directions");
  app.add_option("--features", options.num_features, "feature width (0: no features)")->check(CLI::NonNegativeNumber);
  app.add_option("--classes", options.num_classes, "number of classes")->check(CLI::PositiveNumber);
  app.add_option("--homophily", options.homophily, "sbm: fraction of edges inside a class")->check(CLI::Range(0.0, 1.0));
  app.add_option("--train-fraction", options.train_fraction, "share of nodes in the train split")->check(CLI::Range(0.0, 1.0));
  app.add_option("--valid-fraction", options.valid_fraction, "share of nodes in the valid split")->check(CLI::Range(0.0, 1.0));
  app.add_option("--seed", options.seed, "random seed");
  for (const char* name : {"--kind", "--nodes", "--edges", "--symmetric", "--features", "--classes", "--homophily",
                           "--train-fraction", "--valid-fraction", "--seed"}) {
    preset_option->excludes(app.get_option(name));
  }
  app.add_flag("--no-gzip", no_gzip, "plain .csv files (faster to write and read for large graphs)");
  CLI11_PARSE(app, argc, argv);
  if (preset.empty()) {
    options.kind = kind == "rmat" ? sgnn::graph_io::SyntheticKind::Rmat : sgnn::graph_io::SyntheticKind::Sbm;
  } else {
    options = sgnn::graph_io::synthetic_preset(preset);
    kind = options.kind == sgnn::graph_io::SyntheticKind::Rmat ? "rmat" : "sbm";
  }

  try {
    const auto started = std::chrono::steady_clock::now();
    const sgnn::graph_io::Dataset dataset = sgnn::graph_io::generate_synthetic_dataset(options);
    const auto generated = std::chrono::steady_clock::now();
    sgnn::graph_io::write_ogb_dataset(dataset, out, {.gzip = !no_gzip});
    const auto written = std::chrono::steady_clock::now();
    std::printf("{\"out\": \"%s\", \"kind\": \"%s\", \"nodes\": %lld, \"edges\": %lld, \"features\": %lld, "
                "\"classes\": %lld, \"generate_s\": %.3f, \"write_s\": %.3f}\n",
                out.c_str(), kind.c_str(), static_cast<long long>(dataset.num_nodes()),
                static_cast<long long>(dataset.edges.num_edges()), static_cast<long long>(options.num_features),
                static_cast<long long>(dataset.num_classes),
                std::chrono::duration<double>(generated - started).count(),
                std::chrono::duration<double>(written - generated).count());
  } catch (const std::exception& error) {
    std::fprintf(stderr, "sgnn_gen: %s\n", error.what());
    return 1;
  }
  return 0;
}
