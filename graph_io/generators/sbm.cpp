#include "graph_io/generators/sbm.hpp"

#include <algorithm>
#include <numeric>

#include "core/error.hpp"
#include "core/philox.hpp"
#include "graph_io/generators/generator_support.hpp"

namespace sgnn::graph_io {

namespace {

// Philox stream offsets (in 4-value blocks) of the block and edge draws; the
// values synthetic datasets have always used, so their graphs are unchanged.
constexpr uint64_t kBlockStream = 11, kEdgeStream = 12;

int32_t pick(float uniform, int64_t count) {
  return static_cast<int32_t>(
      std::min<int64_t>(count - 1, static_cast<int64_t>(static_cast<double>(uniform) * static_cast<double>(count))));
}

}  // namespace

SbmGraph generate_sbm(const SbmOptions& o) {
  const int64_t n = o.num_nodes;
  SGNN_CHECK(n >= 1 && n < (int64_t{1} << 31), "SBM: num_nodes ", n, " out of range [1, 2^31)");
  SGNN_CHECK(o.num_blocks >= 1 && o.num_blocks <= n, "SBM: num_blocks ", o.num_blocks, " must be in [1, num_nodes]");
  SGNN_CHECK(o.num_edges >= 0, "SBM: negative num_edges ", o.num_edges);
  SGNN_CHECK(o.homophily >= 0 && o.homophily <= 1, "SBM: homophily ", o.homophily, " outside [0, 1]");
  SbmGraph g;
  g.blocks.resize(static_cast<std::size_t>(n));
  const PhiloxStream block_stream{o.seed, kBlockStream};
  for (int64_t v = 0; v < n; ++v)
    g.blocks[static_cast<std::size_t>(v)] = pick(block_stream.uniform(static_cast<uint64_t>(v)), o.num_blocks);
  // Members of each block, contiguous (counting sort).
  std::vector<int64_t> start(static_cast<std::size_t>(o.num_blocks) + 1, 0);
  for (const int32_t b : g.blocks) ++start[static_cast<std::size_t>(b) + 1];
  std::partial_sum(start.begin(), start.end(), start.begin());
  std::vector<int32_t> members(static_cast<std::size_t>(n));
  std::vector<int64_t> cursor(start.begin(), start.end() - 1);
  for (int64_t v = 0; v < n; ++v)
    members[static_cast<std::size_t>(cursor[static_cast<std::size_t>(g.blocks[static_cast<std::size_t>(v)])]++)] =
        static_cast<int32_t>(v);

  g.edges = host_edge_list(n, o.num_edges);
  int32_t* source = g.edges.source.data<int32_t>();
  int32_t* target = g.edges.target.data<int32_t>();
  const PhiloxStream edge_stream{o.seed, kEdgeStream};
  const auto homophily = static_cast<float>(o.homophily);
#pragma omp parallel for schedule(static)
  for (int64_t e = 0; e < o.num_edges; ++e) {
    const uint64_t base = 3 * static_cast<uint64_t>(e);
    const int32_t s = pick(edge_stream.uniform(base), n);
    int32_t t;
    if (edge_stream.uniform(base + 1) < homophily) {
      const std::size_t b = static_cast<std::size_t>(g.blocks[static_cast<std::size_t>(s)]);
      const int64_t size = start[b + 1] - start[b];  // >= 1: s itself
      t = members[static_cast<std::size_t>(start[b] + pick(edge_stream.uniform(base + 2), size))];
    } else {
      t = pick(edge_stream.uniform(base + 2), n);
    }
    source[e] = s;
    target[e] = t;
  }
  if (o.contiguous_blocks) {
    // members[i] is the node that becomes node i.
    std::vector<int32_t> new_id(static_cast<std::size_t>(n));
    for (int64_t i = 0; i < n; ++i)
      new_id[static_cast<std::size_t>(members[static_cast<std::size_t>(i)])] = static_cast<int32_t>(i);
#pragma omp parallel for schedule(static)
    for (int64_t e = 0; e < o.num_edges; ++e) {
      source[e] = new_id[static_cast<std::size_t>(source[e])];
      target[e] = new_id[static_cast<std::size_t>(target[e])];
    }
    std::vector<int32_t> blocks(static_cast<std::size_t>(n));
    for (int64_t i = 0; i < n; ++i)
      blocks[static_cast<std::size_t>(i)] = g.blocks[static_cast<std::size_t>(members[static_cast<std::size_t>(i)])];
    g.blocks = std::move(blocks);
  }
  return g;
}

}  // namespace sgnn::graph_io
