// GPU tier: the HRPB path of sddmm_dot (ops/cuda/sddmm_hrpb.cu), tensor cores
// on the graph's HRPB layout: TF32 for float32 operands, bfloat16 as they are
// (a case of its own below). Against float64 on the host, each float32 dot
// product within its TF32 bound: x and y rounded to 11 fraction bits (each
// off by at most 2^-11 of itself), so a product is off by at most about
// 2^-10 of |x·y|, and the float sum adds its own rounding; the bound per
// entry is 2^-9 · Σ_f |x_f·y_f|. Outputs poisoned before every run (a
// skipped or misplaced entry fails), on meshes, stencils, random and R-MAT
// graphs, a hub row whose panel is split, a rectangular matrix, rows not a
// multiple of 16, one and several heads, through the backend and through
// sddmm_dot on an Adjacency.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "bench/support/bench_graphs.hpp"
#include "graph_io/generators/generators.hpp"
#include "graph_io/hrpb_builder.hpp"
#include "ops/cast.hpp"
#include "ops/cuda/hrpb_row_masks.cuh"
#include "ops/kernel_choices.hpp"
#include "ops/sddmm.hpp"
#include "ops/sddmm_backend.hpp"
#include "ops/sddmm_choice.hpp"
#include "ops/sddmm_path.hpp"
#include "ops/sparse_plan.hpp"
#include "tests/support/gpu_testing.hpp"
#include "tests/support/sparse_graphs.hpp"
#include "tests/support/testing.hpp"

using namespace sgnn;
using namespace sgnn::testing;
using ops::SddmmPath;

namespace {

constexpr double kTf32Bound = 1.0 / 512.0;  // 2^-9 of Σ|x·y| (see the top)

struct DotReference {
  std::vector<double> value;  // Σ x·y in float64
  std::vector<double> bound;  // kTf32Bound · Σ |x·y|, at least a float's worth above 0
};

DotReference reference_dot(const Csr& csr, int64_t heads, int64_t features, const Tensor& x, const Tensor& y) {
  const std::vector<int64_t> lengths = csr.row_lengths();
  const std::vector<int32_t> indices = csr.indices.to(Device::cpu()).to_vector<int32_t>();
  const std::vector<float> left = x.to(Device::cpu()).to_vector<float>();
  const std::vector<float> right = y.to(Device::cpu()).to_vector<float>();
  const int64_t width = heads * features;
  DotReference out;
  out.value.resize(static_cast<std::size_t>(csr.nnz * heads));
  out.bound.resize(out.value.size());
  int64_t e = 0;
  for (int64_t row = 0; row < csr.num_rows; ++row) {
    for (int64_t k = 0; k < lengths[static_cast<std::size_t>(row)]; ++k, ++e) {
      const int64_t col = indices[static_cast<std::size_t>(e)];
      for (int64_t h = 0; h < heads; ++h) {
        double dot = 0.0, magnitude = 0.0;
        for (int64_t f = h * features; f < (h + 1) * features; ++f) {
          const double product = double{left[static_cast<std::size_t>(row * width + f)]} *
                                 double{right[static_cast<std::size_t>(col * width + f)]};
          dot += product;
          magnitude += std::abs(product);
        }
        out.value[static_cast<std::size_t>(e * heads + h)] = dot;
        out.bound[static_cast<std::size_t>(e * heads + h)] = kTf32Bound * magnitude + 1e-30;
      }
    }
  }
  return out;
}

Tensor run_hrpb(const Csr& gpu, const Hrpb& hrpb, int64_t heads, int64_t features, const Tensor& x, const Tensor& y) {
  const ops::ScopedSddmmPath forced(SddmmPath::Hrpb);
  Tensor out = poisoned({gpu.nnz * heads}, kGpu);
  ops::sddmm_dot_into(gpu, heads, features, x, y, out, &hrpb);
  return out;
}

// The HRPB kernel on fresh x, y within its bound of float64, and bitwise the same on a second run.
void check_hrpb(const Csr& gpu, const Hrpb& hrpb, int64_t heads, int64_t features, uint64_t seed) {
  CAPTURE(gpu.num_rows);
  CAPTURE(gpu.nnz);
  CAPTURE(heads);
  CAPTURE(features);
  REQUIRE(ops::hrpb_sddmm_fits(&hrpb, gpu, features, true));
  const Tensor x = random_tensor({gpu.num_rows, heads * features}, seed).to(kGpu);
  const Tensor y = random_tensor({gpu.num_cols, heads * features}, seed + 1).to(kGpu);
  const DotReference expected = reference_dot(gpu, heads, features, x, y);
  const Tensor got = run_hrpb(gpu, hrpb, heads, features, x, y);
  CHECK(worst_bound_ratio(got, expected.value, expected.bound) <= 1.0);
  // TF32, not float32: some dot products differ from a float32 kernel's (else the HRPB kernel did not run).
  if (gpu.nnz > 0) {
    const ops::ScopedSddmmPath segments(SddmmPath::Segments);
    Tensor float32 = poisoned({gpu.nnz * heads}, kGpu);
    ops::sddmm_dot_into(gpu, heads, features, x, y, float32, &hrpb);
    CHECK(float32.to_vector<float>() != got.to_vector<float>());
  }
  CHECK(run_hrpb(gpu, hrpb, heads, features, x, y).to_vector<float>() == got.to_vector<float>());
}

Adjacency mesh(const graph_io::EdgeList& edges) { return bench::gcn_adjacency(edges, kGpu); }

}  // namespace

