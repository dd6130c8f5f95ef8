#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <mutex>
#include <numeric>
#include <utility>
#include <vector>

#include "core/bfloat16.hpp"
#include "sampling/feature_store.hpp"
#include "sampling/gather.hpp"
#include "sampling/host_rows.hpp"
#include "tests/support/testing.hpp"

namespace {

using namespace sgnn;

Tensor ids(const std::vector<int32_t>& values) { return Tensor::from_vector(values, {static_cast<int64_t>(values.size())}); }

}  // namespace

TEST_CASE("gather_rows copies the asked rows, converting float32 and bfloat16 either way") {
  const Tensor table = sgnn::testing::random_tensor({50, 7}, 21);
  const std::vector<float> values = table.to_vector<float>();
  const std::vector<int32_t> wanted{49, 0, 3, 3, 17};
  for (const DType out_dtype : {DType::Float32, DType::BFloat16}) {
    Tensor out = Tensor::full({5, 7}, 7.0, out_dtype);
    sampling::gather_rows({table.raw_data(), DType::Float32, 50, 7}, ids(wanted), out,
                          sampling::WorkContext::on(Device::cpu()));
    const Tensor widened = out_dtype == DType::Float32 ? out : Tensor::from_vector(
        [&] {
          std::vector<float> w;
          for (const bfloat16 v : out.to_vector<bfloat16>()) w.push_back(v.to_float());
          return w;
        }(), {5, 7});
    const std::vector<float> got = widened.to_vector<float>();
    for (std::size_t i = 0; i < wanted.size(); ++i) {
      for (std::size_t j = 0; j < 7; ++j) {
        const float expected = values[static_cast<std::size_t>(wanted[i]) * 7 + j];
        const float rounded = out_dtype == DType::Float32 ? expected : bfloat16(expected).to_float();
        CHECK(got[i * 7 + j] == rounded);
      }
    }
  }
}

TEST_CASE("gather_rows reads cached rows from the cache and the others from the table") {
  const std::vector<int32_t> labels{5, 6, 7, 8, 9, 10};
  const std::vector<int32_t> slots{-1, 1, -1, 0, -1, -1};
  const std::vector<int32_t> cached{80, 60};  // deliberately not the table's values: where each row came from shows
  Tensor out = Tensor::zeros({4}, DType::Int32);
  sampling::gather_rows({labels.data(), DType::Int32, 6, 1}, ids({3, 1, 0, 5}), out,
                        sampling::WorkContext::on(Device::cpu()), {slots.data(), cached.data()});
  CHECK(out.to_vector<int32_t>() == std::vector<int32_t>{80, 60, 5, 10});
}

TEST_CASE("gather_rows refuses ids out of range and mismatched outputs") {
  const Tensor table = Tensor::zeros({4, 2});
  Tensor out = Tensor::zeros({1, 2});
  const sampling::RowSource source{table.raw_data(), DType::Float32, 4, 2};
  const auto context = sampling::WorkContext::on(Device::cpu());
  CHECK_THROWS_AS(sampling::gather_rows(source, ids({4}), out, context), InvalidArgument);
  CHECK_THROWS_AS(sampling::gather_rows(source, ids({-1}), out, context), InvalidArgument);
  Tensor wrong = Tensor::zeros({1, 3});
  CHECK_THROWS_AS(sampling::gather_rows(source, ids({1}), wrong, context), InvalidArgument);
  Tensor integers = Tensor::zeros({1, 2}, DType::Int32);
  CHECK_THROWS_AS(sampling::gather_rows(source, ids({1}), integers, context), InvalidArgument);
}

TEST_CASE("feature cache: the highest-degree nodes first, ties by the smaller id, as many as the bytes hold") {
  const std::vector<int64_t> degrees{3, 9, 1, 9, 0, 5};
  CHECK(sampling::nodes_to_cache(degrees, 3 * 16, 16) == std::vector<int32_t>{1, 3, 5});
  CHECK(sampling::nodes_to_cache(degrees, 15, 16).empty());
  CHECK(sampling::nodes_to_cache(degrees, 1 << 20, 16).size() == degrees.size());
}

