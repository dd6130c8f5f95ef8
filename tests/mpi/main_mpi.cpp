// The MPI test tier: every rank of `mpirun -np N test_mpi` runs the same test
// cases (their collectives meet), and the job fails when any rank fails.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include "tests/mpi/mpi_world.hpp"

namespace sgnn::testing {

distributed::MpiSession& mpi_world() {
  static distributed::MpiSession session;
  return session;
}

}  // namespace sgnn::testing

int main(int argc, char** argv) {
  (void)sgnn::testing::mpi_world();  // MPI_Init before any test
  doctest::Context context(argc, argv);
  return context.run();
}
