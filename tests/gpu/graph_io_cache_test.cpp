// The adjacency cache loaded onto the GPU (pattern read on the host, the rest
// derived on the device by csr_builder::assemble_pattern) equals the host
// prepare bitwise, for every preparation option and the adversarial graphs.
#include <doctest/doctest.h>

#include "graph_io/adjacency_cache.hpp"
#include "graph_io/adjacency_from_pattern.hpp"
#include "tests/graph_io/adjacency_equality.hpp"
#include "tests/graph_io/random_graphs.hpp"
#include "tests/graph_io/temp_files.hpp"
#include "tests/support/gpu_testing.hpp"

using namespace sgnn;
using namespace sgnn::graph_io;
using namespace sgnn::testing;

TEST_CASE("GPU adjacency cache load equals the host prepare bitwise, every option, adversarial graphs") {
  for (const auto& graph : test_graphs(/*large=*/true)) {
    for (const PrepareOptions& options : all_prepare_options()) {
      CAPTURE(graph.name);
      CAPTURE(describe(options));
      const Adjacency host = prepare_adjacency(graph.edges, options);
      TempDir dir;
      CachedAdjacency cached;
      cached.adjacency = host;
      cached.weighted_edges = graph.edges.weight.defined();
      cached.normalization = options.normalization;
      store_adjacency_cache(dir / "a.sgnn", 42, cached);
      std::string problem;
      const auto loaded = load_adjacency_cache(dir / "a.sgnn", 42, problem, kGpu, options);
      REQUIRE_MESSAGE(loaded.has_value(), problem);
      CHECK(loaded->adjacency.device() == kGpu);
      CHECK(loaded->adjacency.transpose.indices.device() == kGpu);
      if (loaded->adjacency.values.defined()) CHECK(loaded->adjacency.values.device() == kGpu);
      check_same_adjacency(loaded->adjacency, host);
      // A device pattern gives the same result as a host one.
      Csr device_pattern = host.csr.to(kGpu);
      device_pattern.row_order = Tensor();
      const Tensor weights = cached.weighted_edges ? host.values : Tensor();
      PrepareOptions derive = options;
      derive.device = kGpu;
      if (cached.weighted_edges) derive.normalization = Normalization::None;
      check_same_adjacency(adjacency_from_pattern(device_pattern, weights, derive), host);
    }
  }
}
