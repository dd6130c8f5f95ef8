# Shared target settings. Each layer folder is one static library whose
# sources are found by globbing, so adding a file never needs a CMake edit:
#   <layer>/*.cpp, <layer>/cpu/*.cpp            always
#   <layer>/cuda/*.cu, <layer>/cuda/*.cpp       only with SGNN_CUDA
# and the same under each of the layer's SUBFOLDERS (rooms of one layer, e.g.
# graph_io/readers): a room is part of its layer's library, not a library.

set(SGNN_CXX_WARNINGS -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
    -Wold-style-cast -Wcast-align -Wunused -Woverloaded-virtual -Wconversion
    -Wsign-conversion -Wnull-dereference -Wdouble-promotion -Wformat=2
    -Wimplicit-fallthrough)
if(SGNN_WARNINGS_AS_ERRORS)
  list(APPEND SGNN_CXX_WARNINGS -Werror)
endif()

# Flags for every target of the project (libraries, tests, benches, examples).
function(sgnn_target_defaults target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:${SGNN_CXX_WARNINGS}>
    $<$<COMPILE_LANGUAGE:CUDA>:--expt-relaxed-constexpr --extended-lambda
        -Xcompiler=-Wall,-Wextra -Xptxas=-warn-spills>)
  if(SGNN_SANITIZE)
    target_compile_options(${target} PRIVATE
      $<$<COMPILE_LANGUAGE:CXX>:-fsanitize=${SGNN_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all>)
    target_link_options(${target} PRIVATE -fsanitize=${SGNN_SANITIZE})
  endif()
  if(SGNN_CUDA)
    set_target_properties(${target} PROPERTIES CUDA_SEPARABLE_COMPILATION OFF
                                               CUDA_RESOLVE_DEVICE_SYMBOLS ON)
  endif()
endfunction()

# sgnn_add_layer(<name> <folder> [SUBFOLDERS <folders>...] [DEPS <targets>...])
function(sgnn_add_layer name folder)
  cmake_parse_arguments(ARG "" "" "SUBFOLDERS;DEPS" ${ARGN})
  set(sources)
  foreach(room IN ITEMS ${folder} ${ARG_SUBFOLDERS})
    if(NOT room STREQUAL folder)
      set(room ${folder}/${room})
    endif()
    file(GLOB room_sources CONFIGURE_DEPENDS
         ${PROJECT_SOURCE_DIR}/${room}/*.cpp
         ${PROJECT_SOURCE_DIR}/${room}/cpu/*.cpp)
    list(APPEND sources ${room_sources})
    if(SGNN_CUDA)
      file(GLOB cuda_sources CONFIGURE_DEPENDS
           ${PROJECT_SOURCE_DIR}/${room}/cuda/*.cu
           ${PROJECT_SOURCE_DIR}/${room}/cuda/*.cpp)
      list(APPEND sources ${cuda_sources})
    endif()
  endforeach()
  if(NOT sources)  # a layer with headers only (so far)
    add_library(${name} INTERFACE)
    target_include_directories(${name} INTERFACE
      $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}> $<INSTALL_INTERFACE:include/sparsegnn>)
    target_link_libraries(${name} INTERFACE ${ARG_DEPS})
    install(TARGETS ${name} EXPORT sparsegnnTargets)
    return()
  endif()
  add_library(${name} STATIC ${sources})
  target_include_directories(${name} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}>
    $<INSTALL_INTERFACE:include/sparsegnn>)
  target_link_libraries(${name} PUBLIC ${ARG_DEPS})
  sgnn_target_defaults(${name})
  install(TARGETS ${name} EXPORT sparsegnnTargets)
endfunction()
