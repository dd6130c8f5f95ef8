// The CPU sampler: the reference of the CUDA backend (same draws, same
// relabelling, same order of everything), OpenMP over destinations.
#include <algorithm>
#include <numeric>
#include <unordered_map>
#include <vector>

#include "sampling/block_arrays.hpp"
#include "sampling/sample_math.hpp"
#include "sampling/sampler_backend.hpp"

namespace sgnn::sampling {

namespace {

int64_t row_offset(const CsrView& graph, int64_t row) {
  return graph.wide_indptr ? static_cast<const int64_t*>(graph.indptr)[row]
                           : static_cast<const int32_t*>(graph.indptr)[row];
}

// The positions (within the row) that destination `i` keeps, in draw order.
void draw_row(const HopRequest& request, int64_t degree, int64_t kept, uint64_t first_element, int64_t* positions) {
  if (keeps_all(degree, request.fanout, request.replace)) {
    std::iota(positions, positions + kept, int64_t{0});
  } else if (request.replace) {
    for (int64_t j = 0; j < kept; ++j) {
      positions[j] = uniform_below(draw_bits(request.stream, first_element + static_cast<uint64_t>(j)),
                                   static_cast<uint64_t>(degree));
    }
  } else {
    for (int64_t step = 0; step < kept; ++step) {
      const int64_t candidate = floyd_candidate(request.stream, first_element, step, degree, kept);
      const bool taken = std::find(positions, positions + step, candidate) != positions + step;
      positions[step] = taken ? degree - kept + step : candidate;
    }
  }
}

}  // namespace

Block sample_hop(ops::Cpu, const HopRequest& request, const Tensor& destinations, const WorkContext& context) {
  const CsrView& graph = request.graph;
  const int64_t nd = destinations.numel();
  const int32_t* dst = destinations.data<int32_t>();
  BlockArrays b;
  b.num_destinations = nd;
  b.indptr = context.allocate({nd + 1}, DType::Int32);
  int32_t* indptr = b.indptr.data<int32_t>();
  std::vector<int64_t> starts(static_cast<std::size_t>(nd) + 1, 0);
  for (int64_t i = 0; i < nd; ++i) {
    const int64_t degree = row_offset(graph, dst[i] + 1) - row_offset(graph, dst[i]);
    starts[static_cast<std::size_t>(i) + 1] =
        starts[static_cast<std::size_t>(i)] + sampled_count(degree, request.fanout, request.replace);
  }
  const int64_t edges = starts[static_cast<std::size_t>(nd)];
  check_block_edges(edges);
  for (int64_t i = 0; i <= nd; ++i) indptr[i] = static_cast<int32_t>(starts[static_cast<std::size_t>(i)]);
  b.num_edges = edges;

  // Global ids of the sampled sources, row by row in draw order.
  std::vector<int32_t> sampled(static_cast<std::size_t>(edges));
#pragma omp parallel
  {
    std::vector<int64_t> positions;
#pragma omp for schedule(dynamic, 64)
    for (int64_t i = 0; i < nd; ++i) {
      const int64_t begin = row_offset(graph, dst[i]);
      const int64_t degree = row_offset(graph, dst[i] + 1) - begin;
      const int64_t kept = starts[static_cast<std::size_t>(i) + 1] - starts[static_cast<std::size_t>(i)];
      positions.resize(static_cast<std::size_t>(kept));
      draw_row(request, degree, kept, static_cast<uint64_t>(starts[static_cast<std::size_t>(i)]), positions.data());
      for (int64_t j = 0; j < kept; ++j) {
        sampled[static_cast<std::size_t>(starts[static_cast<std::size_t>(i)] + j)] =
            graph.indices[begin + positions[static_cast<std::size_t>(j)]];
      }
    }
  }

  // Sources: the destinations in order, then the new nodes by increasing id.
  std::unordered_map<int32_t, int32_t> local;
  local.reserve(static_cast<std::size_t>(nd + edges));
  for (int64_t i = 0; i < nd; ++i) local.emplace(dst[i], static_cast<int32_t>(i));
  std::vector<int32_t> fresh;
  for (const int32_t id : sampled) {
    if (local.find(id) == local.end()) fresh.push_back(id);
  }
  std::sort(fresh.begin(), fresh.end());
  fresh.erase(std::unique(fresh.begin(), fresh.end()), fresh.end());
  const int64_t ns = nd + static_cast<int64_t>(fresh.size());
  for (std::size_t k = 0; k < fresh.size(); ++k) local.emplace(fresh[k], static_cast<int32_t>(nd + static_cast<int64_t>(k)));
  b.num_sources = ns;
  b.source_ids = context.allocate({ns}, DType::Int32);
  int32_t* source_ids = b.source_ids.data<int32_t>();
  std::copy(dst, dst + nd, source_ids);
  std::copy(fresh.begin(), fresh.end(), source_ids + nd);

  b.indices = context.allocate({edges}, DType::Int32);
  b.values = context.allocate({edges}, DType::Float32);
  int32_t* indices = b.indices.data<int32_t>();
  float* values = b.values.data<float>();
#pragma omp parallel for schedule(dynamic, 64)
  for (int64_t i = 0; i < nd; ++i) {
    const int64_t begin = indptr[i], end = indptr[i + 1];
    for (int64_t e = begin; e < end; ++e) indices[e] = local.at(sampled[static_cast<std::size_t>(e)]);
    std::sort(indices + begin, indices + end);
    for (int64_t e = begin; e < end; ++e) values[e] = 1.0f / static_cast<float>(end - begin);
  }

  // Aᵀ by a stable counting sort of the entries by column: rows ascend within each column.
  b.transpose_indptr = context.allocate({ns + 1}, DType::Int32);
  b.transpose_indices = context.allocate({edges}, DType::Int32);
  b.transpose_to_csr = context.allocate({edges}, DType::Int32);
  b.transpose_values = context.allocate({edges}, DType::Float32);
  int32_t* t_indptr = b.transpose_indptr.data<int32_t>();
  int32_t* t_indices = b.transpose_indices.data<int32_t>();
  int32_t* t_map = b.transpose_to_csr.data<int32_t>();
  float* t_values = b.transpose_values.data<float>();
  std::fill(t_indptr, t_indptr + ns + 1, 0);
  for (int64_t e = 0; e < edges; ++e) ++t_indptr[indices[e] + 1];
  for (int64_t c = 0; c < ns; ++c) t_indptr[c + 1] += t_indptr[c];
  std::vector<int32_t> cursor(t_indptr, t_indptr + ns);
  for (int64_t i = 0; i < nd; ++i) {
    for (int64_t e = indptr[i]; e < indptr[i + 1]; ++e) {
      const int32_t slot = cursor[static_cast<std::size_t>(indices[e])]++;
      t_indices[slot] = static_cast<int32_t>(i);
      t_map[slot] = static_cast<int32_t>(e);
      t_values[slot] = values[e];
    }
  }
  return assemble_block(std::move(b));
}

Adjacency neighbourhood_rows(ops::Cpu, const CsrView& graph, int64_t begin, int64_t end, const WorkContext& context) {
  const int64_t first = row_offset(graph, begin);
  const int64_t edges = row_offset(graph, end) - first;
  check_block_edges(edges);
  Adjacency a;
  a.csr.num_rows = end - begin;
  a.csr.num_cols = graph.num_nodes;
  a.csr.nnz = edges;
  a.csr.indptr = context.allocate({end - begin + 1}, DType::Int32);
  a.csr.indices = context.allocate({edges}, DType::Int32);
  a.values = context.allocate({edges}, DType::Float32);
  int32_t* indptr = a.csr.indptr.data<int32_t>();
  std::copy(graph.indices + first, graph.indices + first + edges, a.csr.indices.data<int32_t>());
  float* values = a.values.data<float>();
#pragma omp parallel for schedule(static)
  for (int64_t r = begin; r < end; ++r) {
    const int64_t row_begin = row_offset(graph, r) - first, row_end = row_offset(graph, r + 1) - first;
    indptr[r - begin] = static_cast<int32_t>(row_begin);
    for (int64_t e = row_begin; e < row_end; ++e) values[e] = 1.0f / static_cast<float>(row_end - row_begin);
  }
  indptr[end - begin] = static_cast<int32_t>(edges);
  a.transpose_values = a.values;  // never read: inference runs without a tape
  return a;
}

}  // namespace sgnn::sampling
