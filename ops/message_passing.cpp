#include "ops/message_passing.hpp"

#include <algorithm>
#include <array>

namespace sgnn::ops {

namespace {

constexpr std::array<std::string_view, 6> kMessageNames{"copy_u", "copy_e", "u_mul_e", "u_add_e", "u_sub_e",
                                                        "u_div_e"};
constexpr std::array<std::string_view, 7> kBinaryNames{"dot", "add", "sub", "mul", "div", "copy_lhs", "copy_rhs"};

// An operand's feature extents as (heads, features): () -> (1, 1), (D) -> (1, D), (H, D) -> (H, D).
std::array<int64_t, 2> canonical_extents(const Tensor& tensor) {
  const Shape& shape = tensor.shape();
  if (shape.size() <= 1) return {1, 1};
  if (shape.size() == 2) return {1, shape[1]};
  return {shape[1], shape[2]};
}

}  // namespace

std::string_view message_kind_name(MessageKind kind) { return kMessageNames[static_cast<std::size_t>(kind)]; }

MessageKind parse_message_kind(std::string_view text, const char* op) {
  for (std::size_t i = 0; i < kMessageNames.size(); ++i) {
    if (text == kMessageNames[i]) return static_cast<MessageKind>(i);
  }
  throw InvalidArgument(::sgnn::detail::concat(
      op, ": unknown message \"", text, "\" (expected copy_u, copy_e, u_mul_e, u_add_e, u_sub_e or u_div_e)"));
}

std::string_view binary_kind_name(BinaryKind kind) { return kBinaryNames[static_cast<std::size_t>(kind)]; }

BinaryKind parse_binary_kind(std::string_view text, const char* op) {
  for (std::size_t i = 0; i < kBinaryNames.size(); ++i) {
    if (text == kBinaryNames[i]) return static_cast<BinaryKind>(i);
  }
  throw InvalidArgument(::sgnn::detail::concat(
      op, ": unknown operation \"", text, "\" (expected dot, add, sub, mul, div, copy_lhs or copy_rhs)"));
}

std::string_view target_name(Target target) {
  switch (target) {
    case Target::U: return "u";
    case Target::V: return "v";
    case Target::E: return "e";
  }
  return "u";
}

BroadcastShape broadcast_features(const Tensor& lhs, const Tensor& rhs, const char* op, const char* lhs_name,
                                  const char* rhs_name) {
  for (const auto& [tensor, name] : {std::pair{&lhs, lhs_name}, std::pair{&rhs, rhs_name}}) {
    SGNN_CHECK(!tensor->defined() || (tensor->dim() >= 1 && tensor->dim() <= 3), op, ": ", name,
               " must have one to three axes ([n], [n, D] or [n, H, D]), got ", shape_str(tensor->shape()));
  }
  SGNN_CHECK(lhs.defined() || rhs.defined(), op, ": neither ", lhs_name, " nor ", rhs_name, " is defined");
  const Tensor& left = lhs.defined() ? lhs : rhs;
  const Tensor& right = rhs.defined() ? rhs : lhs;
  const std::array<int64_t, 2> a = canonical_extents(left);
  const std::array<int64_t, 2> b = canonical_extents(right);
  BroadcastShape result;
  std::array<int64_t, 2> out{};
  for (std::size_t axis = 0; axis < 2; ++axis) {
    SGNN_CHECK(a[axis] == b[axis] || a[axis] == 1 || b[axis] == 1, op, ": the feature shapes of ", lhs_name, " ",
               shape_str(lhs.defined() ? lhs.shape() : Shape{}), " and ", rhs_name, " ",
               shape_str(rhs.defined() ? rhs.shape() : Shape{}),
               " do not broadcast (past the first axis, extents must match or be 1)");
    out[axis] = std::max(a[axis], b[axis]);
  }
  result.heads = out[0];
  result.features = out[1];
  const int64_t rank = std::max(left.dim(), right.dim()) - 1;
  if (rank == 1) result.feature_shape = {out[1]};
  if (rank == 2) result.feature_shape = {out[0], out[1]};
  const auto layout = [&](const std::array<int64_t, 2>& extents) {
    return FeatureLayout{extents[0] * extents[1], extents[0] == 1 ? 0 : extents[1], extents[1] == 1 ? 0 : 1};
  };
  result.lhs = lhs.defined() ? layout(canonical_extents(lhs)) : FeatureLayout{};
  result.rhs = rhs.defined() ? layout(canonical_extents(rhs)) : FeatureLayout{};
  return result;
}

}  // namespace sgnn::ops