TEST_CASE("feature store on the CPU gathers features in the asked dtype and labels as int32") {
  const Tensor features = sgnn::testing::random_tensor({30, 4}, 22);
  sampling::FeatureStoreOptions options;
  options.dtype = DType::BFloat16;
  const sampling::FeatureStore store(features, Device::cpu(), options);
  const Tensor got = store.gather(ids({29, 2}));
  CHECK(got.dtype() == DType::BFloat16);
  CHECK(got.shape() == Shape{2, 4});
  const std::vector<bfloat16> rows = got.to_vector<bfloat16>();
  const std::vector<float> table = features.to_vector<float>();
  REQUIRE(rows.size() == 8);
  CHECK(rows[4].to_float() == bfloat16(table[8]).to_float());
  const Tensor labels = Tensor::from_vector(std::vector<int32_t>{4, 1, 2}, {3});
  sampling::FeatureStoreOptions label_options;
  label_options.dtype = DType::Int32;
  const sampling::FeatureStore label_store(labels, Device::cpu(), label_options);
  CHECK(label_store.gather(ids({2, 0})).to_vector<int32_t>() == std::vector<int32_t>{2, 4});
  CHECK_THROWS_AS(sampling::FeatureStore(labels, Device::cpu(), options), InvalidArgument);
}

TEST_CASE("copy_rows_by_threads copies row ids[k] to row k, in both write modes, repeated ids and the last rows "
          "(past the prefetch) too") {
  // 40-byte rows take the ordinary copy in both modes, 48-byte ones 16-byte
  // streaming stores, 64-byte ones 32-byte ones (where the CPU has AVX2); an
  // output one byte off alignment takes the ordinary copy.
  for (const int64_t row_bytes : {int64_t{40}, int64_t{48}, int64_t{64}, int64_t{256}}) {
    const int64_t rows = 3000;
    std::vector<unsigned char> table(static_cast<std::size_t>(rows * row_bytes));
    for (std::size_t i = 0; i < table.size(); ++i) table[i] = static_cast<unsigned char>((i * 131 + i / 40) % 251);
    for (const int64_t count : {int64_t{1}, int64_t{7}, int64_t{5000}}) {
      for (const auto writes : {sampling::RowWrites::cached, sampling::RowWrites::streaming}) {
        for (const int64_t offset : {int64_t{0}, int64_t{1}}) {
          CAPTURE(row_bytes);
          CAPTURE(count);
          CAPTURE(offset);
          CAPTURE(writes == sampling::RowWrites::streaming);
          std::vector<int32_t> wanted(static_cast<std::size_t>(count));
          for (int64_t k = 0; k < count; ++k) {
            wanted[static_cast<std::size_t>(k)] = static_cast<int32_t>((k * 7919 + 3) % rows);
          }
          // 64-byte aligned storage, the rows written from `offset` on; the bytes around them stay poisoned.
          std::vector<std::uint64_t> storage(static_cast<std::size_t>((count * row_bytes + 2 * 64) / 8 + 1));
          auto* base = reinterpret_cast<unsigned char*>(storage.data());
          const std::size_t skew = (64 - reinterpret_cast<std::uintptr_t>(base) % 64) % 64;
          unsigned char* out = base + skew + offset;
          std::fill(base, base + storage.size() * 8, 0xAB);
          sampling::copy_rows_by_threads(table.data(), row_bytes, wanted.data(), count, out, writes);
          int64_t wrong = 0;
          for (int64_t k = 0; k < count; ++k) {
            const auto* expected = table.data() + wanted[static_cast<std::size_t>(k)] * row_bytes;
            wrong += std::equal(expected, expected + row_bytes, out + k * row_bytes) ? 0 : 1;
          }
          CHECK(wrong == 0);
          CHECK(std::all_of(base, out, [](unsigned char b) { return b == 0xAB; }));
          CHECK(std::all_of(out + count * row_bytes, base + storage.size() * 8,
                            [](unsigned char b) { return b == 0xAB; }));
        }
      }
    }
  }
}

