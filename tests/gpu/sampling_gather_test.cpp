// GPU gathers against host copies: tables in device memory, pinned host
// memory and page-locked pageable memory (unified addressing), with and
// without the device cache, converting float32 and bfloat16, host tables
// read by the GPU alone or shared with host threads; outputs poisoned
// first, so a row the kernel misses shows.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>

#include "core/bfloat16.hpp"
#include "sampling/feature_store.hpp"
#include "sampling/host_access.hpp"
#include "tests/support/gpu_testing.hpp"
#include "tests/support/testing.hpp"

namespace {

using namespace sgnn;
using sgnn::testing::kGpu;

std::vector<float> widened(const Tensor& t) {
  const Tensor host = t.to(Device::cpu());
  if (host.dtype() == DType::Float32) return host.to_vector<float>();
  std::vector<float> out;
  for (const bfloat16 v : host.to_vector<bfloat16>()) out.push_back(v.to_float());
  return out;
}

// out[i] == table[ids[i]] converted to out's dtype, element for element.
void check_rows(const Tensor& out, const Tensor& table, const std::vector<int32_t>& ids) {
  const std::vector<float> got = widened(out);
  const std::vector<float> rows = widened(table);
  const int64_t width = table.size(1);
  REQUIRE(got.size() == ids.size() * static_cast<std::size_t>(width));
  int64_t wrong = 0;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    for (int64_t j = 0; j < width; ++j) {
      float expected = rows[static_cast<std::size_t>(ids[i] * width + j)];
      if (out.dtype() == DType::BFloat16) expected = bfloat16(expected).to_float();
      wrong += got[i * static_cast<std::size_t>(width) + static_cast<std::size_t>(j)] != expected ? 1 : 0;
    }
  }
  CHECK(wrong == 0);
}

std::vector<int32_t> random_ids(int64_t count, int64_t bound, uint64_t seed) {
  const Tensor t = sgnn::testing::random_indices({count}, seed, 0, bound, DType::Int32);
  return t.to_vector<int32_t>();
}

}  // namespace

TEST_CASE("GPU gathers from device, pinned and page-locked host tables equal the host copies, any width and dtype") {
  const int64_t rows = 5000;
  for (const int64_t width : {int64_t{1}, int64_t{3}, int64_t{100}, int64_t{128}, int64_t{602}}) {
    for (const DType stored : {DType::Float32, DType::BFloat16}) {
      for (const DType wanted : {DType::Float32, DType::BFloat16}) {
        CAPTURE(width);
        CAPTURE(dtype_name(stored));
        CAPTURE(dtype_name(wanted));
        Tensor table = sgnn::testing::random_tensor({rows, width}, 200 + static_cast<uint64_t>(width));
        if (stored == DType::BFloat16) {
          std::vector<bfloat16> narrow;
          for (const float v : table.to_vector<float>()) narrow.push_back(bfloat16(v));
          table = Tensor::from_vector(narrow, {rows, width});
        }
        const std::vector<int32_t> wanted_ids = random_ids(3000, rows, 7);
        const Tensor ids = Tensor::from_vector(wanted_ids, {3000}, kGpu);
        Tensor pinned = Tensor::empty_pinned({rows, width}, stored);
        std::memcpy(pinned.raw_data(), table.raw_data(), table.nbytes());
        for (const auto& [name, source, residence] :
             {std::tuple{"device", table, sampling::Residence::Device}, std::tuple{"pinned host", pinned, sampling::Residence::Host},
              std::tuple{"pageable host", table, sampling::Residence::Host}}) {
          CAPTURE(name);
          sampling::FeatureStoreOptions options;
          options.residence = residence;
          options.dtype = wanted;
          const sampling::FeatureStore store(source, kGpu, options);
          CHECK(store.residence() == residence);
          check_rows(store.gather(ids), table, wanted_ids);
        }
      }
    }
  }
}

