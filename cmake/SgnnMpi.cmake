# MPI (OpenMPI from Debian: libopenmpi-dev, openmpi-bin) for training across
# processes and machines: the MPI session and the CPU tensors' communicator
# (distributed/mpi/), launched with mpirun. Optional at configure time only:
# without MPI the library builds a stand-in that says MPI is missing
# (distributed/no_mpi/), and the launcher-free NCCL mode still works.
# The C API from C++: the CXX component, with the deprecated C++ bindings compiled out.
set(MPI_CXX_SKIP_MPICXX ON)
find_package(MPI COMPONENTS CXX)
option(SGNN_MPI "Build the MPI launch and the MPI communicator (on by default when MPI is found)" ${MPI_CXX_FOUND})
if(SGNN_MPI AND NOT MPI_CXX_FOUND)
  message(FATAL_ERROR "SGNN_MPI=ON needs MPI (Debian: apt-get install libopenmpi-dev openmpi-bin)")
endif()
if(SGNN_MPI)
  message(STATUS "MPI: ${MPI_CXX_LIBRARIES}, launcher ${MPIEXEC_EXECUTABLE}")
endif()
