// ParameterGroup: parameters that share a learning rate and weight decay,
// as a model hands them to an optimizer (Model::parameter_groups,
// training/optimizer.hpp). Here, below both, so that models need not know
// the optimizers.
#pragma once

#include <optional>
#include <vector>

#include "core/tensor.hpp"

namespace sgnn::training {

struct ParameterGroup {
  std::vector<Tensor> parameters;
  std::optional<float> learning_rate;  // unset: the optimizer's
  std::optional<float> weight_decay;   // unset: the optimizer's
  // Empty, or one per parameter: its bfloat16 compute copy (undefined: none),
  // which every update rewrites from the updated master (Adam in the same
  // pass). Model::parameter_groups fills it in BFloat16 precision.
  std::vector<Tensor> compute_copies{};
};

}  // namespace sgnn::training
