// The CUDA-policy run of the HRPB build steps (graph_io/hrpb_builder.inl).
// Internal to graph_io; only in builds with the CUDA backend.
#pragma once

#include "graph_io/hrpb_builder.inl"

namespace sgnn::graph_io::detail {

// csr and values on one CUDA device; runs on the library's stream.
HrpbBuffers build_hrpb_buffers_on_device(const Csr& csr, const Tensor& values);

}  // namespace sgnn::graph_io::detail
