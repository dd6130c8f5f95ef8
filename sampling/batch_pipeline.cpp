#include "sampling/batch_pipeline.hpp"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <numeric>
#include <thread>

#include "ops/sparse_plan_reservation.hpp"
#include "sampling/device_arena.hpp"
#include "sampling/sample_math.hpp"
#ifdef SGNN_WITH_CUDA
#include "core/cuda_runtime.hpp"
#include "core/feeding_stream.hpp"
#endif

namespace sgnn::sampling {

namespace {
// The stream offset of the epoch shuffles: apart from every sampler hop stream.
constexpr uint64_t kShuffleStream = uint64_t{1} << 62;

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}
}  // namespace

Tensor shuffled(const Tensor& nodes, uint64_t seed, uint64_t epoch) {
  check_dtype(nodes, DType::Int32, "shuffled", "nodes");
  SGNN_CHECK(nodes.device().is_cpu(), "shuffled: nodes must be a host tensor");
  const int32_t* ids = nodes.data<int32_t>();
  const int64_t count = nodes.numel();
  const PhiloxStream stream{seed, kShuffleStream + epoch};
  std::vector<std::pair<uint32_t, int32_t>> keyed(static_cast<std::size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    keyed[static_cast<std::size_t>(i)] = {draw_bits(stream, static_cast<uint64_t>(i)), ids[i]};
  }
  std::sort(keyed.begin(), keyed.end());
  std::vector<int32_t> order(keyed.size());
  for (std::size_t i = 0; i < keyed.size(); ++i) order[i] = keyed[i].second;
  return Tensor::from_vector(order, {count});
}

#ifdef SGNN_WITH_CUDA
// The sampling and gathering threads, their streams, and the events that
// order those streams against the library's.
class BatchPipeline::Producer {
 public:
  // The sampler registers two plans a block (the CSR's and its transpose's,
  // sampling/cuda/block_plans.cu) for each of the `depth` batches it may
  // have sampled before they train: the plan cache keeps room for them all
  // (with the cache's 16 alone, papers100M-scale batches of three blocks
  // rebuilt pushed-out plans on the host in their backward pass: 11-13 s of
  // host time in 17-19 s epochs on the H200).
  Producer(BatchPipeline& owner, int depth, Device device, std::vector<std::shared_ptr<DeviceArena>> arenas)
      : owner_(owner), device_(device), plan_room_(int64_t{2} * owner.sources_.sampler->num_hops() * depth) {
    cuda::DeviceGuard guard(device);
    sample_stream_ = cuda::create_feeding_stream();
    gather_stream_ = cuda::create_feeding_stream();
    // Arenas may still be read by training work of an earlier pipeline.
    SGNN_CUDA_CHECK(cudaEventCreateWithFlags(&library_now_, cudaEventDisableTiming));
    SGNN_CUDA_CHECK(cudaEventRecord(library_now_, cuda::stream(device)));
    SGNN_CUDA_CHECK(cudaStreamWaitEvent(sample_stream_, library_now_, 0));
    slots_.resize(static_cast<std::size_t>(depth));
    for (std::size_t s = 0; s < slots_.size(); ++s) {
      Slot& slot = slots_[s];
      slot.arena = s < arenas.size() && arenas[s] != nullptr ? arenas[s] : std::make_shared<DeviceArena>(device);
      for (cudaEvent_t* event : {&slot.sampled, &slot.ready, &slot.freed}) {
        SGNN_CUDA_CHECK(cudaEventCreateWithFlags(event, cudaEventDisableTiming));
      }
    }
    sampler_ = std::thread([this] { run_stage(Stage::Free, [this](int64_t index, Slot& slot) { sample(index, slot); }); });
    gatherer_ = std::thread([this] { run_stage(Stage::Sampled, [this](int64_t index, Slot& slot) { gather(index, slot); }); });
  }

  ~Producer() {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    changed_.notify_all();
    sampler_.join();
    gatherer_.join();
    cuda::DeviceGuard guard(device_);
    (void)cudaStreamSynchronize(sample_stream_);
    (void)cudaStreamSynchronize(gather_stream_);
    for (Slot& slot : slots_) {
      slot.batch.reset();
      for (cudaEvent_t event : {slot.sampled, slot.ready, slot.freed}) (void)cudaEventDestroy(event);
    }
    (void)cudaEventDestroy(library_now_);
    (void)cudaStreamDestroy(sample_stream_);
    (void)cudaStreamDestroy(gather_stream_);
    (void)cudaGetLastError();
  }

