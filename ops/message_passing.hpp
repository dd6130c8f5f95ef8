// The vocabulary of generalized message passing (DGL's g-SpMM and g-SDDMM,
// ops/gspmm.hpp and ops/gsddmm.hpp) and how their operands broadcast.
//
// On an Adjacency, row v lists the in-neighbours of node v: entry e of row v
// is the edge u = col(e) -> v = row(e). "u" is the source (a column of A),
// "v" the destination (a row), "e" the edge (an entry, in A's edge order).
//
// Feature shapes broadcast as NumPy does, right-aligned, over at most two
// axes (heads, features): an operand's shape past its first axis is (), (D),
// (H, 1) or (H, D), and an extent of 1 repeats. One convenience follows the
// sparse ops: an edge tensor [nnz, H] beside a node tensor [n, H, D] weighs
// each head (read as [nnz, H, 1]), as ops::spmm's per-head values do.
#pragma once

#include <cstdint>
#include <string_view>

#include "core/tensor.hpp"

namespace sgnn::ops {

// g-SpMM's message of an edge u -> v with edge data e.
enum class MessageKind : unsigned char {
  CopyU,  // x_u
  CopyE,  // w_e
  UMulE,  // x_u · w_e
  UAddE,  // x_u + w_e
  USubE,  // x_u − w_e
  UDivE,  // x_u / w_e
};
// "copy_u", "copy_e", "u_mul_e", "u_add_e", "u_sub_e", "u_div_e" (DGL's names).
std::string_view message_kind_name(MessageKind kind);
MessageKind parse_message_kind(std::string_view text, const char* op);
constexpr bool message_uses_u(MessageKind kind) { return kind != MessageKind::CopyE; }
constexpr bool message_uses_e(MessageKind kind) { return kind != MessageKind::CopyU; }

// g-SDDMM's operation on its two operands.
enum class BinaryKind : unsigned char { Dot, Add, Sub, Mul, Div, CopyLhs, CopyRhs };
// "dot", "add", "sub", "mul", "div", "copy_lhs", "copy_rhs".
std::string_view binary_kind_name(BinaryKind kind);
BinaryKind parse_binary_kind(std::string_view text, const char* op);

// Where a g-SDDMM operand lives: U (a node tensor read at the source, [n_cols, ...]),
// V (a node tensor read at the destination, [n_rows, ...]) or E (an edge tensor [nnz, ...]).
enum class Target : unsigned char { U, V, E };
std::string_view target_name(Target target);  // "u", "v", "e"

// One operand's feature layout inside the broadcast output [.., heads, features]:
// element (h, f) of item i is at i · row_stride + h · head_stride + f · feature_stride
// (a stride of 0 repeats a broadcast extent).
struct FeatureLayout {
  int64_t row_stride = 0;
  int64_t head_stride = 0;
  int64_t feature_stride = 0;
  bool contiguous_features() const { return feature_stride == 1; }
};

// The broadcast of two operands' feature shapes (past their first axes).
struct BroadcastShape {
  int64_t heads = 1;
  int64_t features = 1;
  Shape feature_shape;  // the output's shape past its first axis
  FeatureLayout lhs, rhs;
};

// Broadcasts the feature shapes of `lhs` and `rhs` (either may be undefined:
// then it takes the other's shape). Names `op` and the arguments in the
// InvalidArgument it throws for shapes that do not broadcast or have more
// than two feature axes.
BroadcastShape broadcast_features(const Tensor& lhs, const Tensor& rhs, const char* op, const char* lhs_name,
                                  const char* rhs_name);

}  // namespace sgnn::ops