TEST_CASE("GPU gathers through the degree cache read cached rows from the device and the others from the host") {
  const int64_t rows = 2000, width = 64;
  const Tensor table = sgnn::testing::random_tensor({rows, width}, 210);
  std::vector<int64_t> degrees(static_cast<std::size_t>(rows));
  for (int64_t v = 0; v < rows; ++v) degrees[static_cast<std::size_t>(v)] = (v * 7919) % 1000;
  sampling::FeatureStoreOptions options;
  options.residence = sampling::Residence::Host;
  options.cache_bytes = 300 * width * 4;
  const sampling::FeatureStore store(table, kGpu, options, degrees);
  CHECK(store.cached_rows() == 300);
  const std::vector<int32_t> wanted_ids = random_ids(5000, rows, 8);
  check_rows(store.gather(Tensor::from_vector(wanted_ids, {5000}, kGpu)), table, wanted_ids);
}

TEST_CASE("GPU label gathers (int32, one per row) from host memory") {
  std::vector<int32_t> labels(1000);
  for (std::size_t v = 0; v < labels.size(); ++v) labels[v] = static_cast<int32_t>((v * 31) % 47);
  sampling::FeatureStoreOptions options;
  options.residence = sampling::Residence::Host;
  options.dtype = DType::Int32;
  const sampling::FeatureStore store(Tensor::from_vector(labels, {1000}), kGpu, options);
  const std::vector<int32_t> wanted_ids = random_ids(777, 1000, 9);
  const std::vector<int32_t> got = store.gather(Tensor::from_vector(wanted_ids, {777}, kGpu)).to(Device::cpu()).to_vector<int32_t>();
  std::vector<int32_t> expected;
  for (const int32_t id : wanted_ids) expected.push_back(labels[static_cast<std::size_t>(id)]);
  CHECK(got == expected);
}

TEST_CASE("HostAccess reads pinned memory in place, refuses pageable memory; make_host_readable pins a copy") {
  const Tensor pinned = Tensor::empty_pinned({1 << 16});
  const sampling::HostAccess as_is(pinned, kGpu);
  CHECK(as_is.device_pointer() == pinned.raw_data());
  const Tensor pageable = sgnn::testing::random_tensor({1 << 16}, 225);
  CHECK_THROWS_AS(sampling::HostAccess(pageable, kGpu), InvalidArgument);
  std::unique_ptr<sampling::HostAccess> access;
  const Tensor readable = sampling::make_host_readable(pageable, kGpu, access);
  CHECK_FALSE(readable.shares_storage_with(pageable));
  CHECK(readable.to_vector<float>() == pageable.to_vector<float>());
  CHECK_THROWS_AS(sampling::HostAccess(Tensor::zeros({4}, DType::Float32, kGpu), kGpu), InvalidArgument);
}

TEST_CASE("GPU gather_rows writes every row asked for (outputs poisoned first), from the device and from the host, "
          "in the ids' order and in ascending id order (host tables)") {
  const int64_t rows = 4096, width = 96;
  const Tensor table = sgnn::testing::random_tensor({rows, width}, 220);
  const Tensor on_device = table.to(kGpu);
  std::unique_ptr<sampling::HostAccess> host;
  const Tensor readable = sampling::make_host_readable(table, kGpu, host);
  const std::vector<int32_t> wanted_ids = random_ids(10000, rows, 10);
  const Tensor ids = Tensor::from_vector(wanted_ids, {10000}, kGpu);
  for (const void* rows_pointer : std::initializer_list<const void*>{on_device.raw_data(), host->device_pointer()}) {
    for (const bool ascending : {false, true}) {
      CAPTURE(ascending);
      Tensor out = sgnn::testing::poisoned({10000, width}, kGpu);
      sampling::gather_rows({rows_pointer, DType::Float32, rows, width, ascending}, ids, out,
                            sampling::WorkContext::on(kGpu));
      check_rows(out, table, wanted_ids);
    }
  }
}