  MiniBatch take(int64_t index) {
    Slot& slot = slot_of(index);
    const Clock::time_point start = Clock::now();
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return error_ != nullptr || (slot.stage == Stage::Ready && slot.batch->index == index); });
    if (error_ != nullptr) std::rethrow_exception(error_);
    seconds_.waiting += seconds_since(start);
    MiniBatch batch = std::move(*slot.batch);
    slot.batch.reset();
    slot.stage = Stage::Training;
    lock.unlock();
    cuda::DeviceGuard guard(device_);
    SGNN_CUDA_CHECK(cudaStreamWaitEvent(cuda::stream(device_), slot.ready, 0));
    return batch;
  }

  void release(int slot_index) {
    Slot& slot = slots_.at(static_cast<std::size_t>(slot_index));
    {
      cuda::DeviceGuard guard(device_);
      SGNN_CUDA_CHECK(cudaEventRecord(slot.freed, cuda::stream(device_)));
      const std::lock_guard<std::mutex> lock(mutex_);
      slot.recorded_free = true;
      slot.stage = Stage::Free;
    }
    changed_.notify_all();
  }

  PipelineSeconds seconds() {
    const std::lock_guard<std::mutex> lock(mutex_);
    return seconds_;
  }

 private:
  // A slot's batch goes Free -> Sampled (the sampling thread) -> Ready (the
  // gathering thread) -> Training (taken) -> Free (released).
  enum class Stage { Free, Sampled, Ready, Training };
  struct Slot {
    std::shared_ptr<DeviceArena> arena;
    cudaEvent_t sampled = nullptr, ready = nullptr, freed = nullptr;
    Stage stage = Stage::Free;
    bool recorded_free = false;  // `freed` recorded: a training step read this arena
    std::optional<MiniBatch> batch;
  };

  Slot& slot_of(int64_t index) { return slots_[static_cast<std::size_t>(index % static_cast<int64_t>(slots_.size()))]; }

  // One thread's stage: for each batch in order, wait until its slot is at
  // `from`, then `work` on it. An error stops the thread and is rethrown by take().
  template <typename Work>
  void run_stage(Stage from, Work work) {
    try {
      cuda::DeviceGuard guard(device_);
      for (int64_t index = 0; index < owner_.num_batches_; ++index) {
        Slot& slot = slot_of(index);
        {
          std::unique_lock<std::mutex> lock(mutex_);
          changed_.wait(lock, [&] {
            return stop_ || error_ != nullptr ||
                   (slot.stage == from && (from == Stage::Free || slot.batch->index == index));
          });
          if (stop_ || error_ != nullptr) return;
        }
        work(index, slot);
      }
    } catch (...) {
      {
        const std::lock_guard<std::mutex> lock(mutex_);
        if (error_ == nullptr) error_ = std::current_exception();
      }
      changed_.notify_all();
    }
  }

  // The sampling thread: the batch's blocks, on the sampling stream.
  void sample(int64_t index, Slot& slot) {
    bool wait_for_free = false;
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      wait_for_free = slot.recorded_free;
    }
    // The training step that read this arena last must be done before it is written again.
    if (wait_for_free) SGNN_CUDA_CHECK(cudaStreamWaitEvent(sample_stream_, slot.freed, 0));
    const Clock::time_point start = Clock::now();
    slot.arena->reset();
    MiniBatch batch = owner_.sample_batch(index, WorkContext{device_, sample_stream_, slot.arena.get()});
    batch.slot = static_cast<int>(index % static_cast<int64_t>(slots_.size()));
    SGNN_CUDA_CHECK(cudaEventRecord(slot.sampled, sample_stream_));
    advance(slot, std::move(batch), Stage::Sampled, &PipelineSeconds::sampling, seconds_since(start));
  }

  // The gathering thread: the batch's rows, on the gathering stream, while
  // the sampling thread samples the next batch.
  void gather(int64_t, Slot& slot) {
    MiniBatch batch;
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      batch = std::move(*slot.batch);
      slot.batch.reset();
    }
    SGNN_CUDA_CHECK(cudaStreamWaitEvent(gather_stream_, slot.sampled, 0));
    const Clock::time_point start = Clock::now();
    owner_.gather_batch(batch, WorkContext{device_, gather_stream_, slot.arena.get()});
    SGNN_CUDA_CHECK(cudaEventRecord(slot.ready, gather_stream_));
    advance(slot, std::move(batch), Stage::Ready, &PipelineSeconds::gathering, seconds_since(start));
  }

  // Hands the batch on, adding the stage's seconds to the epoch's.
  void advance(Slot& slot, MiniBatch batch, Stage to, double PipelineSeconds::*stage_seconds, double seconds) {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      slot.batch = std::move(batch);
      slot.stage = to;
      seconds_.*stage_seconds += seconds;
    }
    changed_.notify_all();
  }

  BatchPipeline& owner_;
  Device device_;
  ops::SparsePlanReservation plan_room_;
  cudaStream_t sample_stream_ = nullptr, gather_stream_ = nullptr;
  cudaEvent_t library_now_ = nullptr;
  std::vector<Slot> slots_;
  std::mutex mutex_;
  std::condition_variable changed_;
  bool stop_ = false;
  std::exception_ptr error_;
  PipelineSeconds seconds_;
  std::thread sampler_, gatherer_;
};
#else
class BatchPipeline::Producer {};
#endif

