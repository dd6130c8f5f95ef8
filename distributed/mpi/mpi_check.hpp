// MPI error checks shared by the session and the communicator (MPI builds only).
#pragma once

#include <mpi.h>

namespace sgnn::distributed {

// Throws sgnn::Error "MPI: <call> failed: <MPI's message>" unless `code` is MPI_SUCCESS.
void check_mpi(int code, const char* call);

}  // namespace sgnn::distributed

#define SGNN_MPI_CHECK(call) ::sgnn::distributed::check_mpi((call), #call)
