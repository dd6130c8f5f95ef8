#include "distributed/nccl/nccl_library.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <vector>

#include "core/error.hpp"

namespace sgnn::distributed {

namespace {

template <typename Function>
void bind(void* handle, const char* name, Function& target, const std::string& path) {
  void* symbol = dlsym(handle, name);
  if (symbol == nullptr) {
    throw Error(detail::concat("NCCL: ", path, " has no symbol ", name, " (an NCCL older than 2.19?)"));
  }
  target = reinterpret_cast<Function>(symbol);
}

NcclLibrary load() {
  std::vector<std::string> candidates;
  if (const char* chosen = std::getenv("SGNN_NCCL_LIBRARY"); chosen != nullptr && *chosen != '\0') {
    candidates.emplace_back(chosen);
  }
  candidates.emplace_back("libnccl.so.2");
#ifdef SGNN_NCCL_FALLBACK_LIBRARY
  candidates.emplace_back(SGNN_NCCL_FALLBACK_LIBRARY);
#endif
  std::string tried;
  for (const std::string& candidate : candidates) {
    void* handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      const char* reason = dlerror();
      tried += detail::concat("\n  ", candidate, ": ", reason != nullptr ? reason : "not loadable");
      continue;
    }
    NcclLibrary library;
    library.path = candidate;
#define SGNN_NCCL_BIND(function, member) bind(handle, #function, library.member, candidate);
    SGNN_NCCL_FUNCTIONS(SGNN_NCCL_BIND)
#undef SGNN_NCCL_BIND
    return library;  // the handle stays open for the life of the process
  }
  throw Error(detail::concat(
      "NCCL: could not load the NCCL library; tried:", tried,
      "\nPut the directory holding libnccl.so.2 on LD_LIBRARY_PATH (a PyTorch wheel ships one under "
      "site-packages/nvidia/nccl/lib) or set SGNN_NCCL_LIBRARY to its path."));
}

}  // namespace

const NcclLibrary& nccl_library() {
  static const NcclLibrary library = load();
  return library;
}

void keep_nvlink_multicast_off() { setenv("NCCL_NVLS_ENABLE", "0", /*overwrite=*/0); }

void check_nccl(ncclResult_t result, const char* call, ncclComm_t comm, const char* file, int line) {
  if (result == ncclSuccess) return;
  const NcclLibrary& nccl = nccl_library();
  const char* last = nccl.get_last_error(comm);
  throw Error(detail::concat("NCCL: ", call, " failed at ", file, ":", line, ": ", nccl.get_error_string(result),
                             last != nullptr && *last != '\0' ? detail::concat(" (", last, ")") : std::string()));
}

}  // namespace sgnn::distributed