TEST_CASE("GPU sddmm_dot HRPB: within the TF32 bound of float64 on meshes, stencils and irregular graphs") {
  std::vector<Adjacency> graphs;
  graphs.push_back(mesh(graph_io::generate_fem_mesh({{6, 5, 3}, 1, 3})));   // 3×3 dense blocks, 3D
  graphs.push_back(mesh(graph_io::generate_fem_mesh({{9, 7, 0}, 2, 2})));   // quadratic 2D
  graphs.push_back(mesh(graph_io::generate_stencil({{13, 11, 7}, 1, graph_io::StencilShape::Box})));  // 1001 rows
  graphs.push_back(random_graph(1000, 9000, 14, false, kGpu));
  graphs.push_back(rmat_graph(4096, 60000, 15, kGpu));
  graphs.push_back(random_graph(5, 0, 12, false, kGpu));  // no entries at all
  uint64_t seed = 31000;
  for (const Adjacency& graph : graphs) {
    const Hrpb hrpb = graph_io::build_hrpb(graph.csr, Tensor(), {});
    for (const int64_t heads : {int64_t{1}, int64_t{3}}) {
      for (const int64_t features : {16, 48, 128, 512}) {
        if (heads == 3 && features > 128) continue;
        check_hrpb(graph.csr, hrpb, heads, features, seed += 2);
      }
    }
  }
}

