#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "ops/cast.hpp"
#include "ops/determinism.hpp"
#include "ops/edge_endpoints.hpp"
#include "ops/gather_scatter.hpp"
#include "ops/gather_scatter_backend.hpp"
#include "ops/index_plan.hpp"
#include "tests/support/gather_scatter_reference.hpp"
#include "tests/support/gpu_testing.hpp"
#include "tests/support/sparse_graphs.hpp"
#include "tests/support/testing.hpp"

using namespace sgnn;
using namespace sgnn::testing;
using ops::ReduceKind;

namespace {

constexpr ReduceKind kReductions[] = {ReduceKind::Sum, ReduceKind::Mean, ReduceKind::Max, ReduceKind::Min};

// Segment layouts of many shapes: one row, empty rows, random, R-MAT, and a
// hub row of 100000 entries (split into pieces on the GPU).
std::vector<Adjacency> segment_graphs() {
  return {random_graph(1, 1, 1),     random_graph(5, 0, 3),         random_graph(33, 20, 4),
          random_graph(1000, 9000, 5), rmat_graph(4096, 60000, 6), hub_graph(100001, 100000, 77)};
}

std::vector<Shape> row_shapes(int64_t nnz) {
  if (nnz > 50000) return {{}, {3}, {16}, {17}, {64}, {8, 8}, {256}};
  return {{}, {1}, {3}, {4}, {8}, {16}, {17}, {32}, {64}, {100}, {8, 8}, {128}, {256}};
}

Shape with_rows(int64_t rows, const Shape& tail) {
  Shape shape{rows};
  shape.insert(shape.end(), tail.begin(), tail.end());
  return shape;
}

Tensor random_values(const Shape& shape, uint64_t seed, DType dtype, Device device = Device::cpu()) {
  return ops::cast(random_tensor(shape, seed, -2.0, 1.0, device), dtype);
}

Tensor poisoned_as(const Shape& shape, DType dtype) { return ops::cast(poisoned(shape, kGpu), dtype); }

// Sums (orders differ between the backends): 1e-5 for float32, an ulp of
// bfloat16's rounding either way for bfloat16.
double sum_tolerance(DType dtype) { return dtype == DType::Float32 ? 1e-5 : 2 * kBf16UnitRoundoff; }

// The CUDA segment reduction (outputs poisoned) against the CPU backend:
// Max/Min values and winning rows exactly, sums within sum_tolerance; then
// the backward of each.
void check_segments(const ops::Segments& cpu, const ops::Segments& gpu, ReduceKind reduce, const Tensor& src,
                    uint64_t seed) {
  const int64_t segments = cpu.csr.num_rows;
  const int64_t width = shape_numel(Shape(src.shape().begin() + 1, src.shape().end()));
  const Shape out_shape{segments, width};
  const bool keeps = ops::reduce_keeps_argument(reduce);
  Tensor expected = Tensor::empty(out_shape, src.dtype());
  Tensor expected_argument = keeps ? Tensor::empty(out_shape, DType::Int32) : Tensor();
  ops::segment_reduce_forward(ops::Cpu{}, cpu, reduce, src, expected, expected_argument);
  Tensor got = poisoned_as(out_shape, src.dtype());
  Tensor got_argument = keeps ? Tensor::full(out_shape, -7.0, DType::Int32, kGpu) : Tensor();
  ops::segment_reduce_forward(ops::Cuda{}, gpu, reduce, src.to(kGpu), got, got_argument);
  CAPTURE(ops::reduce_kind_name(reduce));
  CAPTURE(segments);
  CAPTURE(width);
  CAPTURE(dtype_name(src.dtype()));
  if (keeps) {
    CHECK(to_double(got) == to_double(expected));
    CHECK(got_argument.to_vector<int32_t>() == expected_argument.to_vector<int32_t>());
  } else {
    CHECK(relative_error(got, expected) < sum_tolerance(src.dtype()));
  }

  const Tensor grad_out = random_values(out_shape, seed, src.dtype());
  Tensor grad_expected = Tensor::empty(src.shape(), src.dtype());
  Tensor grad_got = poisoned_as(src.shape(), src.dtype());
  if (keeps) {
    ops::segment_argument_backward(ops::Cpu{}, expected_argument, grad_out, grad_expected);
    ops::segment_argument_backward(ops::Cuda{}, got_argument, grad_out.to(kGpu), grad_got);
  } else {
    ops::segment_reduce_backward(ops::Cpu{}, cpu, reduce, grad_out, grad_expected);
    ops::segment_reduce_backward(ops::Cuda{}, gpu, reduce, grad_out.to(kGpu), grad_got);
  }
  CHECK(to_double(grad_got) == to_double(grad_expected));  // moved or divided once: the same bits
}

ops::Segments segments_over(const Tensor& offsets, int64_t positions, const Tensor& row_map = Tensor()) {
  ops::Segments segments;
  segments.csr.num_rows = offsets.numel() - 1;
  segments.csr.nnz = positions;
  segments.csr.indptr = offsets;
  segments.row_map = row_map;
  return segments;
}

}  // namespace

