#include "training/block_model.hpp"

namespace sgnn::training {

std::vector<ParameterGroup> BlockModel::parameter_groups(float weight_decay) const {
  ParameterGroup group;
  group.weight_decay = weight_decay;
  group.parameters = parameters();
  group.compute_copies = compute_copies();
  return {group};
}

}  // namespace sgnn::training