TEST_CASE("GPU sddmm_dot HRPB: bfloat16 operands on mma m16n8k16, float32 and bfloat16 outputs") {
  // Products of bfloat16 are exact in float and the sums are float: against
  // float64 on the same (rounded) values, within 2^-12 of Σ|x·y| (float sums
  // of up to 512 products, however the tensor cores order them); a bfloat16
  // output adds its one rounding, 2^-8 of the value.
  std::vector<Adjacency> graphs;
  graphs.push_back(mesh(graph_io::generate_fem_mesh({{6, 5, 3}, 1, 3})));
  graphs.push_back(mesh(graph_io::generate_stencil({{13, 11, 7}, 1, graph_io::StencilShape::Box})));
  graphs.push_back(rmat_graph(4096, 60000, 15, kGpu));
  graphs.push_back(hub_graph(3000, 2500, 40, kGpu));
  uint64_t seed = 34000;
  for (const Adjacency& graph : graphs) {
    const Hrpb hrpb = graph_io::build_hrpb(graph.csr, Tensor(), {});
    for (const int64_t heads : {int64_t{1}, int64_t{2}}) {
      for (const int64_t features : {32, 96, 256, 512}) {
        if (heads == 2 && features > 96) continue;
        CAPTURE(graph.nnz());
        CAPTURE(heads);
        CAPTURE(features);
        REQUIRE(ops::hrpb_sddmm_fits(&hrpb, graph.csr, features, true, DType::BFloat16));
        const Tensor x = ops::cast(random_tensor({graph.num_rows(), heads * features}, seed += 2).to(kGpu),
                                   DType::BFloat16);
        const Tensor y = ops::cast(random_tensor({graph.num_cols(), heads * features}, seed + 1).to(kGpu),
                                   DType::BFloat16);
        const DotReference expected = reference_dot(graph.csr, heads, features, ops::cast(x, DType::Float32),
                                                    ops::cast(y, DType::Float32));
        std::vector<double> float_bound(expected.bound.size()), bf16_bound(expected.bound.size());
        for (std::size_t i = 0; i < expected.bound.size(); ++i) {
          float_bound[i] = expected.bound[i] / 8.0;  // 2^-12 of Σ|x·y|
          bf16_bound[i] = float_bound[i] + kBf16UnitRoundoff * std::abs(expected.value[i]);
        }
        const ops::ScopedSddmmPath forced(SddmmPath::Hrpb);
        Tensor got = poisoned({graph.nnz() * heads}, kGpu);
        ops::sddmm_dot_into(graph.csr, heads, features, x, y, got, &hrpb);
        CHECK(worst_bound_ratio(got, expected.value, float_bound) <= 1.0);
        Tensor rounded = ops::cast(poisoned({graph.nnz() * heads}, kGpu), DType::BFloat16);
        ops::sddmm_dot_into(graph.csr, heads, features, x, y, rounded, &hrpb);
        CHECK(worst_bound_ratio(ops::cast(rounded, DType::Float32), expected.value, bf16_bound) <= 1.0);
      }
    }
  }
  // A bfloat16 width off the 32-feature chunk is not the HRPB kernel's.
  const Hrpb hrpb = graph_io::build_hrpb(graphs[0].csr, Tensor(), {});
  CHECK_FALSE(ops::hrpb_sddmm_fits(&hrpb, graphs[0].csr, 48, true, DType::BFloat16));
  CHECK(ops::hrpb_sddmm_fits(&hrpb, graphs[0].csr, 48, true, DType::Float32));
}

TEST_CASE("GPU sddmm_dot HRPB: a hub row's split panel and a rectangular matrix") {
  // The hub's panel is split along its blocks (a small machine for the
  // schedule): each virtual panel writes its own blocks' entries.
  const Adjacency hub = hub_graph(3000, 2500, 40, kGpu);
  graph_io::HrpbOptions options;
  options.concurrent_blocks = 8;
  const Hrpb split = graph_io::build_hrpb(hub.csr, Tensor(), options);
  REQUIRE(split.schedule.num_split_panels > 0);
  check_hrpb(hub.csr, split, 1, 64, 32000);
  check_hrpb(hub.csr, split, 2, 32, 32002);

  // 37 rows over 1000 columns: a partial last panel, many blocks a panel.
  std::vector<int32_t> indptr{0}, indices;
  for (int32_t row = 0; row < 37; ++row) {
    for (int32_t col = row % 5; col < 1000; col += 3 + row % 7) indices.push_back(col);
    indptr.push_back(static_cast<int32_t>(indices.size()));
  }
  Csr rectangle;
  rectangle.num_rows = 37;
  rectangle.num_cols = 1000;
  rectangle.nnz = static_cast<int64_t>(indices.size());
  rectangle.indptr = Tensor::from_vector(indptr, {38});
  rectangle.indices = Tensor::from_vector(indices, {rectangle.nnz});
  rectangle.validate();
  const Csr gpu = rectangle.to(kGpu);
  check_hrpb(gpu, graph_io::build_hrpb(gpu, Tensor(), {}), 1, 80, 32004);
}

