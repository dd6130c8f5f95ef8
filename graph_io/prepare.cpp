// prepare_adjacency: argument checks and the host instantiation of the
// Thrust builder (graph_io/csr_builder.hpp) with OpenMP threads; CUDA
// devices go to prepare_adjacency_cuda.
#ifndef __CUDACC__
// Thrust's "device" system in this host-only file is OpenMP, so no CUDA
// header is pulled in by a host compiler.
#define THRUST_DEVICE_SYSTEM THRUST_DEVICE_SYSTEM_OMP
#endif
// GCC reports -Wnull-dereference inside Thrust's sequential helpers after
// inlining (the system-header exemption does not cover it); the pointers are
// the outputs of our own allocations.
#pragma GCC diagnostic ignored "-Wnull-dereference"
#include <thrust/system/omp/execution_policy.h>

#include <cmath>

#include "graph_io/csr_builder.hpp"
#include "graph_io/prepare.hpp"
#include "graph_io/prepare_backend.hpp"

namespace sgnn::graph_io {

void EdgeList::validate_shapes() const {
  SGNN_CHECK(num_nodes >= 0 && num_nodes < (int64_t{1} << 31), "edge list: num_nodes ", num_nodes,
             " out of range [0, 2^31)");
  if (!source.defined() && !target.defined()) return;
  check_dtype(source, DType::Int32, "edge list", "source");
  check_dtype(target, DType::Int32, "edge list", "target");
  SGNN_CHECK(source.dim() == 1 && target.shape() == source.shape(), "edge list: source ",
             shape_str(source.shape()), " and target ", shape_str(target.shape()), " must be [E] and equal");
  if (weight.defined()) {
    check_dtype(weight, DType::Float32, "edge list", "weight");
    SGNN_CHECK(weight.shape() == source.shape(), "edge list: weight has shape ", shape_str(weight.shape()),
               ", expected ", shape_str(source.shape()));
  }
}

void EdgeList::validate() const {
  validate_shapes();
  if (!source.defined() && !target.defined()) return;
  const std::vector<int32_t> sources = source.to_vector<int32_t>();
  const std::vector<int32_t> targets = target.to_vector<int32_t>();
  for (std::size_t k = 0; k < sources.size(); ++k) {
    SGNN_CHECK(sources[k] >= 0 && sources[k] < num_nodes && targets[k] >= 0 && targets[k] < num_nodes,
               "edge list: edge ", k, " (", sources[k], " -> ", targets[k], ") has a node id outside [0, ",
               num_nodes, ")");
  }
  if (weight.defined()) {
    for (const float w : weight.to_vector<float>()) {
      SGNN_CHECK(std::isfinite(w), "edge list: edge weight ", w, " is not finite");
    }
  }
}

Adjacency prepare_adjacency(const EdgeList& edges, const PrepareOptions& options, Tensor* entry_edges) {
  edges.validate_shapes();
  const Device device = options.device;
  require_available(device);
  EdgeList here = edges;
  if (edges.num_edges() > 0) {
    here.source = edges.source.to(device);
    here.target = edges.target.to(device);
    if (edges.weight.defined()) here.weight = edges.weight.to(device);
  }
  if (device.is_cuda()) {
#ifdef SGNN_WITH_CUDA
    return prepare_adjacency_cuda(here, options, entry_edges);
#endif
  }
  csr_builder::check_edges(thrust::omp::par, here);
  return csr_builder::build(thrust::omp::par, here, options, device, entry_edges);
}

Tensor edge_features_in_entry_order(const Tensor& features, const Tensor& entry_edges) {
  check_dtype(features, DType::Float32, "edge_features_in_entry_order", "features");
  check_dtype(entry_edges, DType::Int64, "edge_features_in_entry_order", "entry_edges");
  SGNN_CHECK(features.dim() == 2 && entry_edges.dim() == 1, "edge_features_in_entry_order: features ",
             shape_str(features.shape()), " must be [E, F] and entry_edges ", shape_str(entry_edges.shape()), " [nnz]");
  const Device device = entry_edges.device();
  const Tensor here = features.to(device);
  const int64_t num_edges = features.size(0);
  // The range check reads the entries where they are (once per graph, at preparation).
  const Tensor host_edges = entry_edges.to(Device::cpu());
  const int64_t* edge = host_edges.data<int64_t>();
  for (int64_t k = 0; k < host_edges.numel(); ++k) {
    SGNN_CHECK(edge[k] >= -1 && edge[k] < num_edges, "edge_features_in_entry_order: entry ", k, " takes edge ",
               edge[k], ", outside [-1, ", num_edges, ")");
  }
  if (device.is_cuda()) {
#ifdef SGNN_WITH_CUDA
    return entry_features_cuda(here, entry_edges);
#endif
  }
  return csr_builder::entry_features(thrust::omp::par, here, entry_edges, device);
}

}  // namespace sgnn::graph_io
