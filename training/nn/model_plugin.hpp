// Model kinds from a plugin: a shared library whose static initialiser
// registers one or more kinds (a namespace-scope ModelRegistration,
// training/nn/model_registry.hpp). Loading it makes them trainable by
// sgnn_train and rebuildable from their checkpoints by sgnn_predict
// (--plugin PATH). The plugin must link libsparsegnn.so (sparsegnn::shared),
// so that it registers into the program's registry; it stays loaded until
// the process ends. docs/extending.md builds one.
#pragma once

#include <string>
#include <vector>

namespace sgnn::training {

// Loads `path` (dlopen) and returns the names of the kinds it registered.
// InvalidArgument naming the file and the reason when it cannot be loaded
// (the loader's message), when its registration fails (the registry's
// message), or when it registers no kind.
std::vector<std::string> load_model_plugin(const std::string& path);

}  // namespace sgnn::training