TEST_CASE("copy_rows_by_threads in chunks reports each chunk once, its rows already written, and rethrows the "
          "first error after copying every row") {
  const int64_t row_bytes = 256, rows = 4000;  // 512 rows a grab: chunks of a part of one, one, or several grabs
  std::vector<unsigned char> table(static_cast<std::size_t>(rows * row_bytes));
  for (std::size_t i = 0; i < table.size(); ++i) table[i] = static_cast<unsigned char>((i * 37 + i / 256) % 253);
  for (const int64_t count : {int64_t{1}, int64_t{511}, int64_t{5000}}) {
    for (const int64_t chunk_rows : {int64_t{100}, int64_t{512}, int64_t{1300}, int64_t{8000}}) {
      for (const auto writes : {sampling::RowWrites::cached, sampling::RowWrites::streaming}) {
        CAPTURE(count);
        CAPTURE(chunk_rows);
        std::vector<int32_t> wanted(static_cast<std::size_t>(count));
        for (int64_t k = 0; k < count; ++k) wanted[static_cast<std::size_t>(k)] = static_cast<int32_t>((k * 7919 + 5) % rows);
        std::vector<std::uint64_t> storage(static_cast<std::size_t>(count * row_bytes / 8));
        auto* out = reinterpret_cast<unsigned char*>(storage.data());
        std::fill(out, out + count * row_bytes, 0xAB);
        const auto row_right = [&](int64_t k) {
          const auto* expected = table.data() + wanted[static_cast<std::size_t>(k)] * row_bytes;
          return std::equal(expected, expected + row_bytes, out + k * row_bytes);
        };
        const int64_t num_chunks = (count + chunk_rows - 1) / chunk_rows;
        std::vector<int> reported(static_cast<std::size_t>(num_chunks), 0);
        std::vector<int> written_when_reported(static_cast<std::size_t>(num_chunks), 0);
        std::mutex lock;
        sampling::RowChunks chunks{chunk_rows, [&](int64_t first, int64_t length) {
                                     bool written = first % chunk_rows == 0 &&
                                                    length == std::min(chunk_rows, count - first);
                                     for (int64_t k = first; k < first + length; ++k) written = written && row_right(k);
                                     const std::lock_guard<std::mutex> guard(lock);
                                     ++reported[static_cast<std::size_t>(first / chunk_rows)];
                                     written_when_reported[static_cast<std::size_t>(first / chunk_rows)] = written;
                                   }, 0, {}};  // unpaced
        sampling::copy_rows_by_threads(table.data(), row_bytes, wanted.data(), count, out, writes, chunks);
        CHECK(std::all_of(reported.begin(), reported.end(), [](int n) { return n == 1; }));
        CHECK(std::all_of(written_when_reported.begin(), written_when_reported.end(), [](int w) { return w == 1; }));
        int64_t wrong = 0;
        for (int64_t k = 0; k < count; ++k) wrong += row_right(k) ? 0 : 1;
        CHECK(wrong == 0);
      }
    }
  }
  // A failing chunk: the error comes back, and every row is still copied.
  std::vector<int32_t> wanted(3000);
  std::iota(wanted.begin(), wanted.end(), 0);
  std::vector<unsigned char> out(wanted.size() * static_cast<std::size_t>(row_bytes), 0xAB);
  const sampling::RowChunks failing{700, [](int64_t first, int64_t) {
                                      if (first == 1400) throw InvalidArgument("chunk 2 failed");
                                    }, 0, {}};
  CHECK_THROWS_WITH_AS(sampling::copy_rows_by_threads(table.data(), row_bytes, wanted.data(), 3000, out.data(),
                                                      sampling::RowWrites::streaming, failing),
                       "chunk 2 failed", InvalidArgument);
  CHECK(std::equal(out.begin(), out.end(), table.begin()));
  CHECK_THROWS_AS(sampling::copy_rows_by_threads(table.data(), row_bytes, wanted.data(), 3000, out.data(),
                                                 sampling::RowWrites::streaming, sampling::RowChunks{0, failing.on_chunk, 0, {}}),
                  InvalidArgument);
}

