#include "training/nn/builtin_models.hpp"

namespace sgnn::training {

std::vector<ModelEntry> builtin_models() {
  return {gcn_model(), gat_model(), sgc_model(), appnp_model(),
          sage_model(), gin_model(), gatv2_model(), transformer_model(), gine_model()};
}

}  // namespace sgnn::training
