// The CUDA sampler (sampling/neighbor_sampler.hpp): the CPU backend's
// blocks, built on the GPU in the context's stream.
//  - counts and their scan give the block's row offsets; one host read of
//    the edge total sizes what follows;
//  - one warp per destination draws its neighbours (sampling/sample_math.hpp:
//    Floyd's steps in order, the membership test spread over the lanes; with
//    replacement or keeping every neighbour, the lanes work independently)
//    and reads the graph's indices from device memory or, for a graph kept
//    in host memory, over unified addressing;
//  - relabelling without a hash table: the destinations and the sampled ids
//    in one stable radix sort (destinations first among equal ids, so a
//    destination keeps its position), run heads flag the new ids, a scan
//    numbers them in increasing id order, a max-scan finds each entry's run
//    head; one host read of the source count;
//  - each row's local ids sorted (segmented sort), the transpose by a
//    stable radix sort of the entries by column (rows ascend in a column, as
//    the CPU's counting sort), mean weights from the row lengths;
//  - the launch plans of both CSRs (block_plans.cu), one more host read.
#include <cuda/functional>

#include "sampling/block_arrays.hpp"
#include "sampling/cuda/block_plans.hpp"
#include "sampling/cuda/sampling_device.cuh"
#include "sampling/sample_math.hpp"
#include "sampling/sampler_backend.hpp"