TEST_CASE("copy_rows_by_threads paced: no chunk is written before the one `ahead` earlier has landed; an error "
          "stops the pacing without a hang") {
  const int64_t row_bytes = 256, rows = 4000, count = 5000, chunk_rows = 100;  // 50 chunks, several a grab
  std::vector<unsigned char> table(static_cast<std::size_t>(rows * row_bytes));
  for (std::size_t i = 0; i < table.size(); ++i) table[i] = static_cast<unsigned char>((i * 31 + i / 256) % 251);
  std::vector<int32_t> wanted(static_cast<std::size_t>(count));
  for (int64_t k = 0; k < count; ++k) wanted[static_cast<std::size_t>(k)] = static_cast<int32_t>((k * 7919 + 3) % rows);
  const int64_t num_chunks = count / chunk_rows;
  const auto copied_right = [&](const std::vector<unsigned char>& out) {
    for (int64_t k = 0; k < count; ++k) {
      const auto* expected = table.data() + wanted[static_cast<std::size_t>(k)] * row_bytes;
      if (!std::equal(expected, expected + row_bytes, out.data() + k * row_bytes)) return false;
    }
    return true;
  };
  for (const int64_t ahead : {int64_t{1}, int64_t{3}}) {
    CAPTURE(ahead);
    std::vector<unsigned char> out(static_cast<std::size_t>(count * row_bytes), 0xAB);
    std::mutex lock;
    std::vector<int> polls(static_cast<std::size_t>(num_chunks), 0), reported(static_cast<std::size_t>(num_chunks), 0);
    std::vector<bool> landed(static_cast<std::size_t>(num_chunks), false);
    int64_t written_too_early = 0;
    sampling::RowChunks chunks;
    chunks.rows = chunk_rows;
    chunks.ahead = ahead;
    chunks.on_chunk = [&](int64_t first, int64_t) {
      const std::lock_guard<std::mutex> guard(lock);
      const int64_t chunk = first / chunk_rows;
      ++reported[static_cast<std::size_t>(chunk)];
      if (chunk >= ahead && !landed[static_cast<std::size_t>(chunk - ahead)]) ++written_too_early;
    };
    // Each chunk lands on its third poll, so the threads must wait for it.
    chunks.landed = [&](int64_t chunk) {
      const std::lock_guard<std::mutex> guard(lock);
      if (++polls[static_cast<std::size_t>(chunk)] < 3) return false;
      landed[static_cast<std::size_t>(chunk)] = true;
      return true;
    };
    sampling::copy_rows_by_threads(table.data(), row_bytes, wanted.data(), count, out.data(),
                                   sampling::RowWrites::streaming, chunks);
    CHECK(written_too_early == 0);
    CHECK(std::all_of(reported.begin(), reported.end(), [](int n) { return n == 1; }));
    CHECK(std::count(landed.begin(), landed.end(), true) == num_chunks - ahead);  // every chunk a later one waited on
    CHECK(copied_right(out));
  }
  // The consumer fails, or a report does: the error comes back, every row is copied, nothing waits forever.
  for (const bool landing_fails : {true, false}) {
    CAPTURE(landing_fails);
    std::vector<unsigned char> out(static_cast<std::size_t>(count * row_bytes), 0xAB);
    sampling::RowChunks chunks;
    chunks.rows = chunk_rows;
    chunks.ahead = 2;
    chunks.on_chunk = [&](int64_t first, int64_t) {
      if (!landing_fails && first == 3 * chunk_rows) throw InvalidArgument("chunk 3 was not carried");
    };
    chunks.landed = [&](int64_t chunk) {
      if (landing_fails && chunk == 3) throw InvalidArgument("chunk 3 did not land");
      return true;
    };
    CHECK_THROWS_WITH_AS(sampling::copy_rows_by_threads(table.data(), row_bytes, wanted.data(), count, out.data(),
                                                        sampling::RowWrites::cached, chunks),
                         landing_fails ? "chunk 3 did not land" : "chunk 3 was not carried", InvalidArgument);
    CHECK(copied_right(out));
  }
  sampling::RowChunks negative;
  negative.rows = chunk_rows;
  negative.on_chunk = [](int64_t, int64_t) {};
  negative.ahead = -1;
  std::vector<unsigned char> out(static_cast<std::size_t>(count * row_bytes));
  CHECK_THROWS_WITH_AS(sampling::copy_rows_by_threads(table.data(), row_bytes, wanted.data(), count, out.data(),
                                                      sampling::RowWrites::cached, negative),
                       doctest::Contains("copy_rows_by_threads: pacing -1 chunks ahead (at least 0)"), InvalidArgument);
}

