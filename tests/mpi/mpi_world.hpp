// The one MPI session of the test_mpi process (tests/mpi/main_mpi.cpp).
#pragma once

#include "distributed/mpi_session.hpp"

namespace sgnn::testing {

distributed::MpiSession& mpi_world();

}  // namespace sgnn::testing
