// The NCCL ranks in a build without NCCL: every entry point says so.
#include "distributed/nccl_ranks.hpp"

#include "core/error.hpp"

namespace sgnn::distributed {

struct NcclRanks::State {};

bool nccl_built() { return false; }

NcclRanks::NcclRanks(const std::vector<int>& devices) {
  throw Error(detail::concat("NcclRanks(", devices.size(),
                             " GPUs): this build of sparsegnn has no NCCL support (configure with the CUDA backend "
                             "and nccl.h found, -DSGNN_NCCL=ON)"));
}

NcclRanks::~NcclRanks() = default;

int NcclRanks::size() const { return 0; }
std::string NcclRanks::nccl_version() const { return "none"; }
void NcclRanks::run(const std::function<void(Communicator&)>&) {
  throw Error("NcclRanks::run: this build of sparsegnn has no NCCL support");
}

}  // namespace sgnn::distributed
