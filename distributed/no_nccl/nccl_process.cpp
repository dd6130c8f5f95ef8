// The multi-process NCCL rank in a build without NCCL: every entry point says so.
#include "distributed/nccl_process.hpp"

#include "core/error.hpp"

namespace sgnn::distributed {

namespace {
[[noreturn]] void missing(const char* what) {
  throw Error(detail::concat(what, ": this build of sparsegnn has no NCCL support (configure with the CUDA backend "
                             "and nccl.h found, -DSGNN_NCCL=ON)"));
}
}  // namespace

struct NcclProcessRank::State {};

std::vector<uint8_t> make_nccl_unique_id() { missing("make_nccl_unique_id"); }
NcclProcessRank::NcclProcessRank(const std::vector<uint8_t>&, int, int, int) { missing("NcclProcessRank"); }
NcclProcessRank::~NcclProcessRank() = default;
Communicator& NcclProcessRank::communicator() { missing("NcclProcessRank::communicator"); }
std::string NcclProcessRank::nccl_version() const { return "none"; }
std::optional<std::string> NcclProcessRank::async_error() const { return std::nullopt; }
void NcclProcessRank::abort() {}
void NcclProcessRank::synchronize() const {}

}  // namespace sgnn::distributed
