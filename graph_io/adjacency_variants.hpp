// AdjacencyVariants: a graph's one prepared adjacency in every form a layer
// may ask for (PyG's `normalize`/`add_self_loops` per layer), each derived
// once on first request and kept for the graph's lifetime.
//
//   form.self_loops     Keep: the prepared pattern's; Add: exactly one self
//                       loop per node; Remove: none
//   form.normalization  None (the pattern, or the edge weights the graph was
//                       prepared with), Symmetric (GCN's D^-1/2 A D^-1/2, as
//                       the per-node scale of Adjacency::symmetric_scale for
//                       an unweighted pattern: n floats, not nnz), Row
//                       (D^-1 A: nnz values; mean aggregation needs none:
//                       ops::gspmm's Mean reads the pattern)
//
// The prepared adjacency itself is returned when the form is the one it was
// prepared in. A form with the prepared self loops shares the CSR arrays
// (and their plan and measured kernel choices); another self-loop form
// builds a second CSR, once. So a model whose layers all ask for the form
// the graph was prepared in holds nothing more.
//
// The prepared adjacency must be square with rows sorted and free of
// repeats (prepare_adjacency's output). Deriving another normalisation from
// a normalised weighted adjacency is refused (the raw weights are gone):
// InvalidArgument naming the forms. Thread safe.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <utility>

#include "core/adjacency.hpp"
#include "graph_io/prepare.hpp"

namespace sgnn::graph_io {

struct AdjacencyForm {
  Normalization normalization = Normalization::None;
  SelfLoops self_loops = SelfLoops::Keep;
};

class AdjacencyVariants {
 public:
  // `prepared` was made by prepare_adjacency with `options` (its normalisation,
  // self loops and symmetric_scale say what it holds).
  AdjacencyVariants(Adjacency prepared, const PrepareOptions& options);

  const Adjacency& prepared() const { return prepared_; }
  // Whether `form` is the one the adjacency was prepared in (get returns it then).
  bool is_prepared(const AdjacencyForm& form) const;
  // The adjacency in `form`; the reference stays valid while this object lives.
  const Adjacency& get(const AdjacencyForm& form);
  // Adjacencies derived so far (not counting the prepared one), for tests and reports.
  std::size_t derived_count() const;

 private:
  const Adjacency& pattern_with(SelfLoops self_loops);  // the unnormalised pattern of a self-loop form

  Adjacency prepared_;
  PrepareOptions options_;
  mutable std::mutex mutex_;
  std::map<std::pair<int, int>, std::unique_ptr<Adjacency>> derived_;
};

}  // namespace sgnn::graph_io
