// The MPI launch in a build without MPI: every entry point says so.
#include "core/error.hpp"
#include "distributed/mpi_communicator.hpp"
#include "distributed/mpi_session.hpp"

namespace sgnn::distributed {

namespace {
[[noreturn]] void missing(const char* what) {
  throw Error(detail::concat(what, ": this build of sparsegnn has no MPI support (install libopenmpi-dev and "
                             "openmpi-bin and configure again, or -DSGNN_MPI=ON)"));
}
}  // namespace

struct MpiCommunicator::State {};

bool mpi_built() { return false; }

MpiSession::MpiSession() { missing("MpiSession"); }
MpiSession::~MpiSession() = default;
std::string MpiSession::library_version() const { return "none"; }
std::vector<uint8_t> MpiSession::broadcast(std::vector<uint8_t>, int) const { missing("MpiSession::broadcast"); }
void MpiSession::barrier() const { missing("MpiSession::barrier"); }
void MpiSession::abort(int code) const { std::_Exit(code); }

MpiCommunicator::MpiCommunicator(const MpiSession&, int64_t) { missing("MpiCommunicator"); }
MpiCommunicator::~MpiCommunicator() = default;
int MpiCommunicator::rank() const { return 0; }
int MpiCommunicator::size() const { return 1; }
void MpiCommunicator::exchange(const std::vector<Tensor>&, const std::vector<Tensor>&) { missing("MpiCommunicator"); }
void MpiCommunicator::all_gather(const Tensor&, const Tensor&) { missing("MpiCommunicator"); }
void MpiCommunicator::reduce_scatter_sum(const Tensor&, const Tensor&) { missing("MpiCommunicator"); }
void MpiCommunicator::all_reduce_sum(const std::vector<Tensor>&) { missing("MpiCommunicator"); }

}  // namespace sgnn::distributed