TEST_CASE("GPU segment reductions match the CPU backend: empty rows, a hub row of 100000, widths 1..256, both dtypes") {
  uint64_t seed = 5000;
  for (const Adjacency& graph : segment_graphs()) {
    const ops::Segments cpu = segments_over(graph.csr.indptr, graph.nnz());
    const ops::Segments gpu = segments_over(graph.csr.indptr.to(kGpu), graph.nnz());
    for (const Shape& tail : row_shapes(graph.nnz())) {
      for (DType dtype : {DType::Float32, DType::BFloat16}) {
        for (ReduceKind reduce : kReductions) {
          seed += 2;
          check_segments(cpu, gpu, reduce, random_values(with_rows(graph.nnz(), tail), seed, dtype), seed + 1);
        }
      }
    }
  }
}

TEST_CASE("GPU segment reductions through a row map (the sorted scatter) and on a misaligned source") {
  uint64_t seed = 6000;
  const Adjacency graph = rmat_graph(2000, 30000, 8);
  const int64_t nnz = graph.nnz();
  // A permutation of the rows as the map: every row read once, out of order.
  const Tensor index = random_indices({nnz}, 61, 0, 2000, DType::Int32);
  Tensor offsets = Tensor::empty({2001}, DType::Int32), order = Tensor::empty({nnz}, DType::Int32);
  ops::sort_index(ops::Cpu{}, index, 2000, offsets, order);
  const ops::Segments cpu = segments_over(offsets, nnz, order);
  const ops::Segments gpu = segments_over(offsets.to(kGpu), nnz, order.to(kGpu));
  for (const Shape& tail : {Shape{}, Shape{8}, Shape{64}}) {
    for (ReduceKind reduce : kReductions) {
      seed += 2;
      check_segments(cpu, gpu, reduce, random_values(with_rows(nnz, tail), seed, DType::Float32), seed + 1);
    }
  }
  // 8 floats a row starting one float into the storage: the scalar path.
  const Tensor storage = random_tensor({nnz * 8 + 1}, 62);
  const Tensor src = storage.narrow_rows(1, nnz * 8 + 1).view({nnz, 8});
  const ops::Segments plain_cpu = segments_over(graph.csr.indptr, nnz);
  const ops::Segments plain_gpu = segments_over(graph.csr.indptr.to(kGpu), nnz);
  Tensor expected = Tensor::empty({graph.num_rows(), 8});
  Tensor none;
  ops::segment_reduce_forward(ops::Cpu{}, plain_cpu, ReduceKind::Sum, src, expected, none);
  Tensor got = poisoned({graph.num_rows(), 8}, kGpu);
  ops::segment_reduce_forward(ops::Cuda{}, plain_gpu, ReduceKind::Sum,
                              storage.to(kGpu).narrow_rows(1, nnz * 8 + 1).view({nnz, 8}), got, none);
  CHECK(relative_error(got, expected) < 1e-5);
}

