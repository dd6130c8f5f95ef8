# libsparsegnn.so: every layer in one shared library, made of the objects of
# the static layer libraries (compiled once for both). The project's own
# programs (tests, benchmarks, examples) link it, so each program holds only
# its own code and all of them together stay small; a user's project links
# either (sparsegnn::sparsegnn static, sparsegnn::shared shared;
# cmake/SgnnInstall.cmake).
#
# CUDA: the layers compile without separable compilation, so every .cu object
# is complete and the shared library needs no device link step. The whole
# project uses the shared CUDA runtime (CMAKE_CUDA_RUNTIME_LIBRARY Shared, set
# in the top-level CMakeLists.txt): a program holds one runtime, whose
# streams, memory pools and registered kernels the library and the program's
# own CUDA code share.
#
# In the build tree the library lies in <build>/lib and programs find it
# through the RPATH $ORIGIN/../lib, which also holds where scripts/stage-gpu.sh
# copies them (<stage>/{tests,bench,examples}/ and <stage>/lib/).
set(sgnn_layers sgnn_core sgnn_ops sgnn_graph_io sgnn_sampling sgnn_training sgnn_distributed)
add_library(sparsegnn_shared SHARED)
add_library(sparsegnn::shared ALIAS sparsegnn_shared)
foreach(layer ${sgnn_layers})
  target_sources(sparsegnn_shared PRIVATE $<TARGET_OBJECTS:${layer}>)
endforeach()
set_target_properties(sparsegnn_shared PROPERTIES
  OUTPUT_NAME sparsegnn
  EXPORT_NAME shared
  VERSION ${PROJECT_VERSION}
  SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR}
  LINKER_LANGUAGE CXX
  LIBRARY_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/lib
  # An installed library finds the CUDA toolkit's libraries where it was linked against them.
  INSTALL_RPATH_USE_LINK_PATH TRUE)
sgnn_target_defaults(sparsegnn_shared)
# Whole-program CUDA objects: nothing for a device link step to resolve.
set_target_properties(sparsegnn_shared PROPERTIES CUDA_RESOLVE_DEVICE_SYMBOLS OFF)

# What the layers' headers need of a consumer (the static layers' PUBLIC
# requirements, stated once more here since the objects come without them).
target_include_directories(sparsegnn_shared PUBLIC
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}> $<INSTALL_INTERFACE:include/sparsegnn>)
# Thrust: this machine's for the build; an install's consumer finds its own
# (cmake/sparsegnnConfig.cmake.in), so the exported targets name no toolkit path.
target_include_directories(sparsegnn_shared SYSTEM PUBLIC $<BUILD_INTERFACE:${SGNN_THRUST_INCLUDE}>)
target_include_directories(sparsegnn_shared SYSTEM INTERFACE ${Boost_INCLUDE_DIRS})
target_link_libraries(sparsegnn_shared PUBLIC OpenMP::OpenMP_CXX)
if(SGNN_CUDA)
  target_compile_definitions(sparsegnn_shared PUBLIC SGNN_WITH_CUDA=1)
  target_link_libraries(sparsegnn_shared PUBLIC CUDA::cudart)
endif()
# The layers' own link dependencies (zlib, cuBLAS, MPI, ...) come with their
# targets. Their archives add no code: every symbol in them is defined by the
# objects above already, so the linker takes none of their members.
target_link_libraries(sparsegnn_shared PRIVATE ${sgnn_layers})
