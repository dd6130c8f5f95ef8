// Writes the binary seed corpus of fuzz_cache_file (a valid adjacency cache
// and a valid checkpoint-like section file) into the folder given as argv[1].
// The text targets' seeds are plain files under fuzz/corpus/.
#include <cstdio>

#include "graph_io/adjacency_cache.hpp"
#include "graph_io/section_file.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_seeds FOLDER\n");
    return 2;
  }
  const std::filesystem::path folder = argv[1];
  sgnn::graph_io::EdgeList edges;
  edges.num_nodes = 4;
  edges.source = sgnn::Tensor::from_vector(std::vector<int32_t>{0, 1, 2, 3}, {4});
  edges.target = sgnn::Tensor::from_vector(std::vector<int32_t>{1, 2, 3, 0}, {4});
  sgnn::graph_io::CachedAdjacency cached;
  cached.adjacency = sgnn::graph_io::prepare_adjacency(edges, sgnn::graph_io::gcn_graph_options().prepare);
  sgnn::graph_io::store_adjacency_cache(folder / "adjacency.sgnn", 0, cached);
  sgnn::graph_io::SectionFile checkpoint;
  checkpoint.kind = "checkpoint";
  checkpoint.metadata["epoch"] = "3";
  checkpoint.add("weight", sgnn::Tensor::full({2, 3}, 0.5));
  sgnn::graph_io::write_section_file(folder / "checkpoint.sgnn", checkpoint);
  return 0;
}
