#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "core/error.hpp"
#include "graph_io/generators/synthetic_presets.hpp"

using namespace sgnn;
using namespace sgnn::graph_io;

TEST_CASE("synthetic presets: the benchmark graphs at the sizes the issues name") {
  const std::vector<std::string> names = synthetic_preset_names();
  REQUIRE(names == std::vector<std::string>{"reddit-scale", "products-scale"});

  const SyntheticOptions reddit = synthetic_preset("reddit-scale");
  CHECK(reddit.kind == SyntheticKind::Rmat);
  CHECK(reddit.symmetric);
  CHECK(reddit.num_nodes == 232965);
  CHECK(reddit.num_edges == 85000000);  // 109.3M directed edges after repeats go (measured with sgnn_describe)
  CHECK(reddit.num_features == 602);
  CHECK(reddit.num_classes == 41);

  const SyntheticOptions products = synthetic_preset("products-scale");
  CHECK(products.kind == SyntheticKind::Rmat);
  CHECK(products.symmetric);
  CHECK(products.num_nodes == 2449029);
  CHECK(products.num_edges == 61000000);
  CHECK(products.num_features == 100);
  CHECK(products.num_classes == 47);
  CHECK(products.seed != reddit.seed);
}

TEST_CASE("synthetic presets: an unknown name is refused with the known ones") {
  CHECK_THROWS_WITH_AS(synthetic_preset("reddit"),
                       doctest::Contains("unknown preset 'reddit' (known: reddit-scale, products-scale)"),
                       InvalidArgument);
}