TEST_CASE("GPU sddmm_dot HRPB: the row masks are built once per layout and shared by its copies") {
  const Adjacency graph = mesh(graph_io::generate_fem_mesh({{4, 4, 4}, 1, 1}));
  const Hrpb hrpb = graph_io::build_hrpb(graph.csr, Tensor(), {});
  const int64_t before = ops::hrpb_row_masks_built();
  const Tensor masks = ops::hrpb_row_masks(hrpb);
  const Hrpb copy = hrpb;
  CHECK(ops::hrpb_row_masks(copy).shares_storage_with(masks));
  CHECK(ops::hrpb_row_masks_built() == before + 1);
  // Each mask's entry count is the popcount sum of the panel's earlier blocks' masks for that row,
  // and the masks of a row hold exactly its entries.
  const std::vector<int32_t> words = masks.to(Device::cpu()).to_vector<int32_t>();
  const std::vector<int32_t> row_ptr = hrpb.blocked_row_ptr.to(Device::cpu()).to_vector<int32_t>();
  const std::vector<int64_t> lengths = graph.csr.row_lengths();
  for (int64_t panel = 0; panel < hrpb.num_panels; ++panel) {
    for (int row = 0; row < 16; ++row) {
      int64_t count = 0;
      for (int32_t block = row_ptr[static_cast<std::size_t>(panel)]; block < row_ptr[static_cast<std::size_t>(panel + 1)];
           ++block) {
        const std::size_t at = (static_cast<std::size_t>(block) * 16 + static_cast<std::size_t>(row)) * 2;
        CHECK(words[at] == count);
        count += __builtin_popcount(static_cast<unsigned>(words[at + 1]));
      }
      const int64_t global_row = panel * 16 + row;
      CHECK(count == (global_row < graph.num_rows() ? lengths[static_cast<std::size_t>(global_row)] : 0));
    }
  }
}

TEST_CASE("GPU sddmm_dot HRPB: sddmm_dot on an adjacency with its layout times it, and falls back where it does not fit") {
  Adjacency graph = mesh(graph_io::generate_fem_mesh({{10, 10, 10}, 1, 3}));  // 3993 rows, ≈ 320K entries
  graph_io::attach_hrpb(graph, SpmmFormat::Auto);
  REQUIRE(graph.hrpb != nullptr);
  const int64_t features = 64;
  const Tensor x = random_tensor({graph.num_rows(), features}, 33000).to(kGpu);
  const Tensor y = random_tensor({graph.num_cols(), features}, 33001).to(kGpu);
  const DotReference expected = reference_dot(graph.csr, 1, features, x, y);
  {
    // Forced: the same bits as the backend entry with the layout.
    const ops::ScopedSddmmPath forced(SddmmPath::Hrpb);
    const Tensor through_op = ops::sddmm_dot(graph, x, y);
    CHECK(through_op.to_vector<float>() == run_hrpb(graph.csr, graph.hrpb->forward, 1, features, x, y).to_vector<float>());
  }
  // Auto: the choice is timed with the HRPB kernel among the candidates and recorded under the ":hrpb" key.
  const ops::ScopedKernelTuning tuning(true);
  const Tensor automatic = ops::sddmm_dot(graph, x, y);
  CHECK(worst_bound_ratio(automatic, expected.value, expected.bound) <= 1.0);
  const ops::KernelChoiceMap choices = ops::kernel_choices(graph.csr);
  const std::string key = ops::sddmm_choice_key(1, features, true, DType::Float32, true);
  REQUIRE(choices.contains(key));
  MESSAGE("sddmm choice on the 3D FEM mesh at width 64: ", choices.at(key));
  // Where it does not fit (a width not a multiple of 16), a forced HRPB runs the float32 rule.
  const ops::ScopedSddmmPath forced(SddmmPath::Hrpb);
  const Tensor x8 = random_tensor({graph.num_rows(), 8}, 33002).to(kGpu);
  const Tensor y8 = random_tensor({graph.num_cols(), 8}, 33003).to(kGpu);
  CHECK_FALSE(ops::hrpb_sddmm_fits(&graph.hrpb->forward, graph.csr, 8, true));
  CHECK(relative_error(ops::sddmm_dot(graph, x8, y8), reference_dot(graph.csr, 1, 8, x8, y8).value) < 1e-5);
}
