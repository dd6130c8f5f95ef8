#include "training/nn/model_plugin.hpp"

#include <dlfcn.h>

#include <algorithm>

#include "core/error.hpp"
#include "training/nn/model_registry.hpp"

namespace sgnn::training {

std::vector<std::string> load_model_plugin(const std::string& path) {
  const std::vector<std::string> before = model_names();
  const std::size_t failures_before = registration_failures().size();
  // A path without '/' would be searched in the loader's path instead of read from here.
  const std::string file = path.find('/') == std::string::npos ? "./" + path : path;
  // RTLD_GLOBAL: kinds of one plugin may use symbols of another loaded before it.
  void* handle = dlopen(file.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (handle == nullptr) {
    const char* reason = dlerror();
    throw InvalidArgument(
        detail::concat("model plugin ", path, " cannot be loaded: ", reason != nullptr ? reason : "unknown reason"));
  }
  const std::vector<std::string> failures = registration_failures();
  if (failures.size() > failures_before) {
    throw InvalidArgument(detail::concat("model plugin ", path, ": a registration was refused: ", failures.back()));
  }
  std::vector<std::string> added;
  for (const std::string& name : model_names()) {
    if (std::find(before.begin(), before.end(), name) == before.end()) added.push_back(name);
  }
  SGNN_CHECK(!added.empty(), "model plugin ", path,
             " registers no model (a namespace-scope training::ModelRegistration in a library linked against "
             "libsparsegnn.so registers one when the library is loaded; docs/extending.md)");
  return added;
}

}  // namespace sgnn::training