BatchPipeline::BatchPipeline(PipelineSources sources, Tensor order, int64_t batch_size, uint64_t first_batch,
                             int depth, std::vector<std::shared_ptr<DeviceArena>> arenas)
    : sources_(sources), batch_size_(batch_size), first_batch_(first_batch) {
  SGNN_CHECK(sources_.sampler != nullptr && sources_.features != nullptr && sources_.labels != nullptr,
             "BatchPipeline: a sampler, a feature store and a label store are needed");
  check_dtype(order, DType::Int32, "BatchPipeline", "order");
  check_dim(order, 1, "BatchPipeline", "order");
  SGNN_CHECK(order.device().is_cpu(), "BatchPipeline: order must be a host tensor");
  SGNN_CHECK(batch_size >= 1 && depth >= 1, "BatchPipeline: batch_size ", batch_size, " and depth ", depth,
             " must be positive");
  const Device device = sources_.sampler->graph().device();
  SGNN_CHECK(sources_.features->device() == device && sources_.labels->device() == device,
             "BatchPipeline: the sampler runs on ", device.str(), ", the features on ",
             sources_.features->device().str(), ", the labels on ", sources_.labels->device().str());
  num_batches_ = (order.numel() + batch_size - 1) / batch_size;
  if (device.is_cpu()) {
    order_ = order;
    return;
  }
  order_ = Tensor::empty_pinned({order.numel()}, DType::Int32);  // copied from asynchronously
  std::copy(order.data<int32_t>(), order.data<int32_t>() + order.numel(), order_.data<int32_t>());
#ifdef SGNN_WITH_CUDA
  producer_ = std::make_unique<Producer>(*this, depth, device, std::move(arenas));
#else
  (void)arenas;  // a CUDA device is refused above in a build without CUDA
#endif
}

BatchPipeline::~BatchPipeline() = default;

MiniBatch BatchPipeline::sample_batch(int64_t index, const WorkContext& context) const {
  const int64_t first = index * batch_size_;
  const int64_t count = std::min(batch_size_, order_.numel() - first);
  MiniBatch batch;
  batch.index = index;
  batch.seeds = context.allocate({count}, DType::Int32);
  context.copy(batch.seeds.raw_data(), order_.data<int32_t>() + first, static_cast<std::size_t>(count) * sizeof(int32_t));
  batch.blocks = sources_.sampler->sample(batch.seeds, first_batch_ + static_cast<uint64_t>(index), context);
  return batch;
}

void BatchPipeline::gather_batch(MiniBatch& batch, const WorkContext& context) const {
  batch.inputs = sources_.features->gather(batch.blocks.front().source_ids, context);
  batch.labels = sources_.labels->gather(batch.seeds, context);
}

std::optional<MiniBatch> BatchPipeline::next() {
  if (next_index_ >= num_batches_) return std::nullopt;
  const int64_t index = next_index_++;
#ifdef SGNN_WITH_CUDA
  if (producer_ != nullptr) return producer_->take(index);
#endif
  const WorkContext context = WorkContext::on(Device::cpu());
  const Clock::time_point start = Clock::now();
  MiniBatch batch = sample_batch(index, context);
  const Clock::time_point sampled = Clock::now();
  gather_batch(batch, context);
  cpu_seconds_.sampling += std::chrono::duration<double>(sampled - start).count();
  cpu_seconds_.gathering += seconds_since(sampled);
  return batch;
}

PipelineSeconds BatchPipeline::seconds() const {
#ifdef SGNN_WITH_CUDA
  if (producer_ != nullptr) return producer_->seconds();
#endif
  return cpu_seconds_;
}

void BatchPipeline::release(MiniBatch& batch) {
#ifdef SGNN_WITH_CUDA
  if (producer_ != nullptr && batch.slot >= 0) producer_->release(batch.slot);
#endif
  batch.slot = -1;
}

}  // namespace sgnn::sampling