TEST_CASE("GPU gather_rows matches the CPU backend; a bad index gives NaN rows and touches nothing else") {
  uint64_t seed = 7000;
  for (const Shape& tail : {Shape{}, Shape{1}, Shape{2}, Shape{3}, Shape{8}, Shape{17}, Shape{64}, Shape{4, 64}}) {
    for (DType dtype : {DType::Float32, DType::BFloat16}) {
      for (DType index_dtype : {DType::Int32, DType::Int64}) {
        const Tensor x = random_values(with_rows(1001, tail), ++seed, dtype);
        const Tensor index = random_indices({5000}, ++seed, 0, 1001, index_dtype);
        Tensor expected = Tensor::empty(with_rows(5000, tail), dtype);
        ops::gather_rows_forward(ops::Cpu{}, x, index, expected);
        Tensor got = poisoned_as(with_rows(5000, tail), dtype);
        ops::gather_rows_forward(ops::Cuda{}, x.to(kGpu), index.to(kGpu), got);
        CAPTURE(shape_str(x.shape()));
        CHECK(to_double(got) == to_double(expected));
      }
    }
  }
  // The backend on bad values (what a capture would run unchecked): NaN rows for them, the rest gathered.
  const Tensor x = random_tensor({10, 4}, 71, -1.0, 1.0, kGpu);
  Tensor out = Tensor::zeros({3, 4}, DType::Float32, kGpu);
  ops::gather_rows_forward(ops::Cuda{}, x, Tensor::from_vector(std::vector<int64_t>{2, 10, -1}, {3}, kGpu), out);
  const std::vector<float> values = out.to_vector<float>();
  const std::vector<float> row2 = x.narrow_rows(2, 3).to_vector<float>();
  CHECK(std::vector<float>(values.begin(), values.begin() + 4) == row2);
  for (std::size_t i = 4; i < 12; ++i) CHECK(std::isnan(values[i]));
  // The op checks on CUDA too.
  CHECK_THROWS_WITH_AS(ops::gather_rows(x, Tensor::from_vector(std::vector<int32_t>{0, 10}, {2}, kGpu)),
                       doctest::Contains("outside [0, 10)"), InvalidArgument);
}

TEST_CASE("GPU scatter matches the CPU: atomic sum, the sorted path (mean, max, min, bfloat16, deterministic sum)") {
  uint64_t seed = 8000;
  for (const int64_t outputs : {int64_t{1}, int64_t{33}, int64_t{5000}}) {
    for (const Shape& tail : {Shape{}, Shape{3}, Shape{16}, Shape{2, 64}}) {
      for (DType dtype : {DType::Float32, DType::BFloat16}) {
        for (ReduceKind reduce : kReductions) {
          // Indices in [0, outputs - outputs / 4): the last quarter of the rows receives nothing.
          const int64_t reached = std::max<int64_t>(outputs - outputs / 4, 1);
          const Tensor index = random_indices({20000}, ++seed, 0, reached, outputs > 100 ? DType::Int64 : DType::Int32);
          const Tensor src = random_values(with_rows(20000, tail), ++seed, dtype);
          const Tensor expected = ops::scatter(src, index, outputs, reduce);
          const Tensor got = ops::scatter(src.to(kGpu), index.to(kGpu), outputs, reduce);
          CAPTURE(outputs);
          CAPTURE(shape_str(src.shape()));
          CAPTURE(dtype_name(dtype));
          CAPTURE(ops::reduce_kind_name(reduce));
          if (ops::reduce_keeps_argument(reduce)) {
            CHECK(to_double(got) == to_double(expected));
          } else {
            CHECK(relative_error(got, expected) < sum_tolerance(dtype));
          }
          if (reduce == ReduceKind::Sum && dtype == DType::Float32) {
            ops::DeterministicScope deterministic(true);
            const Tensor first = ops::scatter(src.to(kGpu), index.to(kGpu), outputs, reduce);
            CHECK(relative_error(first, expected) < sum_tolerance(dtype));
            CHECK(to_double(ops::scatter(src.to(kGpu), index.to(kGpu), outputs, reduce)) == to_double(first));
          }
        }
      }
    }
  }
}

