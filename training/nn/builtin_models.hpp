// The model kinds of the library, registered before the first registry
// lookup (training/nn/model_registry.cpp). Each is one file,
// training/nn/<name>_model.cpp, defining its entry; its layers have files
// of their own (gcn_conv, gat_conv, sg_conv, appnp_propagation, sage_conv,
// gin_conv, gatv2_conv, transformer_conv). A new
// built-in kind: its layer file(s), its <name>_model.cpp, and one line here
// and in builtin_models() (docs/extending.md).
#pragma once

#include <vector>

#include "training/nn/model_registry.hpp"

namespace sgnn::training {

ModelEntry gcn_model();    // gcn_model.cpp
ModelEntry gat_model();    // gat_model.cpp
ModelEntry sgc_model();    // sgc_model.cpp
ModelEntry appnp_model();  // appnp_model.cpp
ModelEntry sage_model();         // sage_model.cpp
ModelEntry gin_model();          // gin_model.cpp
ModelEntry gatv2_model();        // gatv2_model.cpp
ModelEntry transformer_model();  // transformer_model.cpp
ModelEntry gine_model();         // gine_model.cpp

// In the order --list-models shows them.
std::vector<ModelEntry> builtin_models();

}  // namespace sgnn::training