TEST_CASE("host tables of adjacent sections of one buffer are read correctly, before and after one goes") {
  const int64_t width = 10;  // 40-byte rows: the two halves share a page
  const Tensor whole = sgnn::testing::random_tensor({3001, width}, 230);
  const Tensor first = whole.narrow_rows(0, 1500);
  const Tensor second = whole.narrow_rows(1500, 3001);
  const std::vector<int32_t> wanted_ids = random_ids(2000, 1500, 11);
  const Tensor ids = Tensor::from_vector(wanted_ids, {2000}, kGpu);
  sampling::FeatureStoreOptions options;
  options.residence = sampling::Residence::Host;
  auto store_first = std::make_unique<sampling::FeatureStore>(first, kGpu, options);
  const sampling::FeatureStore store_second(second, kGpu, options);
  check_rows(store_first->gather(ids), first, wanted_ids);
  check_rows(store_second.gather(ids), second, wanted_ids);
  store_first.reset();
  check_rows(store_second.gather(ids), second, wanted_ids);
}

TEST_CASE("GPU gathers of host tables shared with host threads equal the host copies at every share, converting, "
          "through the cache, and the measured share moves off its start") {
  const int64_t rows = 40000, width = 128;
  const int64_t count = 3 * sampling::kSplitMinimumRows;  // split: at least kSplitMinimumRows ids
  const Tensor table = sgnn::testing::random_tensor({rows, width}, 240);
  std::vector<int64_t> degrees(static_cast<std::size_t>(rows));
  for (int64_t v = 0; v < rows; ++v) degrees[static_cast<std::size_t>(v)] = (v * 104729) % 5000;
  const std::vector<int32_t> wanted_ids = random_ids(count, rows, 12);  // repeats among them
  const Tensor ids = Tensor::from_vector(wanted_ids, {count}, kGpu);
  for (const double share : {0.0, 0.3, 0.97, 1.0}) {
    for (const DType wanted : {DType::Float32, DType::BFloat16}) {
      for (const int64_t cache_bytes : {int64_t{0}, 4000 * width * 4}) {
        CAPTURE(share);
        CAPTURE(dtype_name(wanted));
        CAPTURE(cache_bytes);
        sampling::FeatureStoreOptions options;
        options.residence = sampling::Residence::Host;
        options.dtype = wanted;
        options.cache_bytes = cache_bytes;
        options.gpu_read_share = share;
        const sampling::FeatureStore store(table, kGpu, options, degrees);
        CHECK(store.gpu_read_share() == share);
        check_rows(store.gather(ids), table, wanted_ids);
        check_rows(store.gather(ids), table, wanted_ids);  // the buffers of the first gather reused
      }
    }
  }
  // Poisoned output through gather_rows itself: every row written, whichever reader had it.
  sampling::HostGatherSplit split;
  split.fixed_gpu_share = 0.5;
  std::unique_ptr<sampling::HostAccess> host;
  const Tensor readable = sampling::make_host_readable(table, kGpu, host);
  Tensor out = sgnn::testing::poisoned({count, width}, kGpu);
  sampling::RowSource source{host->device_pointer(), DType::Float32, rows, width, true, &split};
  sampling::gather_rows(source, ids, out, sampling::WorkContext::on(kGpu));
  check_rows(out, table, wanted_ids);

  // Measured: trials of the GPU alone, shared gathers whose share moves to
  // the readers' balance, and the host threads alone, into whole staging and
  // through the ring (whose 12 chunks of this gather turn it twice), then the
  // fastest way kept.
  sampling::FeatureStoreOptions measured;
  measured.residence = sampling::Residence::Host;
  const sampling::FeatureStore store(table, kGpu, measured);
  // A gather reads the previous one's times when it starts; the share
  // reported after gather k is the one gather k read with.
  CHECK(store.gpu_read_share() == 0.5);
  check_rows(store.gather(ids), table, wanted_ids);  // 1: the GPU alone
  check_rows(store.gather(ids), table, wanted_ids);  // 2: shared at the starting balance
  CHECK(store.gpu_read_share() == 0.5);
  check_rows(store.gather(ids), table, wanted_ids);  // 3: shared, moved by gather 2's measured rates
  CHECK(store.gpu_read_share() != 0.5);
  CHECK(store.gpu_read_share() >= 0.02);
  CHECK(store.gpu_read_share() <= 0.98);
  check_rows(store.gather(ids), table, wanted_ids);  // 4: the host threads alone
  CHECK(store.gpu_read_share() == 0.0);
  CHECK_FALSE(store.split_trials().ring);
  CHECK(store.split_trials().host_alone_rows_per_ms == 0.0);  // read when the next gather starts
  check_rows(store.gather(ids), table, wanted_ids);  // 5: the host threads alone, through the ring
  CHECK(store.gpu_read_share() == 0.0);
  CHECK(store.split_trials().ring);
  CHECK(store.split_trials().host_alone_rows_per_ms > 0.0);
  CHECK(store.split_trials().host_ring_rows_per_ms == 0.0);
  check_rows(store.gather(ids), table, wanted_ids);  // 6: the GPU alone again, the second round
  CHECK(store.gpu_read_share() == 1.0);
  CHECK_FALSE(store.split_trials().ring);
  CHECK(store.split_trials().host_ring_rows_per_ms > 0.0);
  // The remaining trials, and the gather that starts by choosing.
  for (int gather = 7; gather <= sampling::kSplitTrialGathers; ++gather) {
    check_rows(store.gather(ids), table, wanted_ids);
  }
  CHECK_FALSE(store.split_trials().chosen);
  check_rows(store.gather(ids), table, wanted_ids);
  CHECK(store.split_trials().chosen);
  const double chosen = store.gpu_read_share();
  MESSAGE("measured GPU share after the trials: ", chosen);
  CHECK((chosen == 1.0 || chosen == 0.0 || (chosen >= 0.02 && chosen <= 0.98)));  // GPU alone, host alone, shared
  // The trials the choice read (the best of each way's), and the choice agreeing with them.
  const sampling::FeatureStore::SplitTrials trials = store.split_trials();
  MESSAGE("trials, rows per ms: GPU alone ", trials.gpu_alone_rows_per_ms, ", shared at best ",
          trials.best_shared_rows_per_ms, ", host threads alone ", trials.host_alone_rows_per_ms, ", through a ring ",
          trials.host_ring_rows_per_ms);
  CHECK(trials.gpu_alone_rows_per_ms > 0.0);
  CHECK(trials.best_shared_rows_per_ms > 0.0);
  CHECK(trials.host_alone_rows_per_ms > 0.0);
  CHECK(trials.host_ring_rows_per_ms > 0.0);
  CHECK((!trials.ring || chosen == 0.0));
  const double fastest = std::max({trials.gpu_alone_rows_per_ms, trials.best_shared_rows_per_ms,
                                   trials.host_alone_rows_per_ms, trials.host_ring_rows_per_ms});
  const double chosen_rate = chosen == 1.0   ? trials.gpu_alone_rows_per_ms
                             : chosen == 0.0 ? (trials.ring ? trials.host_ring_rows_per_ms : trials.host_alone_rows_per_ms)
                                             : trials.best_shared_rows_per_ms;
  CHECK(chosen_rate == fastest);
  check_rows(store.gather(ids), table, wanted_ids);
  // Fewer ids than a split needs: all read by the GPU, the share untouched.
  const std::vector<int32_t> few = random_ids(1000, rows, 13);
  const double before = store.gpu_read_share();
  check_rows(store.gather(Tensor::from_vector(few, {1000}, kGpu)), table, few);
  CHECK(store.gpu_read_share() == before);
}
