#include <cstring>
#include <type_traits>

#include "core/bfloat16.hpp"
#include "sampling/gather_backend.hpp"
#include "sampling/host_rows.hpp"

namespace sgnn::sampling {

namespace {

template <typename In, typename Out>
void gather_as(const RowSource& source, const int32_t* ids, int64_t count, Out* out, const RowCache& cache) {
  const int64_t width = source.row_elements;
  if constexpr (std::is_same_v<In, Out>) {
    if (cache.slot_of_row == nullptr) {
      // Whole rows as stored: the prefetching copier. Random rows of a large
      // table are latency-bound: 2 million 256-byte rows of an 8 GB table on
      // the 2-core CI machine moved at 12.4-16.7 GB/s with its prefetch
      // against 7.4-7.9 by the plain loop (a scratch probe of both loops).
      copy_rows_by_threads(source.rows, width * static_cast<int64_t>(sizeof(In)), ids, count, out,
                           RowWrites::cached);
      return;
    }
  }
  const In* table = static_cast<const In*>(source.rows);
  const In* cached = static_cast<const In*>(cache.rows);
#pragma omp parallel for schedule(static) if (count * width > 65536)
  for (int64_t i = 0; i < count; ++i) {
    const int32_t id = ids[i];
    const int32_t slot = cache.slot_of_row != nullptr ? cache.slot_of_row[id] : -1;
    const In* row = slot >= 0 ? cached + static_cast<int64_t>(slot) * width : table + static_cast<int64_t>(id) * width;
    Out* target = out + i * width;
    if constexpr (std::is_same_v<In, Out>) {
      std::memcpy(target, row, static_cast<std::size_t>(width) * sizeof(In));
    } else {
      for (int64_t j = 0; j < width; ++j) target[j] = store_as<Out>(load_float(row[j]));
    }
  }
}

}  // namespace

void gather_rows(ops::Cpu, const RowSource& source, const Tensor& ids, Tensor& out, const WorkContext&,
                 const RowCache& cache) {
  const int32_t* id = ids.data<int32_t>();
  const int64_t count = ids.numel();
  for (int64_t i = 0; i < count; ++i) {
    SGNN_CHECK(id[i] >= 0 && id[i] < source.num_rows, "gather_rows: id ", id[i], " at position ", i,
               " outside [0, ", source.num_rows, ")");
  }
  if (source.dtype == DType::Int32) return gather_as<int32_t, int32_t>(source, id, count, out.data<int32_t>(), cache);
  visit_floating(source.dtype, [&](auto in_element) {
    using In = decltype(in_element);
    visit_floating(out.dtype(), [&](auto out_element) {
      using Out = decltype(out_element);
      gather_as<In, Out>(source, id, count, out.data<Out>(), cache);
    });
  });
}

}  // namespace sgnn::sampling
