#include <doctest/doctest.h>

#include "graph_io/generators/sbm.hpp"
#include "tests/graph_io/generator_checks.hpp"

using namespace sgnn;
using namespace sgnn::graph_io;

namespace {

// Share of consecutive ids (v, v + 1) in the same block.
double neighbouring_ids_share(const SbmGraph& g) {
  int64_t same = 0;
  for (std::size_t v = 0; v + 1 < g.blocks.size(); ++v) same += g.blocks[v] == g.blocks[v + 1] ? 1 : 0;
  return static_cast<double>(same) / static_cast<double>(g.blocks.size() - 1);
}

}  // namespace

TEST_CASE("SBM: homophilous edges, blocks scattered over the ids, or contiguous as the same graph relabelled") {
  SbmOptions options;
  options.num_nodes = 4000;
  options.num_blocks = 8;
  options.num_edges = 40000;
  options.homophily = 0.7;
  options.seed = 9;
  const SbmGraph shuffled = generate_sbm(options);
  shuffled.edges.validate();
  CHECK(shuffled.edges.num_edges() == 40000);
  // Inside share: homophily + (1 − homophily) / blocks = 0.7375.
  CHECK(sgnn::testing::same_class_share(shuffled.edges, shuffled.blocks) == doctest::Approx(0.7375).epsilon(0.02));
  CHECK(neighbouring_ids_share(shuffled) < 0.2);  // ~1/8: the ids carry no block
  sgnn::testing::check_thread_independent([&] { return generate_sbm(options).edges; });

  options.contiguous_blocks = true;
  const SbmGraph contiguous = generate_sbm(options);
  contiguous.edges.validate();
  CHECK(std::is_sorted(contiguous.blocks.begin(), contiguous.blocks.end()));
  CHECK(contiguous.blocks.front() == 0);
  CHECK(contiguous.blocks.back() == 7);
  // The same graph: edge k joins the same blocks, and the block sizes match.
  const std::vector<int32_t> s1 = shuffled.edges.source.to_vector<int32_t>(),
                             t1 = shuffled.edges.target.to_vector<int32_t>();
  const std::vector<int32_t> s2 = contiguous.edges.source.to_vector<int32_t>(),
                             t2 = contiguous.edges.target.to_vector<int32_t>();
  int64_t mismatches = 0;
  for (std::size_t k = 0; k < s1.size(); ++k) {
    mismatches +=
        shuffled.blocks[static_cast<std::size_t>(s1[k])] != contiguous.blocks[static_cast<std::size_t>(s2[k])] ||
                shuffled.blocks[static_cast<std::size_t>(t1[k])] != contiguous.blocks[static_cast<std::size_t>(t2[k])]
            ? 1
            : 0;
  }
  CHECK(mismatches == 0);
  std::vector<int32_t> sorted_blocks = shuffled.blocks;
  std::sort(sorted_blocks.begin(), sorted_blocks.end());
  CHECK(sorted_blocks == contiguous.blocks);
  std::vector<int64_t> degrees1 = sgnn::testing::end_counts(shuffled.edges, true, true);
  std::vector<int64_t> degrees2 = sgnn::testing::end_counts(contiguous.edges, true, true);
  std::sort(degrees1.begin(), degrees1.end());
  std::sort(degrees2.begin(), degrees2.end());
  CHECK(degrees1 == degrees2);
}

TEST_CASE("SBM refuses bad options") {
  SbmOptions good;
  SbmOptions bad = good;
  bad.num_blocks = 0;
  CHECK_THROWS_AS(generate_sbm(bad), InvalidArgument);
  bad.num_blocks = good.num_nodes + 1;
  CHECK_THROWS_AS(generate_sbm(bad), InvalidArgument);
  bad = good;
  bad.homophily = 1.5;
  CHECK_THROWS_WITH_AS(generate_sbm(bad), doctest::Contains("homophily 1.5 outside [0, 1]"), InvalidArgument);
  bad = good;
  bad.num_edges = -1;
  CHECK_THROWS_AS(generate_sbm(bad), InvalidArgument);
}
