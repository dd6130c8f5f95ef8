// sgnn_describe: what a dataset holds, before training on it.
//
//   sgnn_describe cora            (a name searched in $SGNN_DATA, ./data, ../shared/data)
//   sgnn_describe path/to/graph.mtx
// Prints where it was read from, node/edge/feature/class/split counts, degree
// statistics, self loops, repeats, symmetry and connected components.
// GCC 12 reports -Wnull-dereference inside CLI11's inlined string code (a
// false positive the system-header exemption misses).
#pragma GCC diagnostic ignored "-Wnull-dereference"
#include <CLI/CLI.hpp>

#include <cstdio>

#include "graph_io/graph_statistics.hpp"
#include "graph_io/load_dataset.hpp"

int main(int argc, char** argv) {
  CLI::App app{"Describe a graph dataset (OGB raw-layout folder, edge list or Matrix Market file)"};
  std::string dataset_name;
  app.add_option("dataset", dataset_name, "dataset name or path")->required();
  CLI11_PARSE(app, argc, argv);
  try {
    const sgnn::graph_io::Dataset d = sgnn::graph_io::load_dataset(dataset_name);
    auto count = [](const sgnn::Tensor& t) { return t.defined() ? t.numel() : int64_t{0}; };
    std::printf("dataset: %s\nsource: %s\nread: %.1f ms\n", d.name.c_str(), d.source.c_str(), d.read_ms);
    std::printf("features: %lld per node\nclasses: %lld\nsplits: train %lld, valid %lld, test %lld\n",
                static_cast<long long>(d.features.defined() ? d.features.size(1) : 0),
                static_cast<long long>(d.num_classes), static_cast<long long>(count(d.train_index)),
                static_cast<long long>(count(d.valid_index)), static_cast<long long>(count(d.test_index)));
    std::printf("%s", sgnn::graph_io::format_statistics(sgnn::graph_io::describe_graph(d.edges)).c_str());
  } catch (const std::exception& error) {
    std::fprintf(stderr, "sgnn_describe: %s\n", error.what());
    return 1;
  }
  return 0;
}
