// Writes the binary seed corpora: valid adjacency caches, a valid HRPB cache
// and a valid checkpoint-like section file for fuzz_cache_file into argv[1], and real
// checkpoints of the fixture's run (before training, after two epochs) and
// a mini-batch GraphSAGE's checkpoint for fuzz_checkpoint into argv[2]. The text targets' seeds are plain files under
// fuzz/corpus/.
#include <cstdio>

#include "fuzz/checkpoint_fixture.hpp"
#include "fuzz/minibatch_checkpoint_fixture.hpp"
#include "graph_io/adjacency_cache.hpp"
#include "graph_io/hrpb_cache.hpp"
#include "graph_io/section_file.hpp"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: make_seeds CACHE_FOLDER CHECKPOINT_FOLDER\n");
    return 2;
  }
  const std::filesystem::path cache_folder = argv[1];
  const std::filesystem::path checkpoint_folder = argv[2];
  sgnn::graph_io::EdgeList edges;
  edges.num_nodes = 4;
  edges.source = sgnn::Tensor::from_vector(std::vector<int32_t>{0, 1, 2, 3}, {4});
  edges.target = sgnn::Tensor::from_vector(std::vector<int32_t>{1, 2, 3, 0}, {4});
  // Derived values (unweighted GCN), and stored ones with a node order.
  sgnn::graph_io::CachedAdjacency derived;
  derived.adjacency = sgnn::graph_io::prepare_adjacency(edges, sgnn::graph_io::gcn_graph_options().prepare);
  derived.weighted_edges = false;
  derived.normalization = sgnn::graph_io::Normalization::Symmetric;
  sgnn::graph_io::store_adjacency_cache(cache_folder / "adjacency.sgnn", 0, derived);
  sgnn::graph_io::CachedAdjacency stored;
  stored.adjacency = derived.adjacency;
  stored.node_order = sgnn::Tensor::from_vector(std::vector<int32_t>{2, 0, 3, 1}, {4});
  sgnn::graph_io::store_adjacency_cache(cache_folder / "adjacency-stored.sgnn", 0, stored);
  // An HRPB cache of that adjacency, split panels included (few slots).
  sgnn::graph_io::HrpbOptions hrpb_options;
  hrpb_options.concurrent_blocks = 1;
  sgnn::graph_io::store_hrpb_cache(cache_folder / "adjacency.sgnn.hrpb", 0,
                                   sgnn::graph_io::build_hrpb(derived.adjacency, hrpb_options));
  sgnn::graph_io::SectionFile checkpoint;
  checkpoint.kind = "checkpoint";
  checkpoint.metadata["epoch"] = "3";
  checkpoint.add("weight", sgnn::Tensor::full({2, 3}, 0.5));
  sgnn::graph_io::write_section_file(cache_folder / "checkpoint.sgnn", checkpoint);

  sgnn::fuzz::CheckpointFixture run(1);
  run.save(checkpoint_folder / "start.sgnn");
  run.trainer.run_epoch();
  run.trainer.run_epoch();
  run.save(checkpoint_folder / "two-epochs.sgnn");

  sgnn::fuzz::MinibatchCheckpointFixture minibatch;
  (void)minibatch.trainer.run_epoch();
  (void)minibatch.trainer.run_epoch();
  minibatch.save(checkpoint_folder / "minibatch-sage.sgnn");
  return 0;
}
