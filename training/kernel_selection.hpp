// The kernels a training run uses on its graph, measured rather than ruled
// (ops/kernel_choices.hpp), and what of that is kept for later runs:
//
//   KernelSelection(...)  before training: imports the choices stored beside
//       the adjacency cache for this device model (graph_io/kernel_choices_file.hpp),
//       the sparse kernels' and the dense products' (ops/gemm_choices.hpp);
//       lets Aᵀ share A's choices when the pattern is symmetric; attaches the
//       HRPB layout only when a kernel may use it: --spmm hrpb; or auto (GCN)
//       when the stored choices pick HRPB at some width (for the SpMM or the
//       SDDMM), or when nothing is stored yet on a CUDA device (then it is
//       built to be timed, not stored); auto on the CPU, which times
//       nothing, runs CSR without building it.
//   after_first_epoch()   the first epoch has timed every (op, width) the
//       model runs: stores the choices when new; with auto, drops the HRPB
//       layout if no op and width chose it, else stores it where reading it back
//       would beat building it (graph_io::store_hrpb_cache_if_faster).
// Without a cache folder the choices live for the process only.
#pragma once

#include <string>
#include <vector>

#include "core/adjacency.hpp"
#include "graph_io/graph.hpp"
#include "graph_io/hrpb_builder.hpp"
#include "graph_io/kernel_choices_file.hpp"

namespace sgnn::training {

class KernelSelection {
 public:
  // `graph` must outlive this object. `symmetric_pattern`: A and Aᵀ have the
  // same pattern (a symmetrised graph).
  KernelSelection(graph_io::Graph& graph, SpmmFormat format, const graph_io::HrpbOptions& hrpb_options,
                  bool symmetric_pattern);

  double hrpb_ms() const { return hrpb_ms_; }      // building or loading the HRPB layout (0: none)
  bool imported() const { return imported_; }      // the choices came from the cache folder
  const std::vector<std::string>& notes() const { return notes_; }

  void after_first_epoch();

  // "csr", "hrpb", or "auto: csr" / "auto: hrpb" for the aggregation at `width`.
  std::string spmm_description(int64_t width, DType dtype = DType::Float32) const;

 private:
  graph_io::Graph& graph_;
  SpmmFormat format_;
  graph_io::HrpbOptions hrpb_options_;
  std::string choices_file_;
  std::string device_model_;
  uint64_t fingerprint_ = 0;
  bool imported_ = false;
  graph_io::ChoiceMap stored_;  // what the cache folder held
  double hrpb_ms_ = 0;
  double hrpb_build_ms_ = 0;  // when built in this run, for the decision to store it
  std::vector<std::string> notes_;
};

}  // namespace sgnn::training
