// The victim of the kill-mid-write test: writes one large checkpoint or
// adjacency cache to the given path and exits 0. The test SIGKILLs it while
// it writes.
//
//   section_writer checkpoint PATH IN_FEATURES
//   section_writer cache PATH NODES
#include <cstdio>
#include <string>

#include "graph_io/adjacency_cache.hpp"
#include "tests/support/write_victim.hpp"
#include "training/checkpoint.hpp"

int main(int argc, char** argv) {
  using namespace sgnn;
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s checkpoint|cache PATH SIZE\n", argv[0]);
    return 2;
  }
  const std::string kind = argv[1];
  const int64_t size = std::stoll(argv[3]);
  try {
    if (kind == "checkpoint") {
      Generator generator(7);
      const auto model = testing::victim_model(size, generator);
      training::Adam optimizer(model->parameter_groups(5e-4f), ops::AdamHyperparameters{});
      training::save_checkpoint(argv[2], *model, optimizer, training::TrainingState{}, generator);
    } else if (kind == "cache") {
      graph_io::CachedAdjacency cached;
      cached.adjacency = testing::victim_ring(size);
      graph_io::store_adjacency_cache(argv[2], 1, cached);
    } else {
      std::fprintf(stderr, "unknown kind %s\n", kind.c_str());
      return 2;
    }
  } catch (const Error& error) {
    std::fprintf(stderr, "section_writer: %s\n", error.what());
    return 1;
  }
  return 0;
}
