// Row gathers on the GPU (sampling/gather.hpp): a group of lanes per row,
// as many as the row has 16-byte vectors (up to a warp), so a warp reads
// up to 512 contiguous bytes per load instruction. From host memory over
// unified addressing each group's loads become a few large bus requests of
// one row; many groups in flight keep the bus busy. Rows whose bytes or
// address do not allow 16-byte accesses take the element path (labels).
// A host table is read in ascending id order: the ids sorted with their
// positions (one radix sort, small beside the rows it orders), row i of the
// sorted ids written to out[position i]. With a HostGatherSplit the sorted
// ids are shared with host threads (sampling/gather.hpp).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <iterator>
#include <utility>
#include <vector>

#include "core/bfloat16.hpp"
#include "core/feeding_stream.hpp"
#include "sampling/cuda/sampling_device.cuh"
#include "sampling/gather_backend.hpp"
#include "sampling/host_rows.hpp"

namespace sgnn::sampling {

namespace {

using namespace cuda_detail;

template <typename In, typename Out>
__device__ __forceinline__ void convert_vector(const uint4& bits, Out* out) {
  if constexpr (std::is_same_v<In, Out>) {
    *reinterpret_cast<uint4*>(out) = bits;
  } else {
    constexpr int kIn = 16 / sizeof(In);
    const In* values = reinterpret_cast<const In*>(&bits);
#pragma unroll
    for (int k = 0; k < kIn; ++k) out[k] = store_as<Out>(load_float(values[k]));
  }
}

template <typename In, typename Out>
__device__ __forceinline__ Out convert_element(In value) {
  if constexpr (std::is_same_v<In, Out>) {
    return value;
  } else {
    return store_as<Out>(load_float(value));
  }
}

template <typename In, typename Out, bool kVector>
__global__ void gather_kernel(const In* __restrict__ table, const int32_t* __restrict__ ids, int64_t count,
                              int64_t width, int group, const int32_t* __restrict__ slot_of_row,
                              const In* __restrict__ cached, const int32_t* __restrict__ out_rows,
                              Out* __restrict__ out) {
  constexpr int64_t kPerVector = 16 / sizeof(In);
  const int64_t thread = grid_stride_begin();
  const int lane = static_cast<int>(thread % group);
  const int64_t groups = grid_stride_step() / group;
  for (int64_t row = thread / group; row < count; row += groups) {
    const int32_t id = ids != nullptr ? ids[row] : static_cast<int32_t>(row);  // null: rows in order
    const int32_t slot = slot_of_row != nullptr ? slot_of_row[id] : -1;
    const In* source = slot >= 0 ? cached + static_cast<int64_t>(slot) * width : table + static_cast<int64_t>(id) * width;
    Out* target = out + (out_rows != nullptr ? static_cast<int64_t>(out_rows[row]) : row) * width;
    if constexpr (kVector) {
      const int64_t vectors = width / kPerVector;
      const uint4* words = reinterpret_cast<const uint4*>(source);
      for (int64_t v = lane; v < vectors; v += group) convert_vector<In, Out>(words[v], target + v * kPerVector);
    } else {
      for (int64_t j = lane; j < width; j += group) target[j] = convert_element<In, Out>(source[j]);
    }
  }
}

// A HostGatherSplit's CUDA side: the stream its DMA copies run on, the
// events that order them and time the gathers, pinned buffers for the
// host's share (ids in, rows out), grown to the largest gather, and the
// measurements of the last gather, read at the next (its work on the
// stream is done by then: the sampler reads its counts from that stream).
struct SplitResources {
  Device device;
  cudaStream_t copy_stream = nullptr, place_stream = nullptr;
  cudaEvent_t ids_ready = nullptr, rows_allocated = nullptr, copies_done = nullptr;
  std::vector<cudaEvent_t> chunk_landed;  // one per DMA chunk of a gather, made as gathers need more
  cudaEvent_t gpu_begin = nullptr, gpu_end = nullptr, gather_begin = nullptr, gather_end = nullptr;  // timed
  Tensor host_ids, staging, ring;  // staging: a whole gather's rows; ring: Reader::HostRing's slots
  // Who reads: the first kSplitTrialGathers gathers are trials in the order
  // of kTrialOrder, and the fastest way is kept. Where the GPU alone fills
  // the bus, host threads only add copies to it; where both readers share
  // host memory and the bus, each slows the other, and the threads alone can
  // beat their balance; whether their ring beats whole staging depends on
  // the host's cache (kRingSlots).
  enum class Choice { Measuring, Shared, GpuAlone, HostAlone, HostRing } choice = Choice::Measuring;
  enum class Reader { GpuAlone, Shared, HostAlone, HostRing };
  // The best of each way's trials, in rows per millisecond.
  double alone_rows_per_ms = 0.0, best_shared_rows_per_ms = 0.0, host_alone_rows_per_ms = 0.0,
         host_ring_rows_per_ms = 0.0;
  double balanced_share = 0.5;  // the shared gathers' share, moved toward the readers' balance by each
  int trials_done = 0;
  bool pending = false;
  Reader pending_reader = Reader::Shared;
  int64_t gpu_rows = 0, host_rows = 0;
  double host_seconds = 0.0;