namespace sgnn::sampling {

namespace {

using namespace cuda_detail;

template <typename Offset>
__global__ void count_kernel(const Offset* indptr, const int32_t* destinations, int64_t count, int64_t fanout,
                             bool replace, int64_t* kept) {
  for (int64_t i = grid_stride_begin(); i < count; i += grid_stride_step()) {
    const int32_t v = destinations[i];
    kept[i] = sampled_count(static_cast<int64_t>(indptr[v + 1] - indptr[v]), fanout, replace);
  }
}

__global__ void narrow_offsets_kernel(const int64_t* wide, int64_t count, int32_t* narrow) {
  for (int64_t i = grid_stride_begin(); i <= count; i += grid_stride_step()) narrow[i] = i == 0 ? 0 : static_cast<int32_t>(wide[i - 1]);
}

// One warp per destination: writes the global ids of its kept neighbours at
// sampled[starts[i] ...] in draw order. Floyd keeps positions first (the
// membership test reads them back) and maps them to ids at the end.
template <typename Offset>
__global__ void draw_kernel(const Offset* indptr, const int32_t* indices, const int32_t* destinations, int64_t count,
                            const int32_t* starts, int64_t fanout, bool replace, PhiloxStream stream, int32_t* sampled) {
  const int lane = lane_id();
  for (int64_t i = warp_begin(); i < count; i += warp_step()) {
    const int32_t v = destinations[i];
    const int64_t begin = indptr[v];
    const int64_t degree = static_cast<int64_t>(indptr[v + 1]) - begin;
    const int64_t first = starts[i];
    const int64_t kept = starts[i + 1] - first;
    int32_t* out = sampled + first;
    if (keeps_all(degree, fanout, replace)) {
      for (int64_t j = lane; j < kept; j += 32) out[j] = indices[begin + j];
    } else if (replace) {
      for (int64_t j = lane; j < kept; j += 32) {
        const uint32_t position =
            uniform_below(draw_bits(stream, static_cast<uint64_t>(first + j)), static_cast<uint64_t>(degree));
        out[j] = indices[begin + position];
      }
    } else {
      for (int64_t step = 0; step < kept; ++step) {
        const auto candidate = static_cast<int32_t>(floyd_candidate(stream, static_cast<uint64_t>(first), step, degree, kept));
        bool taken = false;
        for (int64_t j = lane; j < step; j += 32) taken = taken || out[j] == candidate;
        taken = __any_sync(0xffffffffu, taken);
        if (lane == 0) out[step] = taken ? static_cast<int32_t>(degree - kept + step) : candidate;
        __syncwarp();
      }
      for (int64_t j = lane; j < kept; j += 32) out[j] = indices[begin + out[j]];
    }
  }
}

// Over the sorted (id, position) pairs: a new id heads a run without a destination.
__global__ void run_heads_kernel(const int32_t* keys, const int32_t* positions, int64_t count, int64_t destinations,
                                 int32_t* fresh, int32_t* head_index) {
  for (int64_t i = grid_stride_begin(); i < count; i += grid_stride_step()) {
    const bool head = i == 0 || keys[i] != keys[i - 1];
    fresh[i] = head && positions[i] >= destinations ? 1 : 0;
    head_index[i] = head ? static_cast<int32_t>(i) : 0;
  }
}

__global__ void source_count_kernel(const int32_t* fresh, const int32_t* rank, int64_t count, int64_t destinations,
                                    int64_t* sources) {
  *sources = destinations + (count == 0 ? 0 : rank[count - 1] + fresh[count - 1]);
}

// Each sampled entry gets its id's local number; each new id its source slot.
__global__ void assign_kernel(const int32_t* keys, const int32_t* positions, const int32_t* fresh, const int32_t* rank,
                              const int32_t* run_head, int64_t count, int64_t destinations, int32_t* local_of_entry,
                              int32_t* source_ids) {
  for (int64_t i = grid_stride_begin(); i < count; i += grid_stride_step()) {
    const int32_t head = run_head[i];
    const int32_t head_position = positions[head];
    const int64_t local = head_position < destinations ? head_position : destinations + rank[head];
    const int32_t position = positions[i];
    if (position >= destinations) local_of_entry[position - destinations] = static_cast<int32_t>(local);
    if (fresh[i] != 0) source_ids[destinations + rank[i]] = keys[i];
  }
}

__global__ void entry_rows_and_values_kernel(const int32_t* indptr, int64_t rows, int32_t* entry_row, float* values) {
  for (int64_t r = warp_begin(); r < rows; r += warp_step()) {
    const int32_t begin = indptr[r], end = indptr[r + 1];
    const float mean = 1.0f / static_cast<float>(end - begin);
    for (int64_t e = begin + lane_id(); e < end; e += 32) {
      entry_row[e] = static_cast<int32_t>(r);
      values[e] = mean;
    }
  }
}

// Entry k of Aᵀ: entry t_map[k] of A, at row (of Aᵀ) sorted_columns[k].
__global__ void transpose_entries_kernel(const int32_t* t_map, const int32_t* entry_row, const float* values,
                                         int64_t edges, int32_t* t_indices, float* t_values) {
  for (int64_t k = grid_stride_begin(); k < edges; k += grid_stride_step()) {
    const int32_t e = t_map[k];
    t_indices[k] = entry_row[e];
    t_values[k] = values[e];
  }
}

// t_indptr[c] = the first position of column c in the sorted columns.
__global__ void transpose_offsets_kernel(const int32_t* sorted_columns, int64_t edges, int64_t columns,
                                         int32_t* t_indptr) {
  for (int64_t c = grid_stride_begin(); c <= columns; c += grid_stride_step()) {
    int64_t low = 0, high = edges;
    while (low < high) {
      const int64_t middle = (low + high) / 2;
      if (sorted_columns[middle] < c) {
        low = middle + 1;
      } else {
        high = middle;
      }
    }
    t_indptr[c] = static_cast<int32_t>(low);
  }
}

template <typename Offset>
Block sample_hop_as(const HopRequest& request, const Tensor& destinations, const WorkContext& context) {
  const cudaStream_t stream = stream_of(context);
  const Device device = context.device;
  cuda::DeviceGuard guard(device);
  const auto* graph_indptr = static_cast<const Offset*>(request.graph.indptr);
  const int64_t nd = destinations.numel();
  const int32_t* dst = destinations.data<int32_t>();
  BlockArrays b;
  b.num_destinations = nd;

  // Row offsets from the kept counts; the edge total read back.
  const Tensor kept = context.allocate({std::max<int64_t>(nd, 1)}, DType::Int64);
  const Tensor totals = context.allocate({nd + 1}, DType::Int64);
  b.indptr = context.allocate({nd + 1}, DType::Int32);
  if (nd > 0) {
    const LaunchShape shape = elementwise_launch_shape(nd, device);
    count_kernel<Offset><<<shape.blocks, shape.threads, 0, stream>>>(graph_indptr, dst, nd, request.fanout,
                                                                     request.replace, kept.data<int64_t>());
    SGNN_CUDA_CHECK_LAUNCH("count_kernel");
    run_cub(context, "DeviceScan::InclusiveSum (kept)", [&](void* storage, std::size_t& bytes) {
      return cub::DeviceScan::InclusiveSum(storage, bytes, kept.data<int64_t>(), totals.data<int64_t>(), nd, stream);
    });
  }
  const int64_t edges = nd == 0 ? 0 : context.read(totals.narrow_rows(nd - 1, nd)).front();
  check_block_edges(nd + edges);  // the relabelling numbers destinations and entries together
  b.num_edges = edges;
  {
    const LaunchShape shape = elementwise_launch_shape(nd + 1, device);
    narrow_offsets_kernel<<<shape.blocks, shape.threads, 0, stream>>>(totals.data<int64_t>(), nd, b.indptr.data<int32_t>());
    SGNN_CUDA_CHECK_LAUNCH("narrow_offsets_kernel");
  }

  // The draws, and the keys of the relabelling: destinations first, then the sampled ids.
  const int64_t n = nd + edges;
  const Tensor keys = context.allocate({n}, DType::Int32);
  if (nd > 0) SGNN_CUDA_CHECK(cudaMemcpyAsync(keys.raw_data(), dst, static_cast<std::size_t>(nd) * 4, cudaMemcpyDeviceToDevice, stream));
  if (edges > 0) {
    const LaunchShape shape = warp_launch_shape(nd, device);
    draw_kernel<Offset><<<shape.blocks, shape.threads, 0, stream>>>(graph_indptr, request.graph.indices, dst, nd,
                                                                    b.indptr.data<int32_t>(), request.fanout,
                                                                    request.replace, request.stream,
                                                                    keys.data<int32_t>() + nd);
    SGNN_CUDA_CHECK_LAUNCH("draw_kernel");
  }
  const Tensor positions = context.allocate({n}, DType::Int32);
  const Tensor sorted_keys = context.allocate({n}, DType::Int32);
  const Tensor sorted_positions = context.allocate({n}, DType::Int32);
  const Tensor fresh = context.allocate({n}, DType::Int32);
  const Tensor rank = context.allocate({n}, DType::Int32);
  const Tensor head_index = context.allocate({n}, DType::Int32);
  const Tensor run_head = context.allocate({n}, DType::Int32);
  const Tensor source_count = context.allocate({1}, DType::Int64);
  if (n > 0) {
    const LaunchShape shape = elementwise_launch_shape(n, device);
    iota_kernel<<<shape.blocks, shape.threads, 0, stream>>>(positions.data<int32_t>(), n);
    SGNN_CUDA_CHECK_LAUNCH("iota_kernel");
    const int bits = key_bits(request.graph.num_nodes);
    run_cub(context, "DeviceRadixSort::SortPairs (relabel)", [&](void* storage, std::size_t& bytes) {
      return cub::DeviceRadixSort::SortPairs(storage, bytes, keys.data<int32_t>(), sorted_keys.data<int32_t>(),
                                             positions.data<int32_t>(), sorted_positions.data<int32_t>(), n, 0, bits,
                                             stream);
    });
    run_heads_kernel<<<shape.blocks, shape.threads, 0, stream>>>(sorted_keys.data<int32_t>(),
                                                                 sorted_positions.data<int32_t>(), n, nd,
                                                                 fresh.data<int32_t>(), head_index.data<int32_t>());
    SGNN_CUDA_CHECK_LAUNCH("run_heads_kernel");
    run_cub(context, "DeviceScan::ExclusiveSum (new ids)", [&](void* storage, std::size_t& bytes) {
      return cub::DeviceScan::ExclusiveSum(storage, bytes, fresh.data<int32_t>(), rank.data<int32_t>(), n, stream);
    });
    run_cub(context, "DeviceScan::InclusiveScan (run heads)", [&](void* storage, std::size_t& bytes) {
      return cub::DeviceScan::InclusiveScan(storage, bytes, head_index.data<int32_t>(), run_head.data<int32_t>(),
                                            ::cuda::maximum<int32_t>{}, n, stream);
    });
  }
  source_count_kernel<<<1, 1, 0, stream>>>(fresh.data<int32_t>(), rank.data<int32_t>(), n, nd,
                                           source_count.data<int64_t>());
  SGNN_CUDA_CHECK_LAUNCH("source_count_kernel");
  const int64_t ns = context.read(source_count).front();
  b.num_sources = ns;
  b.source_ids = context.allocate({ns}, DType::Int32);
  const Tensor local_of_entry = context.allocate({edges}, DType::Int32);
  if (nd > 0) SGNN_CUDA_CHECK(cudaMemcpyAsync(b.source_ids.raw_data(), dst, static_cast<std::size_t>(nd) * 4, cudaMemcpyDeviceToDevice, stream));
  if (n > 0) {
    const LaunchShape shape = elementwise_launch_shape(n, device);
    assign_kernel<<<shape.blocks, shape.threads, 0, stream>>>(
        sorted_keys.data<int32_t>(), sorted_positions.data<int32_t>(), fresh.data<int32_t>(), rank.data<int32_t>(),
        run_head.data<int32_t>(), n, nd, local_of_entry.data<int32_t>(), b.source_ids.data<int32_t>());
    SGNN_CUDA_CHECK_LAUNCH("assign_kernel");
  }

  // Rows sorted, weights, the transpose.
  b.indices = context.allocate({edges}, DType::Int32);
  b.values = context.allocate({edges}, DType::Float32);
  b.transpose_indptr = context.allocate({ns + 1}, DType::Int32);
  b.transpose_indices = context.allocate({edges}, DType::Int32);
  b.transpose_to_csr = context.allocate({edges}, DType::Int32);
  b.transpose_values = context.allocate({edges}, DType::Float32);
  const Tensor entry_row = context.allocate({edges}, DType::Int32);
  const Tensor sorted_columns = context.allocate({edges}, DType::Int32);
  if (edges > 0) {
    run_cub(context, "DeviceSegmentedSort::SortKeys (rows)", [&](void* storage, std::size_t& bytes) {
      return cub::DeviceSegmentedSort::SortKeys(storage, bytes, local_of_entry.data<int32_t>(), b.indices.data<int32_t>(),
                                                edges, nd, b.indptr.data<int32_t>(), b.indptr.data<int32_t>() + 1,
                                                stream);
    });
    const LaunchShape rows_shape = warp_launch_shape(nd, device);
    entry_rows_and_values_kernel<<<rows_shape.blocks, rows_shape.threads, 0, stream>>>(
        b.indptr.data<int32_t>(), nd, entry_row.data<int32_t>(), b.values.data<float>());
    SGNN_CUDA_CHECK_LAUNCH("entry_rows_and_values_kernel");
    const LaunchShape shape = elementwise_launch_shape(edges, device);
    iota_kernel<<<shape.blocks, shape.threads, 0, stream>>>(positions.data<int32_t>(), edges);
    SGNN_CUDA_CHECK_LAUNCH("iota_kernel");
    const int bits = key_bits(ns);
    run_cub(context, "DeviceRadixSort::SortPairs (transpose)", [&](void* storage, std::size_t& bytes) {
      return cub::DeviceRadixSort::SortPairs(storage, bytes, b.indices.data<int32_t>(), sorted_columns.data<int32_t>(),
                                             positions.data<int32_t>(), b.transpose_to_csr.data<int32_t>(), edges, 0,
                                             bits, stream);
    });
    transpose_entries_kernel<<<shape.blocks, shape.threads, 0, stream>>>(
        b.transpose_to_csr.data<int32_t>(), entry_row.data<int32_t>(), b.values.data<float>(), edges,
        b.transpose_indices.data<int32_t>(), b.transpose_values.data<float>());
    SGNN_CUDA_CHECK_LAUNCH("transpose_entries_kernel");
  }
  {
    const LaunchShape shape = elementwise_launch_shape(ns + 1, device);
    transpose_offsets_kernel<<<shape.blocks, shape.threads, 0, stream>>>(sorted_columns.data<int32_t>(), edges, ns,
                                                                         b.transpose_indptr.data<int32_t>());
    SGNN_CUDA_CHECK_LAUNCH("transpose_offsets_kernel");
  }
  Block block = assemble_block(std::move(b));
  register_device_plans({{&block.adjacency.csr, entry_row}, {&block.adjacency.transpose, sorted_columns}}, context);
  return block;
}

template <typename Offset>
__global__ void rebased_offsets_kernel(const Offset* indptr, int64_t begin, int64_t count, int32_t* out,
                                       int64_t* span) {
  const int64_t first = indptr[begin];
  for (int64_t r = grid_stride_begin(); r <= count; r += grid_stride_step()) {
    out[r] = static_cast<int32_t>(static_cast<int64_t>(indptr[begin + r]) - first);
  }
  if (grid_stride_begin() == 0) {
    span[0] = first;
    span[1] = static_cast<int64_t>(indptr[begin + count]) - first;
  }
}

template <typename Offset>
Adjacency neighbourhood_rows_as(const CsrView& graph, int64_t begin, int64_t end, const WorkContext& context) {
  const cudaStream_t stream = stream_of(context);
  const Device device = context.device;
  cuda::DeviceGuard guard(device);
  const int64_t rows = end - begin;
  Adjacency a;
  a.csr.num_rows = rows;
  a.csr.num_cols = graph.num_nodes;
  a.csr.indptr = context.allocate({rows + 1}, DType::Int32);
  const Tensor span = context.allocate({2}, DType::Int64);
  {
    const LaunchShape shape = elementwise_launch_shape(rows + 1, device);
    rebased_offsets_kernel<Offset><<<shape.blocks, shape.threads, 0, stream>>>(
        static_cast<const Offset*>(graph.indptr), begin, rows, a.csr.indptr.data<int32_t>(), span.data<int64_t>());
    SGNN_CUDA_CHECK_LAUNCH("rebased_offsets_kernel");
  }
  const std::vector<int64_t> first_and_edges = context.read(span);
  const int64_t edges = first_and_edges[1];
  check_block_edges(edges);
  a.csr.nnz = edges;
  a.csr.indices = context.allocate({edges}, DType::Int32);
  a.values = context.allocate({edges}, DType::Float32);
  const Tensor entry_row = context.allocate({edges}, DType::Int32);
  context.copy(a.csr.indices.raw_data(), graph.indices + first_and_edges[0], static_cast<std::size_t>(edges) * 4);
  if (rows > 0) {
    const LaunchShape shape = warp_launch_shape(rows, device);
    entry_rows_and_values_kernel<<<shape.blocks, shape.threads, 0, stream>>>(
        a.csr.indptr.data<int32_t>(), rows, entry_row.data<int32_t>(), a.values.data<float>());
    SGNN_CUDA_CHECK_LAUNCH("entry_rows_and_values_kernel");
  }
  a.transpose_values = a.values;  // never read: inference runs without a tape
  register_device_plans({{&a.csr, entry_row}}, context);
  return a;
}

}  // namespace

Block sample_hop(ops::Cuda, const HopRequest& request, const Tensor& destinations, const WorkContext& context) {
  return request.graph.wide_indptr ? sample_hop_as<int64_t>(request, destinations, context)
                                   : sample_hop_as<int32_t>(request, destinations, context);
}

Adjacency neighbourhood_rows(ops::Cuda, const CsrView& graph, int64_t begin, int64_t end, const WorkContext& context) {
  return graph.wide_indptr ? neighbourhood_rows_as<int64_t>(graph, begin, end, context)
                           : neighbourhood_rows_as<int32_t>(graph, begin, end, context);
}

}  // namespace sgnn::sampling
