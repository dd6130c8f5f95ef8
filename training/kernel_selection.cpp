#include "training/kernel_selection.hpp"

#include <filesystem>
#include <iostream>

#include "graph_io/hrpb_cache.hpp"
#include "graph_io/kernel_choices_file.hpp"
#include "ops/gemm_choices.hpp"
#include "ops/kernel_choices.hpp"
#include "ops/sddmm_choice.hpp"
#include "ops/spmm_choice.hpp"
#include "ops/spmm_format.hpp"

namespace sgnn::training {

namespace {

// Choices of A, of Aᵀ and of the dense products (whose shapes follow from
// the graph's node count and the model) in one map: "csr/<key>",
// "transpose/<key>" and "dense/<key>".
graph_io::ChoiceMap export_choices(const Adjacency& adjacency) {
  graph_io::ChoiceMap all;
  for (const auto& [key, variant] : ops::kernel_choices(adjacency.csr)) all["csr/" + key] = variant;
  for (const auto& [key, variant] : ops::kernel_choices(adjacency.transpose)) all["transpose/" + key] = variant;
  for (const auto& [key, variant] : ops::gemm_choices()) all["dense/" + key] = variant;
  return all;
}

void import_choices(const Adjacency& adjacency, const graph_io::ChoiceMap& all) {
  ops::KernelChoiceMap forward, transpose, dense;
  for (const auto& [key, variant] : all) {
    if (key.starts_with("csr/")) forward[key.substr(4)] = variant;
    if (key.starts_with("transpose/")) transpose[key.substr(10)] = variant;
    if (key.starts_with("dense/")) dense[key.substr(6)] = variant;
  }
  ops::import_kernel_choices(adjacency.csr, forward);
  ops::import_kernel_choices(adjacency.transpose, transpose);
  ops::import_gemm_choices(dense);
}

// Whether a timed choice runs on the HRPB layout: an SpMM format or an SDDMM kernel.
bool any_choice_uses_hrpb(const ops::KernelChoiceMap& choices) {
  return ops::records_hrpb_spmm(choices) || ops::records_hrpb_sddmm(choices);
}

bool has_format_choices(const ops::KernelChoiceMap& choices) { return ops::records_spmm_format(choices); }

}  // namespace

KernelSelection::KernelSelection(graph_io::Graph& graph, SpmmFormat format, const graph_io::HrpbOptions& hrpb_options,
                                 bool symmetric_pattern)
    : graph_(graph), format_(format), hrpb_options_(hrpb_options) {
  Adjacency& adjacency = graph.adjacency;
  if (symmetric_pattern && adjacency.transpose.indptr.defined()) ops::share_kernel_choices(adjacency.csr, adjacency.transpose);
  const std::string& cache_file = graph.statistics.cache_path;
  if (!cache_file.empty()) {
    choices_file_ = graph_io::kernel_choices_path(cache_file).string();
    device_model_ = device_model(adjacency.device());
    fingerprint_ = graph_io::hrpb_cache_fingerprint(cache_file, hrpb_options);  // the adjacency and the HRPB options
    std::string problem;
    if (std::optional<graph_io::ChoiceMap> stored =
            graph_io::load_kernel_choices(choices_file_, fingerprint_, device_model_, problem)) {
      import_choices(adjacency, *stored);
      stored_ = *stored;
      imported_ = true;
    } else if (!problem.empty()) {
      std::cerr << "sparsegnn: timing the kernels again (" << problem << ")\n";
    }
  }
  bool attach = format == SpmmFormat::Hrpb;
  graph_io::HrpbCachePolicy policy;
  if (format == SpmmFormat::Auto) {
    const ops::KernelChoiceMap choices = ops::kernel_choices(adjacency.csr);
    // Stored choices settle it; without them HRPB is a candidate to time on
    // a CUDA device (built, not stored yet). The CPU times nothing, and its
    // HRPB kernel is the reference of the GPU's, not a faster path: CSR.
    attach = has_format_choices(choices) ? any_choice_uses_hrpb(choices) : adjacency.device().is_cuda();
    policy.store_on_miss = false;
  }
  if (!attach) {
    adjacency.spmm_format = SpmmFormat::Csr;
    return;
  }
  const graph_io::HrpbAttachment attachment =
      graph_io::attach_hrpb_cached(adjacency, format, hrpb_options, cache_file, policy);
  hrpb_ms_ = attachment.milliseconds;
  if (attachment.built) hrpb_build_ms_ = attachment.build_ms;
  if (!attachment.note.empty()) notes_.push_back(attachment.note);
}

void KernelSelection::after_first_epoch() {
  Adjacency& adjacency = graph_.adjacency;
  const ops::KernelChoiceMap choices = ops::kernel_choices(adjacency.csr);
  if (format_ == SpmmFormat::Auto && adjacency.hrpb) {
    if (has_format_choices(choices) && !any_choice_uses_hrpb(choices)) {
      adjacency.hrpb.reset();  // timed and never chosen: free its device memory
    } else if (hrpb_build_ms_ > 0 && !graph_.statistics.cache_path.empty() && any_choice_uses_hrpb(choices)) {
      // The read rate of the adjacency cache in this run (0 when it was not read: then nothing is stored yet).
      std::error_code error;
      const auto bytes = std::filesystem::file_size(graph_.statistics.cache_path, error);
      const double rate = !error && graph_.statistics.cache_hit && graph_.statistics.cache_ms > 0
                              ? static_cast<double>(bytes) / graph_.statistics.cache_ms
                              : 0.0;
      std::string note;
      graph_io::store_hrpb_cache_if_faster(adjacency, hrpb_options_, graph_.statistics.cache_path, hrpb_build_ms_, rate,
                                           note);
      if (!note.empty()) notes_.push_back(note);
    }
  }
  if (choices_file_.empty()) return;
  const graph_io::ChoiceMap all = export_choices(adjacency);
  // Nothing timed (a small graph, or a deterministic run): the rules decide. Nothing new: nothing to write.
  if (all.empty() || all == stored_) return;
  try {
    graph_io::store_kernel_choices(choices_file_, fingerprint_, device_model_, all);
  } catch (const IoError& error) {
    notes_.push_back(std::string("could not store the kernel choices: ") + error.what());
  }
}

std::string KernelSelection::spmm_description(int64_t width, DType dtype) const {
  const std::string chosen = spmm_format_name(ops::chosen_spmm_format(graph_.adjacency, width, dtype));
  return format_ == SpmmFormat::Auto ? "auto: " + chosen : chosen;
}

}  // namespace sgnn::training