  explicit SplitResources(Device on) : device(on) {
    copy_stream = cuda::create_feeding_stream();
    place_stream = cuda::create_feeding_stream();
    for (cudaEvent_t* event : {&ids_ready, &rows_allocated, &copies_done}) {
      SGNN_CUDA_CHECK(cudaEventCreateWithFlags(event, cudaEventDisableTiming));
    }
    for (cudaEvent_t* event : {&gpu_begin, &gpu_end, &gather_begin, &gather_end}) SGNN_CUDA_CHECK(cudaEventCreate(event));
  }
  ~SplitResources() {
    // Errors only at process teardown, when there is nothing left to release into.
    (void)cudaStreamSynchronize(copy_stream);
    (void)cudaStreamSynchronize(place_stream);
    for (cudaEvent_t event : {ids_ready, rows_allocated, copies_done, gpu_begin, gpu_end, gather_begin, gather_end}) {
      (void)cudaEventDestroy(event);
    }
    for (cudaEvent_t event : chunk_landed) (void)cudaEventDestroy(event);
    (void)cudaStreamDestroy(copy_stream);
    (void)cudaStreamDestroy(place_stream);
    (void)cudaGetLastError();
  }
  SplitResources(const SplitResources&) = delete;
  SplitResources& operator=(const SplitResources&) = delete;
};

// The trial gathers' readers, in order: each way three times, interleaved,
// and the best of each kept, so that a trial slowed by other work (in the
// mini-batch pipeline the first training steps and the sampler compete for
// the host's cores and the GPU) does not decide alone; the shared trials
// also let the share settle (it halves the distance to the balance at
// each). With one trial of each alone, the papers100M-scale epoch took
// 8.7 s in one call and 17.8 s in the next (H200, ad6d59a): about what the
// GPU alone would give, which a single trial amid other work can pick.
constexpr SplitResources::Reader kTrialOrder[] = {
    SplitResources::Reader::GpuAlone,  SplitResources::Reader::Shared,    SplitResources::Reader::Shared,
    SplitResources::Reader::HostAlone, SplitResources::Reader::HostRing,  SplitResources::Reader::GpuAlone,
    SplitResources::Reader::Shared,    SplitResources::Reader::Shared,    SplitResources::Reader::HostAlone,
    SplitResources::Reader::HostRing,  SplitResources::Reader::GpuAlone,  SplitResources::Reader::Shared,
    SplitResources::Reader::Shared,    SplitResources::Reader::HostAlone, SplitResources::Reader::HostRing};
static_assert(std::size(kTrialOrder) == kSplitTrialGathers);

SplitResources& resources_of(HostGatherSplit& split, Device device) {
  auto resources = std::static_pointer_cast<SplitResources>(split.resources);
  if (resources == nullptr || resources->device != device) {
    resources = std::make_shared<SplitResources>(device);
    split.resources = resources;
  }
  return *resources;
}

// Pinned host memory of at least `bytes` in `buffer` (no copy is reading it:
// see copies_done), grown by half again beyond the request. The callers ask
// for a whole gather's rows, not the host's share: allocating pinned memory
// takes milliseconds, and buffers grown with the share as it moved toward the
// host threads made every trial gather pay that (and lose to the GPU alone).
void reserve_pinned(Tensor& buffer, int64_t bytes) {
  if (buffer.defined() && static_cast<int64_t>(buffer.nbytes()) >= bytes) return;
  const int64_t grown = bytes + bytes / 2;
  buffer = Tensor::empty_pinned({(grown + 15) / 16 * 4}, DType::Int32);
}

// Who reads the next gather: the trial schedule, then the choice.
SplitResources::Reader next_reader(const HostGatherSplit& split, const SplitResources& resources) {
  using Reader = SplitResources::Reader;
  if (split.fixed_gpu_share >= 0.0) return Reader::Shared;  // at the fixed share
  switch (resources.choice) {
    case SplitResources::Choice::HostAlone: return Reader::HostAlone;
    case SplitResources::Choice::HostRing: return Reader::HostRing;
    case SplitResources::Choice::GpuAlone: return Reader::GpuAlone;
    case SplitResources::Choice::Shared: return Reader::Shared;
    case SplitResources::Choice::Measuring: break;
  }
  return kTrialOrder[resources.trials_done];
}

// Reads the last gather's times: a shared gather moves the share halfway to
// the one at which both readers would have finished together; after the
// last trial the fastest of the GPU alone, sharing and the host threads
// alone is chosen. Sets split.gpu_share to the next gather's share.
void update_share(HostGatherSplit& split, SplitResources& resources) {
  using Reader = SplitResources::Reader;
  if (split.fixed_gpu_share >= 0.0) {
    split.gpu_share = std::min(split.fixed_gpu_share, 1.0);
    return;
  }
  if (!resources.pending) return;
  resources.pending = false;
  SGNN_CUDA_CHECK(cudaEventSynchronize(resources.gather_end));
  float gather_ms = 0.0f, gpu_ms = 0.0f;
  SGNN_CUDA_CHECK(cudaEventElapsedTime(&gather_ms, resources.gather_begin, resources.gather_end));
  SGNN_CUDA_CHECK(cudaEventElapsedTime(&gpu_ms, resources.gpu_begin, resources.gpu_end));
  const double rows_per_ms = static_cast<double>(resources.gpu_rows + resources.host_rows) / std::max(gather_ms, 1e-3f);
  if (resources.pending_reader == Reader::GpuAlone) {
    resources.alone_rows_per_ms = std::max(resources.alone_rows_per_ms, rows_per_ms);
  } else if (resources.pending_reader == Reader::HostAlone) {
    resources.host_alone_rows_per_ms = std::max(resources.host_alone_rows_per_ms, rows_per_ms);
  } else if (resources.pending_reader == Reader::HostRing) {
    resources.host_ring_rows_per_ms = std::max(resources.host_ring_rows_per_ms, rows_per_ms);
  } else {
    resources.best_shared_rows_per_ms = std::max(resources.best_shared_rows_per_ms, rows_per_ms);
    if (resources.gpu_rows > 0 && resources.host_rows > 0 && gpu_ms > 0.0f && resources.host_seconds > 0.0) {
      const double gpu_rate = static_cast<double>(resources.gpu_rows) / gpu_ms;
      const double host_rate = static_cast<double>(resources.host_rows) / (resources.host_seconds * 1e3);
      // Both readers keep a share, so both stay measured.
      resources.balanced_share =
          std::clamp(0.5 * resources.balanced_share + 0.5 * gpu_rate / (gpu_rate + host_rate), 0.02, 0.98);
    }
  }
  split.gpu_alone_rows_per_ms = resources.alone_rows_per_ms;
  split.best_shared_rows_per_ms = resources.best_shared_rows_per_ms;
  split.host_alone_rows_per_ms = resources.host_alone_rows_per_ms;
  split.host_ring_rows_per_ms = resources.host_ring_rows_per_ms;
  if (resources.choice == SplitResources::Choice::Measuring && ++resources.trials_done == kSplitTrialGathers) {
    // The fastest at its best trial; on a tie the earlier of GPU alone, shared, whole staging, ring.
    const std::pair<double, SplitResources::Choice> ways[] = {
        {resources.alone_rows_per_ms, SplitResources::Choice::GpuAlone},
        {resources.best_shared_rows_per_ms, SplitResources::Choice::Shared},
        {resources.host_alone_rows_per_ms, SplitResources::Choice::HostAlone},
        {resources.host_ring_rows_per_ms, SplitResources::Choice::HostRing}};
    const auto* fastest = &ways[0];
    for (const auto& way : ways) fastest = way.first > fastest->first ? &way : fastest;
    resources.choice = fastest->second;
    split.chosen = true;
  }
  const Reader next = next_reader(split, resources);
  split.ring = next == Reader::HostRing;
  split.gpu_share = next == Reader::GpuAlone                                ? 1.0
                    : next == Reader::HostAlone || next == Reader::HostRing ? 0.0
                                                                            : resources.balanced_share;
}

// DMA chunks of the host's share: a chunk crosses the bus (and is put in
// place) while host threads copy the next. 4 MiB is ~0.08 ms of the bus:
// the tail left after the threads' last rows, small beside a batch's gather
// and large beside a copy's launch (2 and 1 MiB chunks moved 1-4 % less in
// the probe of host_rows.cpp).
constexpr int64_t kChunkBytes = int64_t{4} << 20;
// Reader::HostRing: the host threads write the rows with ordinary stores
// into a ring of kRingSlots chunks of pinned staging, each slot rewritten
// only once its chunk has landed (host_rows.hpp's ring). 48 MiB stays in the
// CPU's last-level cache, so the DMA reads the rows from the cache and host
// memory carries them once (the table's reads), not three times (reads, the
// staging's writes, the DMA's reads of them). A probe on the H200 (256-byte
// rows of a 28 GB table, 1M sorted ids, 16 threads, copy and DMA together,
// three calls): whole staging with streaming stores 40.3-41.3 GB/s (paced
// 41.0-43.0), rings of 24-64 MiB with ordinary stores 44.2-50.8 GB/s in
// chunks of 2-16 MiB (these 6 slots of 8 MiB: 49.3-49.8), against 55.3 for
// one DMA of the rows alone. Rings of 16 MiB or less moved 27.9-35.8 GB/s,
// rings with streaming stores (which bypass the cache) 41.3-43.5. Whether a
// host's cache holds the ring is the host's: the ring is one of the timed
// readers, beside whole staging.
constexpr int64_t kRingSlots = 6;
constexpr int64_t kRingChunkBytes = int64_t{8} << 20;
// A gather smaller than the ring still turns it this often, in smaller
// chunks, so that the DMA of one chunk overlaps the copy of the next.
constexpr int64_t kRingTurns = 2;

// out[out_rows[i]] = table[read_ids[i]] for the sorted ids, read by the GPU
// (the first gpu_rows) and by host threads (the rest); see gather.hpp.
template <typename In, typename Out>
void shared_gather(const RowSource& source, const int32_t* read_ids, const int32_t* out_rows, int64_t count,
                   int group, const RowCache& cache, Tensor& out, const WorkContext& context,
                   HostGatherSplit& split, SplitResources& resources, SplitResources::Reader reader) {
  const cudaStream_t stream = stream_of(context);
  const int64_t width = source.row_elements;
  const auto* table = static_cast<const In*>(source.rows);
  const auto* cached = static_cast<const In*>(cache.rows);
  const bool host_alone = reader == SplitResources::Reader::HostAlone || reader == SplitResources::Reader::HostRing;
  const int64_t shared_rows = std::clamp<int64_t>(std::llround(split.gpu_share * static_cast<double>(count)), 0, count);
  const int64_t gpu_rows = reader == SplitResources::Reader::GpuAlone ? count : host_alone ? 0 : shared_rows;
  const int64_t host_rows = count - gpu_rows;
  const int64_t row_bytes = width * static_cast<int64_t>(sizeof(In));
  const bool through_ring = reader == SplitResources::Reader::HostRing;
  const int64_t chunk_rows =
      through_ring ? std::clamp<int64_t>((host_rows + kRingSlots * kRingTurns - 1) / (kRingSlots * kRingTurns), 1,
                                         std::max<int64_t>(1, kRingChunkBytes / row_bytes))
                   : std::max<int64_t>(1, kChunkBytes / row_bytes);
  Tensor& staging_buffer = through_ring ? resources.ring : resources.staging;
  if (host_rows > 0) {
    SGNN_CUDA_CHECK(cudaEventSynchronize(resources.copies_done));  // the last gather's copies left the buffers
    reserve_pinned(resources.host_ids, count * 4);
    reserve_pinned(staging_buffer, through_ring ? kRingSlots * chunk_rows * row_bytes : count * row_bytes);
    SGNN_CUDA_CHECK(cudaMemcpyAsync(resources.host_ids.raw_data(), read_ids + gpu_rows,
                                    static_cast<std::size_t>(host_rows) * 4, cudaMemcpyDeviceToHost, stream));
    SGNN_CUDA_CHECK(cudaEventRecord(resources.ids_ready, stream));
  }
  SGNN_CUDA_CHECK(cudaEventRecord(resources.gpu_begin, stream));
  if (gpu_rows > 0) {
    const LaunchShape gpu_shape = elementwise_launch_shape(gpu_rows * group, context.device);
    gather_kernel<In, Out, true><<<gpu_shape.blocks, gpu_shape.threads, 0, stream>>>(
        table, read_ids, gpu_rows, width, group, cache.slot_of_row, cached, out_rows, out.data<Out>());
    SGNN_CUDA_CHECK_LAUNCH("gather_kernel (GPU share)");
  }
  SGNN_CUDA_CHECK(cudaEventRecord(resources.gpu_end, stream));
  double host_seconds = 0.0;
  if (host_rows > 0) {
    // The host's rows on the device as stored, put in place (and converted) by a kernel once copied.
    const Tensor landed = context.allocate({host_rows, width}, source.dtype);
    SGNN_CUDA_CHECK(cudaEventRecord(resources.rows_allocated, stream));
    SGNN_CUDA_CHECK(cudaStreamWaitEvent(resources.copy_stream, resources.rows_allocated, 0));
    SGNN_CUDA_CHECK(cudaStreamWaitEvent(resources.place_stream, resources.rows_allocated, 0));
    const auto chunks = static_cast<std::size_t>((host_rows + chunk_rows - 1) / chunk_rows);
    while (resources.chunk_landed.size() < chunks) {
      cudaEvent_t event = nullptr;
      SGNN_CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
      resources.chunk_landed.push_back(event);
    }
    SGNN_CUDA_CHECK(cudaEventSynchronize(resources.ids_ready));
    const auto started = std::chrono::steady_clock::now();
    const auto* host_ids = resources.host_ids.data<int32_t>();
    auto* staging = static_cast<char*>(staging_buffer.raw_data());
    auto* landing = static_cast<char*>(landed.raw_data());
    // Each chunk, as soon as the threads have written it, issued by the
    // thread that finished it: DMA to the device on the copy stream, then put
    // in place (and converted) by a kernel on the place stream, which waits
    // for that chunk's copy alone. On the copy stream itself each kernel would
    // hold the next chunk's DMA back and leave the bus idle between chunks
    // (papers100M-scale table, 1M rows of 256 bytes, H200: 24.3 GB/s so, in
    // one call; 39.9 with the kernels on a stream of their own, in the next).
    const auto carry_chunk = [&](int64_t first, int64_t rows) {
      cuda::DeviceGuard chunk_guard(context.device);
      const int64_t chunk = first / chunk_rows;
      cudaEvent_t landed_event = resources.chunk_landed[static_cast<std::size_t>(chunk)];
      const int64_t staged_row = through_ring ? (chunk % kRingSlots) * chunk_rows : first;
      SGNN_CUDA_CHECK(cudaMemcpyAsync(landing + first * row_bytes, staging + staged_row * row_bytes,
                                      static_cast<std::size_t>(rows * row_bytes), cudaMemcpyHostToDevice,
                                      resources.copy_stream));
      SGNN_CUDA_CHECK(cudaEventRecord(landed_event, resources.copy_stream));
      SGNN_CUDA_CHECK(cudaStreamWaitEvent(resources.place_stream, landed_event, 0));
      const LaunchShape place_shape = elementwise_launch_shape(rows * group, context.device);
      gather_kernel<In, Out, true><<<place_shape.blocks, place_shape.threads, 0, resources.place_stream>>>(
          landed.data<In>() + first * width, nullptr, rows, width, group, nullptr, nullptr,
          out_rows + gpu_rows + first, out.data<Out>());
      SGNN_CUDA_CHECK_LAUNCH("gather_kernel (host share into place)");
    };
    const auto chunk_has_landed = [&](int64_t chunk) {
      const cudaError_t status = cudaEventQuery(resources.chunk_landed[static_cast<std::size_t>(chunk)]);
      if (status == cudaErrorNotReady) return false;  // an answer, not an error
      SGNN_CUDA_CHECK(status);
      return true;
    };
    // Whole staging is written with streaming stores (the DMA reads it from
    // memory; cached, the lines would take the caches from the table's reads),
    // the ring with ordinary ones (the DMA reads it from the cache).
    copy_rows_by_threads(source.rows, row_bytes, host_ids, host_rows, staging,
                         through_ring ? RowWrites::cached : RowWrites::streaming,
                         RowChunks{chunk_rows, carry_chunk, through_ring ? kRingSlots : 0, chunk_has_landed,
                                   through_ring ? kRingSlots : 0});
    host_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    // Every chunk's kernel on the place stream waited for its copy: the place stream's end covers both.
    SGNN_CUDA_CHECK(cudaEventRecord(resources.copies_done, resources.place_stream));
    SGNN_CUDA_CHECK(cudaStreamWaitEvent(stream, resources.copies_done, 0));
  }
  SGNN_CUDA_CHECK(cudaEventRecord(resources.gather_end, stream));
  resources.pending = true;
  resources.pending_reader = reader;
  resources.gpu_rows = gpu_rows;
  resources.host_rows = host_rows;
  resources.host_seconds = host_seconds;
}

template <typename In, typename Out>
void launch_gather(const RowSource& source, const Tensor& ids, Tensor& out, const WorkContext& context,
                   const RowCache& cache) {
  constexpr int64_t kPerVector = 16 / sizeof(In);
  const int64_t width = source.row_elements;
  const bool vector = width % kPerVector == 0 && aligned16(source.rows) && aligned16(out.raw_data()) &&
                      (cache.rows == nullptr || aligned16(cache.rows));
  const int64_t units = vector ? width / kPerVector : width;
  int group = 1;
  while (group < 32 && group < units) group *= 2;
  const int64_t count = ids.numel();
  const LaunchShape shape = elementwise_launch_shape(count * group, context.device);
  const auto* table = static_cast<const In*>(source.rows);
  const auto* cached = static_cast<const In*>(cache.rows);
  const cudaStream_t stream = stream_of(context);
  // A host table shared with host threads (gather.hpp): the split's lock
  // is held from here, so the gather's times are its own.
  std::unique_lock<std::mutex> split_lock;
  SplitResources* resources = nullptr;
  SplitResources::Reader reader = SplitResources::Reader::Shared;
  if (vector && source.in_host_memory && source.split != nullptr && count >= kSplitMinimumRows) {
    split_lock = std::unique_lock<std::mutex>(source.split->mutex);
    resources = &resources_of(*source.split, context.device);
    update_share(*source.split, *resources);
    if (resources->choice == SplitResources::Choice::GpuAlone) {
      resources = nullptr;  // chosen: the plain path below
    } else {
      reader = next_reader(*source.split, *resources);
      SGNN_CUDA_CHECK(cudaEventRecord(resources->gather_begin, stream));
    }
  }
  const int32_t* read_ids = ids.data<int32_t>();
  const int32_t* out_rows = nullptr;
  Tensor sorted_ids, positions;
  if (source.in_host_memory && count > 1) {
    Tensor identity = context.allocate({count}, DType::Int32);
    sorted_ids = context.allocate({count}, DType::Int32);
    positions = context.allocate({count}, DType::Int32);
    const LaunchShape iota_shape = elementwise_launch_shape(count, context.device);
    iota_kernel<<<iota_shape.blocks, iota_shape.threads, 0, stream>>>(identity.data<int32_t>(), count);
    SGNN_CUDA_CHECK_LAUNCH("iota_kernel (gather order)");
    run_cub(context, "DeviceRadixSort::SortPairs (gather order)", [&](void* storage, std::size_t& bytes) {
      return cub::DeviceRadixSort::SortPairs(storage, bytes, ids.data<int32_t>(), sorted_ids.data<int32_t>(),
                                             identity.data<int32_t>(), positions.data<int32_t>(), count, 0,
                                             key_bits(source.num_rows), stream);
    });
    read_ids = sorted_ids.data<int32_t>();
    out_rows = positions.data<int32_t>();
  }
  if (resources != nullptr) {
    return shared_gather<In, Out>(source, read_ids, out_rows, count, group, cache, out, context, *source.split,
                                  *resources, reader);
  }
  if (vector) {
    gather_kernel<In, Out, true><<<shape.blocks, shape.threads, 0, stream>>>(
        table, read_ids, count, width, group, cache.slot_of_row, cached, out_rows, out.data<Out>());
  } else {
    gather_kernel<In, Out, false><<<shape.blocks, shape.threads, 0, stream>>>(
        table, read_ids, count, width, group, cache.slot_of_row, cached, out_rows, out.data<Out>());
  }
  SGNN_CUDA_CHECK_LAUNCH("gather_kernel");
}

}  // namespace

void gather_rows(ops::Cuda, const RowSource& source, const Tensor& ids, Tensor& out, const WorkContext& context,
                 const RowCache& cache) {
  cuda::DeviceGuard guard(context.device);
  if (source.dtype == DType::Int32) return launch_gather<int32_t, int32_t>(source, ids, out, context, cache);
  visit_floating(source.dtype, [&](auto in_element) {
    using In = decltype(in_element);
    visit_floating(out.dtype(), [&](auto out_element) {
      using Out = decltype(out_element);
      launch_gather<In, Out>(source, ids, out, context, cache);
    });
  });
}

}  // namespace sgnn::sampling
