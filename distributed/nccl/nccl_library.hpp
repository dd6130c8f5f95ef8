// NCCL's entry points, loaded once at run time with dlopen so that programs
// start on machines without libnccl.so.2 and fail with a message saying
// where NCCL was looked for. Search order: $SGNN_NCCL_LIBRARY, libnccl.so.2
// on the loader's path (LD_LIBRARY_PATH, system), the library found at build
// time (SGNN_NCCL_FALLBACK_LIBRARY).
#pragma once

#include <nccl.h>

#include <string>

namespace sgnn::distributed {

// NCCL function (as declared in nccl.h) and the member that holds it.
#define SGNN_NCCL_FUNCTIONS(X)                                                                          \
  X(ncclGetVersion, get_version) X(ncclGetErrorString, get_error_string) X(ncclGetLastError, get_last_error) \
  X(ncclCommInitAll, comm_init_all) X(ncclCommDestroy, comm_destroy) X(ncclCommAbort, comm_abort)        \
  X(ncclGetUniqueId, get_unique_id) X(ncclCommInitRank, comm_init_rank)                                   \
  X(ncclCommGetAsyncError, comm_get_async_error)                                                          \
  X(ncclGroupStart, group_start) X(ncclGroupEnd, group_end) X(ncclSend, send) X(ncclRecv, recv)          \
  X(ncclAllGather, all_gather) X(ncclReduceScatter, reduce_scatter) X(ncclAllReduce, all_reduce)

struct NcclLibrary {
#define SGNN_NCCL_MEMBER(function, member) decltype(&function) member = nullptr;
  SGNN_NCCL_FUNCTIONS(SGNN_NCCL_MEMBER)
#undef SGNN_NCCL_MEMBER
  std::string path;  // the file that was loaded
};

// Loads NCCL on first use (thread safe); throws sgnn::Error listing every
// place tried with the loader's message.
const NcclLibrary& nccl_library();

// NVLink SHARP multicast stays off (it needs fabric-manager support the
// target machines lack): sets NCCL_NVLS_ENABLE=0 unless the user set it.
void keep_nvlink_multicast_off();

// Throws sgnn::Error "NCCL: <call> failed: <NCCL's error> (<last error>)" at
// file:line unless `result` is ncclSuccess. `comm` may be null.
void check_nccl(ncclResult_t result, const char* call, ncclComm_t comm, const char* file, int line);

}  // namespace sgnn::distributed

#define SGNN_NCCL_CHECK(call, comm) ::sgnn::distributed::check_nccl((call), #call, (comm), __FILE__, __LINE__)
