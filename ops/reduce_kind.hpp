// The reductions of message passing, shared by g-SpMM (ops/gspmm.hpp), the
// scatter and segment reductions (ops/gather_scatter.hpp) and the layers that
// choose their aggregation (PyG's `aggr`, DGL's reduce_op).
//
//   Sum   Σ of the messages; a destination without messages gets 0
//   Mean  Σ / count; a destination without messages gets 0
//   Max   the largest message per feature; a destination without messages
//         gets 0. Backward routes each output's gradient to the one message
//         that won; among equal messages the first wins (the lowest position
//         in the reduction's order: CSR order for g-SpMM and segments, the
//         lowest edge index for scatter). A NaN message wins over every
//         number (the first NaN), so a NaN is never hidden, as torch's amax
//   Min   as Max with the smallest message
#pragma once

#include <string_view>

#include "core/error.hpp"

namespace sgnn::ops {

enum class ReduceKind : unsigned char { Sum, Mean, Max, Min };

constexpr std::string_view reduce_kind_name(ReduceKind kind) {
  switch (kind) {
    case ReduceKind::Sum: return "sum";
    case ReduceKind::Mean: return "mean";
    case ReduceKind::Max: return "max";
    case ReduceKind::Min: return "min";
  }
  return "sum";
}

// "sum", "mean", "max", "min"; anything else -> InvalidArgument naming `op`.
inline ReduceKind parse_reduce_kind(std::string_view text, const char* op) {
  for (ReduceKind kind : {ReduceKind::Sum, ReduceKind::Mean, ReduceKind::Max, ReduceKind::Min}) {
    if (text == reduce_kind_name(kind)) return kind;
  }
  throw InvalidArgument(::sgnn::detail::concat(op, ": unknown reduction \"", text,
                                               "\" (expected sum, mean, max or min)"));
}

// Max and Min remember which message won (for backward).
constexpr bool reduce_keeps_argument(ReduceKind kind) { return kind == ReduceKind::Max || kind == ReduceKind::Min; }

}  // namespace sgnn::ops
