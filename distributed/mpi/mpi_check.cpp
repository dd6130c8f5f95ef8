#include "distributed/mpi/mpi_check.hpp"

#include <string>

#include "core/error.hpp"

namespace sgnn::distributed {

void check_mpi(int code, const char* call) {
  if (code == MPI_SUCCESS) return;
  char message[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  if (MPI_Error_string(code, message, &length) != MPI_SUCCESS) length = 0;
  throw Error(detail::concat("MPI: ", call, " failed: ", length > 0 ? std::string(message, static_cast<std::size_t>(length)) : "unknown error"));
}

}  // namespace sgnn::distributed
