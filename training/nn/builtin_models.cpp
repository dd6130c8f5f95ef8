#include "training/nn/builtin_models.hpp"

namespace sgnn::training {

std::vector<ModelEntry> builtin_models() { return {gcn_model(), gat_model()}; }

}  // namespace sgnn::training