TEST_CASE("copy_rows_by_threads through a ring: chunk c in slot c % ring, never rewritten before it has landed; "
          "rings it cannot keep are refused") {
  const int64_t row_bytes = 256, rows = 4000, count = 5030, chunk_rows = 100;  // 51 chunks, the last of 30 rows
  const int64_t num_chunks = (count + chunk_rows - 1) / chunk_rows;
  std::vector<unsigned char> table(static_cast<std::size_t>(rows * row_bytes));
  for (std::size_t i = 0; i < table.size(); ++i) table[i] = static_cast<unsigned char>((i * 29 + i / 256) % 247);
  std::vector<int32_t> wanted(static_cast<std::size_t>(count));
  for (int64_t k = 0; k < count; ++k) wanted[static_cast<std::size_t>(k)] = static_cast<int32_t>((k * 7919 + 11) % rows);
  const auto row_right = [&](const unsigned char* row, int64_t k) {
    const auto* expected = table.data() + wanted[static_cast<std::size_t>(k)] * row_bytes;
    return std::equal(expected, expected + row_bytes, row);
  };
  for (const int64_t ring : {int64_t{1}, int64_t{3}, int64_t{5}}) {
    for (const auto writes : {sampling::RowWrites::cached, sampling::RowWrites::streaming}) {
      CAPTURE(ring);
      // The ring and a poisoned guard behind it; `carried` is what the consumer took from each slot.
      const int64_t ring_bytes = ring * chunk_rows * row_bytes;
      std::vector<std::uint64_t> storage(static_cast<std::size_t>((ring_bytes + 4096) / 8));
      auto* out = reinterpret_cast<unsigned char*>(storage.data());
      std::fill(out, out + storage.size() * 8, 0xAB);
      std::vector<unsigned char> carried(static_cast<std::size_t>(count * row_bytes), 0xCD);
      std::mutex lock;
      std::vector<int> reported(static_cast<std::size_t>(num_chunks), 0), carries(static_cast<std::size_t>(num_chunks), 0);
      std::vector<int> polls(static_cast<std::size_t>(num_chunks), 0);
      int64_t wrong_when_reported = 0;
      const auto carry = [&](int64_t chunk) {  // under the lock
        const int64_t first = chunk * chunk_rows, length = std::min(chunk_rows, count - first);
        const unsigned char* slot = out + (chunk % ring) * chunk_rows * row_bytes;
        std::copy(slot, slot + length * row_bytes, carried.begin() + first * row_bytes);
        ++carries[static_cast<std::size_t>(chunk)];
      };
      sampling::RowChunks chunks;
      chunks.rows = chunk_rows;
      chunks.ahead = ring;
      chunks.ring = ring;
      chunks.on_chunk = [&](int64_t first, int64_t length) {
        const std::lock_guard<std::mutex> guard(lock);
        const int64_t chunk = first / chunk_rows;
        ++reported[static_cast<std::size_t>(chunk)];
        const unsigned char* slot = out + (chunk % ring) * chunk_rows * row_bytes;
        for (int64_t r = 0; r < length; ++r) wrong_when_reported += row_right(slot + r * row_bytes, first + r) ? 0 : 1;
      };
      // A chunk is carried out of its slot on its second poll, and has landed then.
      chunks.landed = [&](int64_t chunk) {
        const std::lock_guard<std::mutex> guard(lock);
        if (++polls[static_cast<std::size_t>(chunk)] < 2) return false;
        if (carries[static_cast<std::size_t>(chunk)] == 0) carry(chunk);
        return true;
      };
      sampling::copy_rows_by_threads(table.data(), row_bytes, wanted.data(), count, out, writes, chunks);
      for (int64_t chunk = 0; chunk < num_chunks; ++chunk) {  // the last ones, which no write waited on
        if (carries[static_cast<std::size_t>(chunk)] == 0) carry(chunk);
      }
      CHECK(wrong_when_reported == 0);
      CHECK(std::all_of(reported.begin(), reported.end(), [](int n) { return n == 1; }));
      CHECK(std::all_of(carries.begin(), carries.end(), [](int n) { return n == 1; }));
      int64_t wrong = 0;
      for (int64_t k = 0; k < count; ++k) wrong += row_right(carried.data() + k * row_bytes, k) ? 0 : 1;
      CHECK(wrong == 0);
      CHECK(std::all_of(out + ring_bytes, out + storage.size() * 8, [](unsigned char b) { return b == 0xAB; }));
    }
  }
  // A ring needs its chunks' consumer and pacing of exactly `ring` chunks ahead: nearer, a chunk that lands
  // before an earlier one (its DMA issued first) would let a thread rewrite the earlier one's slot.
  std::vector<unsigned char> out(static_cast<std::size_t>(3 * chunk_rows * row_bytes));
  sampling::RowChunks unpaced;
  unpaced.rows = chunk_rows;
  unpaced.ring = 3;
  unpaced.on_chunk = [](int64_t, int64_t) {};
  unpaced.landed = [](int64_t) { return true; };
  sampling::RowChunks too_far = unpaced, too_near = unpaced, blind = unpaced;
  too_far.ahead = 4;
  too_near.ahead = 2;
  blind.ahead = 3;
  blind.landed = {};
  for (const sampling::RowChunks& bad : {unpaced, too_far, too_near, blind}) {
    CHECK_THROWS_WITH_AS(sampling::copy_rows_by_threads(table.data(), row_bytes, wanted.data(), count, out.data(),
                                                        sampling::RowWrites::cached, bad),
                         doctest::Contains("copy_rows_by_threads: a ring of 3 chunks needs on_chunk, landed and pacing "
                                           "of exactly 3 chunks ahead"),
                         InvalidArgument);
  }
}

TEST_CASE("feature store refuses a GPU read share above the whole gather, or not a number") {
  const Tensor features = sgnn::testing::random_tensor({30, 4}, 23);
  sampling::FeatureStoreOptions options;
  options.residence = sampling::Residence::Host;
  for (const double share : {1.5, std::nan("")}) {
    options.gpu_read_share = share;
    CHECK_THROWS_WITH_AS(sampling::FeatureStore(features, Device::cpu(), options),
                         doctest::Contains("gpu_read_share must be at most 1"), InvalidArgument);
  }
  options.gpu_read_share = 0.25;
  const sampling::FeatureStore store(features, Device::cpu(), options);
  CHECK(store.gpu_read_share() == 1.0);  // the CPU reads its own memory: no split
}