TEST_CASE("GPU autograd through gather, scatter and segment_reduce matches the CPU") {
  const Adjacency cpu_graph = rmat_graph(3000, 40000, 9);
  const Adjacency gpu_graph = cpu_graph.to(kGpu);
  for (ReduceKind reduce : kReductions) {
    CAPTURE(ops::reduce_kind_name(reduce));
    Tensor x_cpu = random_tensor({3000, 2, 8}, 91).set_requires_grad(true);
    Tensor x_gpu = x_cpu.detach().to(kGpu).set_requires_grad(true);
    const auto layer = [&](const Adjacency& graph, const Tensor& x) {
      const Tensor messages = ops::gather_rows(x, ops::edge_sources(graph));
      const Tensor aggregated = ops::segment_reduce(messages, graph.csr.indptr, reduce);
      return ops::scatter(aggregated, ops::edge_sources(graph).narrow_rows(0, 3000), 3000, reduce);
    };
    const Tensor expected = layer(cpu_graph, x_cpu);
    const Tensor got = layer(gpu_graph, x_gpu);
    CHECK(relative_error(got, expected) < 1e-5);
    const Tensor grad = random_tensor(expected.shape(), 92);
    expected.backward(grad);
    got.backward(grad.to(kGpu));
    CHECK(relative_error(x_gpu.grad(), to_double(x_cpu.grad())) < 1e-5);
  }
}

TEST_CASE("GPU index plans: facts, sorts and entry rows match the CPU; a plan is built once per index tensor") {
  uint64_t seed = 9000;
  for (DType dtype : {DType::Int32, DType::Int64}) {
    const Tensor index = random_indices({70001}, ++seed, -5, 3000, dtype);
    const ops::IndexFacts cpu = ops::index_facts(ops::Cpu{}, index);
    const ops::IndexFacts gpu = ops::index_facts(ops::Cuda{}, index.to(kGpu));
    CHECK(gpu.min == cpu.min);
    CHECK(gpu.max == cpu.max);
    CHECK(gpu.first == cpu.first);
    CHECK(gpu.last == cpu.last);
    CHECK(gpu.descents == cpu.descents);
    CHECK(cpu.descents > 0);

    const Tensor valid = random_indices({70001}, ++seed, 0, 3001, dtype);
    Tensor offsets = Tensor::empty({3002}, DType::Int32), order = Tensor::empty({70001}, DType::Int32);
    ops::sort_index(ops::Cpu{}, valid, 3001, offsets, order);
    Tensor gpu_offsets = Tensor::full({3002}, -7.0, DType::Int32, kGpu);
    Tensor gpu_order = Tensor::full({70001}, -7.0, DType::Int32, kGpu);
    ops::sort_index(ops::Cuda{}, valid.to(kGpu), 3001, gpu_offsets, gpu_order);
    CHECK(gpu_offsets.to_vector<int32_t>() == offsets.to_vector<int32_t>());
    CHECK(gpu_order.to_vector<int32_t>() == order.to_vector<int32_t>());
  }
  const Tensor index = random_indices({1000}, ++seed, 0, 50, DType::Int32, kGpu);
  const Tensor x = random_tensor({50, 4}, ++seed, -1.0, 1.0, kGpu);
  (void)ops::gather_rows(x, index);
  const int64_t built = ops::index_plans_built();
  (void)ops::gather_rows(x, index);
  (void)ops::scatter(random_tensor({1000, 4}, ++seed, -1.0, 1.0, kGpu), index, 50, ReduceKind::Max);
  CHECK(ops::index_plans_built() == built);

  for (const Adjacency& cpu_graph : {hub_graph(100001, 100000, 77), rmat_graph(40000, 500000, 10)}) {
    const Adjacency gpu_graph = cpu_graph.to(kGpu);
    CHECK(ops::edge_destinations(gpu_graph).to_vector<int32_t>() ==
          ops::edge_destinations(cpu_graph).to_vector<int32_t>());
  }
}
