# NCCL for multi-GPU training (distributed/nccl/). Only the header is needed
# at build time: the library is loaded with dlopen when a program first asks
# for NCCL, so every binary starts (and says clearly what is missing) on a
# machine without libnccl.so.2. SGNN_NCCL_LIBRARY is the last place searched
# at run time, after $SGNN_NCCL_LIBRARY and the loader's own path.
set(SGNN_NCCL_FOUND OFF)
if(SGNN_CUDA)
  find_path(SGNN_NCCL_INCLUDE_DIR nccl.h HINTS ${CUDAToolkit_INCLUDE_DIRS} /usr/local/cuda/include)
  find_library(SGNN_NCCL_LIBRARY NAMES nccl libnccl.so.2 HINTS ${CUDAToolkit_LIBRARY_DIR} /usr/local/cuda/lib64)
  if(SGNN_NCCL_INCLUDE_DIR)
    set(SGNN_NCCL_FOUND ON)
  endif()
endif()
option(SGNN_NCCL "Build the NCCL multi-GPU path (on by default when nccl.h is found)" ${SGNN_NCCL_FOUND})
if(SGNN_NCCL AND NOT SGNN_NCCL_FOUND)
  message(FATAL_ERROR "SGNN_NCCL=ON needs the CUDA backend and nccl.h (set SGNN_NCCL_INCLUDE_DIR)")
endif()
if(SGNN_NCCL)
  message(STATUS "NCCL: ${SGNN_NCCL_INCLUDE_DIR}/nccl.h, run-time fallback ${SGNN_NCCL_LIBRARY}")
endif()
