#include "distributed/mpi_session.hpp"

#include <cstdio>
#include <limits>

#include "core/error.hpp"
#include "distributed/mpi/mpi_check.hpp"

namespace sgnn::distributed {

bool mpi_built() { return true; }

MpiSession::MpiSession() {
  int initialized = 0;
  SGNN_MPI_CHECK(MPI_Initialized(&initialized));
  SGNN_CHECK(!initialized, "MpiSession: MPI is already initialised (one session per process)");
  int provided = 0;
  // Only the main thread calls MPI; the NCCL watchdog thread never does.
  const int code = MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
  if (code != MPI_SUCCESS) {
    throw Error("MPI: MPI_Init_thread failed (was the program started by mpirun or srun with an MPI plugin?)");
  }
  SGNN_MPI_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  SGNN_MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank_));
  SGNN_MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &size_));
  MPI_Comm host_ranks = MPI_COMM_NULL;
  SGNN_MPI_CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &host_ranks));
  SGNN_MPI_CHECK(MPI_Comm_rank(host_ranks, &local_rank_));
  SGNN_MPI_CHECK(MPI_Comm_size(host_ranks, &local_size_));
  SGNN_MPI_CHECK(MPI_Comm_free(&host_ranks));
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int length = 0;
  SGNN_MPI_CHECK(MPI_Get_processor_name(name, &length));
  host_name_.assign(name, static_cast<std::size_t>(length));
}

MpiSession::~MpiSession() {
  int finalized = 0;
  if (MPI_Finalized(&finalized) == MPI_SUCCESS && !finalized) (void)MPI_Finalize();
}

std::string MpiSession::library_version() const {
  char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  SGNN_MPI_CHECK(MPI_Get_library_version(version, &length));
  std::string text(version, static_cast<std::size_t>(length));
  const std::size_t line_end = text.find_first_of("\n,");
  return line_end == std::string::npos ? text : text.substr(0, line_end);
}

std::vector<uint8_t> MpiSession::broadcast(std::vector<uint8_t> bytes, int root) const {
  SGNN_CHECK(root >= 0 && root < size_, "MpiSession::broadcast: no rank ", root, " of ", size_);
  SGNN_CHECK(bytes.size() <= static_cast<std::size_t>(std::numeric_limits<int>::max()),
             "MpiSession::broadcast: ", bytes.size(), " bytes exceed MPI's int count");
  auto length = static_cast<int64_t>(bytes.size());
  SGNN_MPI_CHECK(MPI_Bcast(&length, 1, MPI_INT64_T, root, MPI_COMM_WORLD));
  bytes.resize(static_cast<std::size_t>(length));
  if (length > 0) SGNN_MPI_CHECK(MPI_Bcast(bytes.data(), static_cast<int>(length), MPI_BYTE, root, MPI_COMM_WORLD));
  return bytes;
}

void MpiSession::barrier() const { SGNN_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD)); }

void MpiSession::abort(int code) const {
  std::fflush(stdout);
  std::fflush(stderr);
  (void)MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);  // MPI_Abort does not return; in case an implementation does
}

}  // namespace sgnn::distributed
