// EdgeList: a directed graph as parallel arrays, the input of prepare().
//
//   num_nodes  node ids are in [0, num_nodes), num_nodes < 2^31
//   source     [E] int32
//   target     [E] int32; edge k goes source[k] → target[k]
//   weight     [E] float32, optional (undefined: every edge weighs 1)
//
// Tensors may be on the host or a device; duplicates and self loops are
// allowed (prepare() decides what to do with them).
#pragma once

#include <cstdint>

#include "core/tensor.hpp"

namespace sgnn::graph_io {

struct EdgeList {
  int64_t num_nodes = 0;
  Tensor source;
  Tensor target;
  Tensor weight;

  int64_t num_edges() const { return source.defined() ? source.numel() : 0; }
  // Throws InvalidArgument on mismatched lengths, wrong dtypes or ids out of range.
  void validate() const;
  // The cheap part of validate(): num_nodes range, dtypes and shapes (no element is read).
  void validate_shapes() const;
};

}  // namespace sgnn::graph_io
