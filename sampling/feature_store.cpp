#include "sampling/feature_store.hpp"

#include <algorithm>
#include <numeric>

#include "ops/cast.hpp"
#include "sampling/host_access.hpp"

namespace sgnn::sampling {

std::vector<int32_t> nodes_to_cache(const std::vector<int64_t>& degrees, int64_t cache_bytes, int64_t row_bytes) {
  SGNN_CHECK(row_bytes > 0, "nodes_to_cache: rows of ", row_bytes, " bytes");
  const auto count = static_cast<std::size_t>(
      std::clamp<int64_t>(cache_bytes / row_bytes, 0, static_cast<int64_t>(degrees.size())));
  std::vector<int32_t> order(degrees.size());
  std::iota(order.begin(), order.end(), 0);
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(count), order.end(),
                    [&](int32_t a, int32_t b) {
                      const int64_t da = degrees[static_cast<std::size_t>(a)], db = degrees[static_cast<std::size_t>(b)];
                      return da != db ? da > db : a < b;
                    });
  order.resize(count);
  return order;
}

FeatureStore::FeatureStore(const Tensor& table, Device device, const FeatureStoreOptions& options,
                           const std::vector<int64_t>& degrees)
    : device_(device), residence_(device.is_cpu() ? Residence::Device : options.residence), dtype_(options.dtype) {
  constexpr const char* kWhat = "FeatureStore";
  check_defined(table, kWhat, "table");
  require_available(device);
  const bool floating = is_floating(table.dtype());
  SGNN_CHECK((floating && table.dim() == 2) || (table.dtype() == DType::Int32 && table.dim() == 1), kWhat,
             ": the table must be float32/bfloat16 [N, F] or int32 [N], got ", dtype_name(table.dtype()), " ",
             shape_str(table.shape()));
  SGNN_CHECK(floating ? is_floating(dtype_) : dtype_ == DType::Int32, kWhat, ": a ", dtype_name(table.dtype()),
             " table cannot be gathered as ", dtype_name(dtype_));
  SGNN_CHECK(options.cache_bytes >= 0, kWhat, ": negative cache_bytes ", options.cache_bytes);
  SGNN_CHECK(options.gpu_read_share <= 1.0, kWhat, ": gpu_read_share must be at most 1 (negative: measured), got ",
             options.gpu_read_share);
  one_dimensional_ = table.dim() == 1;
  source_.num_rows = table.size(0);
  source_.row_elements = one_dimensional_ ? 1 : table.size(1);
  if (residence_ == Residence::Device) {
    // Converted once where it is stored: the gathers then move dtype_'s bytes.
    table_ = floating ? ops::cast(table.to(device), dtype_) : table.to(device);
    source_.rows = table_.raw_data();
    source_.dtype = table_.dtype();
    return;
  }
  table_ = make_host_readable(table.to(Device::cpu()), device, access_);
  source_.rows = access_->device_pointer();
  source_.dtype = table_.dtype();
  source_.in_host_memory = true;
  if (device.is_cuda()) {
    split_ = std::make_unique<HostGatherSplit>();
    split_->fixed_gpu_share = options.gpu_read_share;
    if (options.gpu_read_share >= 0.0) split_->gpu_share = options.gpu_read_share;
    source_.split = split_.get();
  }
  if (options.cache_bytes == 0) return;
  SGNN_CHECK(static_cast<int64_t>(degrees.size()) == source_.num_rows, kWhat, ": ", degrees.size(),
             " degrees for a table of ", source_.num_rows, " rows (the cache ranks rows by degree)");
  const int64_t row_bytes = source_.row_elements * static_cast<int64_t>(dtype_size(source_.dtype));
  const std::vector<int32_t> cached = nodes_to_cache(degrees, options.cache_bytes, row_bytes);
  cached_rows_ = static_cast<int64_t>(cached.size());
  if (cached_rows_ == 0) return;
  std::vector<int32_t> slots(static_cast<std::size_t>(source_.num_rows), -1);
  Tensor rows = Tensor::empty({cached_rows_, source_.row_elements}, source_.dtype);
  const auto* host = static_cast<const char*>(table_.raw_data());
  auto* staged = static_cast<char*>(rows.raw_data());
#pragma omp parallel for schedule(static)
  for (int64_t k = 0; k < cached_rows_; ++k) {
    const int32_t node = cached[static_cast<std::size_t>(k)];
    std::copy(host + node * row_bytes, host + (node + 1) * row_bytes, staged + k * row_bytes);
  }
  for (int64_t k = 0; k < cached_rows_; ++k) slots[static_cast<std::size_t>(cached[static_cast<std::size_t>(k)])] = static_cast<int32_t>(k);
  cache_rows_ = rows.to(device);
  slot_of_row_ = Tensor::from_vector(slots, {source_.num_rows}, device);
}

FeatureStore::~FeatureStore() = default;

Tensor FeatureStore::gather(const Tensor& ids, const WorkContext& context) const {
  Tensor out = one_dimensional_ ? context.allocate({ids.numel()}, dtype_)
                                : context.allocate({ids.numel(), source_.row_elements}, dtype_);
  RowCache cache;
  if (cached_rows_ > 0) {
    cache.slot_of_row = slot_of_row_.data<int32_t>();
    cache.rows = cache_rows_.raw_data();
  }
  gather_rows(source_, ids, out, context, cache);
  return out;
}

FeatureStore::SplitTrials FeatureStore::split_trials() const {
  if (split_ == nullptr) return {};
  const std::lock_guard<std::mutex> lock(split_->mutex);
  return {split_->gpu_alone_rows_per_ms, split_->best_shared_rows_per_ms, split_->host_alone_rows_per_ms,
          split_->host_ring_rows_per_ms, split_->chosen, split_->ring};
}

double FeatureStore::gpu_read_share() const {
  if (split_ == nullptr) return 1.0;
  const std::lock_guard<std::mutex> lock(split_->mutex);
  return split_->gpu_share;
}

int64_t FeatureStore::device_bytes() const {
  if (device_.is_cpu()) return 0;
  if (residence_ == Residence::Device) return static_cast<int64_t>(table_.nbytes());
  return static_cast<int64_t>((cache_rows_.defined() ? cache_rows_.nbytes() : 0) +
                              (slot_of_row_.defined() ? slot_of_row_.nbytes() : 0));
}

}  // namespace sgnn::sampling
