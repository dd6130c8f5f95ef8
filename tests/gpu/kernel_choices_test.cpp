// GPU tier: every CSR SpMM tile against the CPU backend, and the measured
// kernel choices (ops/kernel_choices.hpp): the first call of an (op, width)
// on a large enough graph times the candidates and records the fastest,
// later calls and imported choices do not time again, deterministic runs
// without stored choices use the rules, and every choice computes the same
// function (within the TF32 bound where HRPB is chosen). Also the timing
// the benchmarks use, which leaves out the host's time to queue a launch.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <thread>
#include <vector>
#include <doctest/doctest.h>

#include <cuda_runtime_api.h>

#include "core/cuda/core_kernels.hpp"
#include "core/cuda_runtime.hpp"
#include "core/memory.hpp"
#include "graph_io/hrpb_builder.hpp"
#include "ops/cast.hpp"
#include "ops/choice_keys.hpp"
#include "ops/determinism.hpp"
#include "ops/kernel_choices.hpp"
#include "ops/kernel_timer.hpp"
#include "ops/sddmm.hpp"
#include "ops/sddmm_backend.hpp"
#include "ops/sddmm_path.hpp"
#include "ops/sparse_plan.hpp"
#include "ops/spmm.hpp"
#include "ops/spmm_backend.hpp"
#include "ops/spmm_choice.hpp"
#include "ops/spmm_format.hpp"
#include "ops/spmm_tile.hpp"
#include "ops/stream_hold.hpp"
#include "tests/support/gpu_testing.hpp"
#include "tests/support/sparse_graphs.hpp"
#include "tests/support/testing.hpp"

using namespace sgnn;
using namespace sgnn::testing;

namespace {

// A graph above ops::kTuningMinEntries, so that its kernels are timed.
Adjacency tunable_graph(uint64_t seed) {
  Adjacency graph = random_graph(40000, 320000, seed);
  REQUIRE(graph.nnz() >= ops::kTuningMinEntries);
  return graph;
}

// Whether work queued on the library's stream has not finished yet: what a
// launch queued now waits behind (cudaStreamQuery's cudaErrorNotReady is
// that answer, not an error).
bool stream_busy(Device device) {
  cuda::DeviceGuard guard(device);
  const cudaError_t status = cudaStreamQuery(cuda::stream(device));
  REQUIRE((status == cudaSuccess || status == cudaErrorNotReady));
  return status == cudaErrorNotReady;
}

// The host's own work before it queues a launch (a busy wait: exact, unlike a sleep).
void host_work(std::chrono::microseconds duration) {
  const auto started = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() - started < duration) {
  }
}

Tensor cpu_spmm(const Adjacency& cpu, const Tensor& b) {
  Tensor expected = Tensor::empty({cpu.num_rows(), b.size(1)});
  ops::spmm_forward(ops::Cpu{}, cpu.csr, cpu.values, 1, b.size(1), b, expected);
  return expected;
}

}  // namespace

TEST_CASE("GPU spmm: every CSR tile matches the CPU backend on random, R-MAT and hub graphs") {
  const std::vector<Adjacency> graphs = {random_graph(33, 20, 4), random_graph(1000, 9000, 5),
                                         rmat_graph(4096, 60000, 6), hub_graph(100001, 100000, 77)};
  uint64_t seed = 3000;
  for (const Adjacency& cpu : graphs) {
    const Adjacency gpu = cpu.to(kGpu);
    for (int64_t features : {4, 8, 12, 16, 32, 48, 64, 96, 128, 160, 256, 512}) {
      const std::vector<std::string> tiles = ops::spmm_tile_names(features, true);
      REQUIRE_FALSE(tiles.empty());
      const Tensor b = random_tensor({cpu.num_cols(), features}, ++seed);
      const Tensor expected = cpu_spmm(cpu, b);
      for (const std::string& tile : tiles) {
        const ops::ScopedSpmmTile forced(tile);
        Tensor got = poisoned({cpu.num_rows(), features}, kGpu);
        ops::csr_spmm_into(gpu.csr, gpu.values, 1, features, b.to(kGpu), got);
        CAPTURE(cpu.nnz());
        CAPTURE(features);
        CAPTURE(tile);
        CHECK(relative_error(got, expected) < 2e-5);
      }
    }
  }
}

TEST_CASE("GPU spmm: every tile in row order, split rows summed with atomics and in deterministic order") {
  const std::vector<std::string> at128 = ops::spmm_tile_names(128, true);
  CHECK(std::count(at128.begin(), at128.end(), "v4s32r1-rows") == 1);
  CHECK(std::count(at128.begin(), at128.end(), "v4s16r2-rows") == 1);
  // A hub row of 100000 entries split into segments among short rows: row order must skip it.
  const Adjacency cpu = hub_graph(100001, 100000, 77);
  const Adjacency gpu = cpu.to(kGpu);
  REQUIRE(ops::sparse_plan(gpu.csr)->num_split_rows >= 1);
  uint64_t seed = 3700;
  for (const bool ordered : {false, true}) {
    const ops::DeterministicScope scope(ordered);
    for (int64_t features : {16, 128, 256}) {
      const Tensor b = random_tensor({cpu.num_cols(), features}, ++seed);
      const Tensor expected = cpu_spmm(cpu, b);
      for (const std::string& tile : ops::spmm_tile_names(features, true)) {
        if (!tile.ends_with("-rows")) continue;
        const ops::ScopedSpmmTile forced(tile);
        Tensor got = poisoned({cpu.num_rows(), features}, kGpu);
        ops::csr_spmm_into(gpu.csr, gpu.values, 1, features, b.to(kGpu), got);
        CAPTURE(ordered);
        CAPTURE(features);
        CAPTURE(tile);
        CHECK(relative_error(got, expected) < 2e-5);
      }
    }
  }
}

TEST_CASE("GPU spmm: widths off the vector padded to it match the CPU, float32 and bfloat16, heads, split rows") {
  uint64_t seed = 3900;
  for (const Adjacency& cpu : {rmat_graph(4096, 60000, 6), hub_graph(100001, 100000, 77)}) {
    const Adjacency gpu = cpu.to(kGpu);
    for (const auto& [heads, features] : {std::pair<int64_t, int64_t>{1, 41}, {3, 5}, {1, 7}, {2, 13}}) {
      const Tensor values = random_tensor({cpu.nnz(), heads}, ++seed);
      const Tensor b = random_tensor({cpu.num_cols(), heads, features}, ++seed);
      Tensor expected = Tensor::empty({cpu.num_rows(), heads, features});
      ops::spmm_forward(ops::Cpu{}, cpu.csr, values, heads, features, b, expected);
      for (const bool ordered : {false, true}) {
        const ops::DeterministicScope scope(ordered);
        const ops::ScopedSpmmTile forced("padded");
        Tensor got = poisoned({cpu.num_rows(), heads, features}, kGpu);
        ops::csr_spmm_into(gpu.csr, values.to(kGpu), heads, features, b.to(kGpu), got);
        CAPTURE(cpu.nnz());
        CAPTURE(heads);
        CAPTURE(features);
        CAPTURE(ordered);
        CHECK(relative_error(got, expected) < 2e-5);
        // bfloat16: the padded path gives the direct (scalar) path's bits.
        const Tensor b16 = ops::cast(b, DType::BFloat16).to(kGpu);
        Tensor padded16 = Tensor::empty({cpu.num_rows(), heads, features}, DType::BFloat16, kGpu);
        ops::csr_spmm_into(gpu.csr, values.to(kGpu), heads, features, b16, padded16);
        const ops::ScopedSpmmTile direct(ops::spmm_tile_names(features, false, DType::BFloat16).front());
        Tensor direct16 = Tensor::empty({cpu.num_rows(), heads, features}, DType::BFloat16, kGpu);
        ops::csr_spmm_into(gpu.csr, values.to(kGpu), heads, features, b16, direct16);
        CHECK(relative_error(ops::cast(padded16, DType::Float32), ops::cast(direct16, DType::Float32)) == 0.0);
      }
    }
  }
}

TEST_CASE("GPU measured choices: a width off the vector times the padded path against the direct one") {
  const Adjacency cpu = tunable_graph(17);
  const Adjacency gpu = cpu.to(kGpu);
  const Tensor b = random_tensor({cpu.num_cols(), 41}, 18);
  const Tensor got = ops::spmm(gpu, b.to(kGpu));
  const ops::KernelChoiceMap choices = ops::kernel_choices(gpu.csr);
  // One key holds the call's choice: direct (its one scalar tile) or padded with the padded width's tile.
  REQUIRE(choices.contains("spmm:h1:f41:scalar"));
  const std::string chosen = choices.at("spmm:h1:f41:scalar");
  MESSAGE("width 41: ", chosen);
  CHECK((chosen == "direct" || chosen.starts_with("padded v4")));
  // The padded path made the padded width's own choice (timed: three tiles at 44).
  CHECK(choices.contains("spmm:h1:f44"));
  CHECK(relative_error(got, cpu_spmm(cpu, b)) < 1e-5);
  // The recorded choice is reused: no timing.
  const int64_t timed = ops::candidates_timed();
  CHECK(relative_error(ops::spmm(gpu, b.to(kGpu)), cpu_spmm(cpu, b)) < 1e-5);
  CHECK(ops::candidates_timed() == timed);
}

TEST_CASE("GPU spmm: slice-major tiles over several heads and a width with a partial slice") {
  const std::vector<std::string> at256 = ops::spmm_tile_names(256, true);
  CHECK(std::count(at256.begin(), at256.end(), "v4s16r1-slices") == 1);
  CHECK(std::count(at256.begin(), at256.end(), "v4s32r1-slices") == 1);
  const std::vector<std::string> at64 = ops::spmm_tile_names(64, true);
  CHECK(std::none_of(at64.begin(), at64.end(), [](const std::string& t) { return t.find("-slices") != std::string::npos; }));
  const Adjacency cpu = rmat_graph(4096, 60000, 8);
  const Adjacency gpu = cpu.to(kGpu);
  const int64_t heads = 3;
  uint64_t seed = 4000;
  for (int64_t features : {80, 200}) {
    const Tensor values = random_tensor({cpu.nnz(), heads}, ++seed);
    const Tensor b = random_tensor({cpu.num_cols(), heads, features}, ++seed);
    Tensor expected = Tensor::empty({cpu.num_rows(), heads, features}, DType::Float32, Device::cpu());
    ops::spmm_forward(ops::Cpu{}, cpu.csr, values, heads, features, b, expected);
    for (const std::string& tile : {std::string("v4s16r1-slices"), std::string("v4s32r1-slices")}) {
      const ops::ScopedSpmmTile forced(tile);
      Tensor got = poisoned({cpu.num_rows(), heads, features}, kGpu);
      ops::csr_spmm_into(gpu.csr, values.to(kGpu), heads, features, b.to(kGpu), got);
      CAPTURE(features);
      CAPTURE(tile);
      CHECK(relative_error(got, expected) < 2e-5);
    }
  }
}

TEST_CASE("GPU spmm: light tiles give their heavy twins' bits: stored values, symmetric scale, split rows, row order") {
  const std::vector<std::string> at256 = ops::spmm_tile_names(256, true);
  CHECK(std::count(at256.begin(), at256.end(), "v4s16r1-light-slices") == 1);
  CHECK(std::count(at256.begin(), at256.end(), "v4s32r1-light-slices-rows") == 1);
  const std::vector<std::string> bf16 = ops::spmm_tile_names(256, true, DType::BFloat16);
  CHECK(std::none_of(bf16.begin(), bf16.end(), [](const std::string& t) { return t.find("-light") != std::string::npos; }));
  // Split rows' partials summed in segment order, as every tile does in this mode.
  const ops::DeterministicScope ordered(true);
  uint64_t seed = 4200;
  for (const Adjacency& cpu : {random_graph(1000, 9000, 5, true), hub_graph(100001, 100000, 77)}) {
    const Adjacency gpu = cpu.to(kGpu);
    // The symmetric scale: float64 in an int64 tensor's bytes (core/adjacency.hpp).
    std::vector<double> scale_values(static_cast<std::size_t>(cpu.num_rows()));
    const std::vector<float> draws = random_tensor({cpu.num_rows()}, ++seed, 0.1, 2.0).to_vector<float>();
    std::copy(draws.begin(), draws.end(), scale_values.begin());
    std::vector<int64_t> scale_bits(scale_values.size());
    std::memcpy(scale_bits.data(), scale_values.data(), scale_values.size() * sizeof(double));
    const Tensor scale = Tensor::from_vector(scale_bits, {cpu.num_rows()}).to(kGpu);
    for (const int64_t features : {16, 32, 64, 96, 128, 256}) {
      const Tensor b = random_tensor({cpu.num_cols(), features}, ++seed).to(kGpu);
      int light_tiles = 0;
      for (const std::string& tile : ops::spmm_tile_names(features, true)) {
        const std::size_t at = tile.find("-light");
        if (at == std::string::npos) continue;
        ++light_tiles;
        // "-light", "-light40", "-light64" and "-items" dropped: the heavy twin's name.
        const std::size_t budget_end = tile.find_first_not_of("0123456789", at + 6);
        std::string rest = budget_end == std::string::npos ? "" : tile.substr(budget_end);
        if (rest.starts_with("-items")) rest.erase(0, 6);
        const std::string twin = tile.substr(0, at) + rest;
        REQUIRE(ops::parse_spmm_tile(twin, 1, features, true, DType::Float32).has_value());
        CAPTURE(cpu.nnz());
        CAPTURE(features);
        CAPTURE(tile);
        for (const bool scaled : {false, true}) {
          CAPTURE(scaled);
          const Tensor values = scaled ? Tensor() : gpu.values;
          const double* symmetric = scaled ? static_cast<const double*>(scale.raw_data()) : nullptr;
          Tensor light = poisoned({cpu.num_rows(), features}, kGpu);
          Tensor heavy = poisoned({cpu.num_rows(), features}, kGpu);
          {
            const ops::ScopedSpmmTile forced(tile);
            ops::csr_spmm_into(gpu.csr, values, 1, features, b, light, symmetric);
          }
          {
            const ops::ScopedSpmmTile forced(twin);
            ops::csr_spmm_into(gpu.csr, values, 1, features, b, heavy, symmetric);
          }
          CHECK(relative_error(light, heavy) == 0.0);
          if (!scaled) CHECK(relative_error(light, cpu_spmm(cpu, b.to(Device::cpu()))) < 2e-5);
        }
      }
      CHECK(light_tiles >= 1);
    }
  }
}

TEST_CASE("GPU spmm: tiles across heads give the per-head tiles' bits, float32 and bfloat16, split rows, both orders") {
  CHECK(ops::spmm_tile_names(8, true, DType::BFloat16, 8).at(1) == "v8s8r1-heads");
  CHECK(ops::spmm_tile_names(8, true, DType::Float32, 8).at(1) == "v4s16r1-heads");
  const std::vector<std::string> one_head = ops::spmm_tile_names(8, true, DType::BFloat16, 1);
  CHECK(std::none_of(one_head.begin(), one_head.end(), [](const std::string& t) { return t.find("-heads") != std::string::npos; }));
  uint64_t seed = 4100;
  for (const Adjacency& cpu : {rmat_graph(4096, 60000, 6), hub_graph(100001, 100000, 77)}) {
    const Adjacency gpu = cpu.to(kGpu);
    // 8 x 8: GAT; 3 x 8 leaves lanes past the row; 2 x 64 and 8 x 16 take several tiles at 32 lanes.
    for (const auto& [heads, features] : {std::pair<int64_t, int64_t>{8, 8}, {3, 8}, {2, 64}, {8, 16}, {4, 32}}) {
      const Tensor values32 = random_tensor({cpu.nnz(), heads}, ++seed);
      const Tensor b32 = random_tensor({cpu.num_cols(), heads, features}, ++seed);
      for (const DType dtype : {DType::Float32, DType::BFloat16}) {
        // bfloat16 rows with bfloat16 weights (GAT's attention in a BF16 model);
        // the CPU sums the same rounded inputs in float, so what is left is
        // the output's one rounding (2^-9 relative).
        const Tensor values = ops::cast(ops::cast(values32, dtype), DType::Float32);
        const Tensor b = ops::cast(ops::cast(b32, dtype), DType::Float32);
        Tensor expected = Tensor::empty({cpu.num_rows(), heads, features});
        ops::spmm_forward(ops::Cpu{}, cpu.csr, values, heads, features, b, expected);
        const Tensor b_device = ops::cast(b, dtype).to(kGpu);
        const Tensor values_device = ops::cast(values, dtype).to(kGpu);
        for (const bool ordered : {false, true}) {
          const ops::DeterministicScope scope(ordered);
          const std::vector<std::string> tiles = ops::spmm_tile_names(features, true, dtype, heads);
          Tensor reference;
          for (const std::string& tile : tiles) {
            if (tile.find("-heads") != std::string::npos && !tile.ends_with("-rows")) {
              CHECK(std::count(tiles.begin(), tiles.end(), tile + "-rows") == 1);
            }
            const ops::ScopedSpmmTile forced(tile);
            Tensor got = Tensor::full({cpu.num_rows(), heads, features}, std::numeric_limits<double>::quiet_NaN(), dtype,
                                      kGpu);
            ops::csr_spmm_into(gpu.csr, values_device, heads, features, b_device, got);
            const Tensor widened = ops::cast(got, DType::Float32);
            CAPTURE(cpu.nnz());
            CAPTURE(heads);
            CAPTURE(features);
            CAPTURE(ordered);
            CAPTURE(tile);
            if (dtype == DType::Float32) CHECK(relative_error(widened, expected) < 2e-5);
            else CHECK(relative_error(widened, expected) < 4e-3);
            // Within one mode every tile sums the same entries in the same order.
            if (!reference.defined()) reference = widened;
            else if (ordered || dtype == DType::BFloat16) CHECK(relative_error(widened, reference) == 0.0);
            // On Aᵀ with A's values read through the edge map: the gathered copy's bits.
            if (ordered || dtype == DType::BFloat16) {
              Tensor gathered = Tensor::empty_like(values_device);
              ops::gather_edges(ops::Cuda{}, gpu.transpose_to_csr, values_device, gathered);
              const Shape shape{cpu.num_cols(), heads, features};
              Tensor through_map = Tensor::full(shape, std::numeric_limits<double>::quiet_NaN(), dtype, kGpu);
              Tensor from_copy = Tensor::full(shape, std::numeric_limits<double>::quiet_NaN(), dtype, kGpu);
              ops::csr_spmm_into(gpu.transpose, values_device, heads, features, b_device, through_map, nullptr,
                                 gpu.transpose_to_csr);
              ops::csr_spmm_into(gpu.transpose, gathered, heads, features, b_device, from_copy);
              CHECK(relative_error(ops::cast(through_map, DType::Float32), ops::cast(from_copy, DType::Float32)) == 0.0);
            }
          }
        }
      }
    }
  }
}

TEST_CASE("GPU measured choices: timed once per (op, width), reused, exported and imported without timing again") {
  const Adjacency cpu = tunable_graph(11);
  const Adjacency gpu = cpu.to(kGpu);
  const Tensor b = random_tensor({cpu.num_cols(), 64}, 12);
  const int64_t before = ops::candidates_timed();
  const Tensor first = ops::spmm(gpu, b.to(kGpu));
  const int64_t after_first = ops::candidates_timed();
  CHECK(after_first > before);
  const ops::KernelChoiceMap choices = ops::kernel_choices(gpu.csr);
  REQUIRE(choices.contains("spmm:h1:f64"));
  // One key a call: no key of the older layout (a key per layer of the choice).
  for (const auto& [key, variant] : choices) CHECK_FALSE(key.starts_with("spmm-"));
  CHECK(ops::parse_spmm_tile(choices.at("spmm:h1:f64"), 1, 64, true, DType::Float32).has_value());
  CHECK(relative_error(first, cpu_spmm(cpu, b)) < 1e-5);
  // The same width again: the recorded choice, no timing.
  (void)ops::spmm(gpu, b.to(kGpu));
  CHECK(ops::candidates_timed() == after_first);
  // SDDMM: its own key.
  const Tensor x = random_tensor({cpu.num_rows(), 64}, 13).to(kGpu);
  (void)ops::sddmm_dot(gpu, x, x);
  CHECK(ops::kernel_choices(gpu.csr).contains("sddmm:h1:f64"));
  // A fresh copy of the graph (a new plan) with the choices imported: no timing, same choices.
  const Adjacency again = cpu.to(kGpu);
  ops::import_kernel_choices(again.csr, ops::kernel_choices(gpu.csr));
  const int64_t before_import_use = ops::candidates_timed();
  (void)ops::spmm(again, b.to(kGpu));
  (void)ops::sddmm_dot(again, x, x);
  CHECK(ops::candidates_timed() == before_import_use);
  CHECK(ops::kernel_choices(again.csr) == ops::kernel_choices(gpu.csr));
  // An unknown variant in an import (another library version) is ignored: timed anew.
  const Adjacency foreign = cpu.to(kGpu);
  ops::import_kernel_choices(foreign.csr, {{"spmm:h1:f64", "v9s99r9"}});
  CHECK(relative_error(ops::spmm(foreign, b.to(kGpu)), cpu_spmm(cpu, b)) < 1e-5);
}

TEST_CASE("GPU measured choices: deterministic runs and small graphs use the rules, nothing timed") {
  const Adjacency cpu = tunable_graph(21);
  const Tensor b = random_tensor({cpu.num_cols(), 32}, 22);
  {
    const ops::DeterministicScope deterministic(true);
    const Adjacency gpu = cpu.to(kGpu);
    const int64_t before = ops::candidates_timed();
    (void)ops::spmm(gpu, b.to(kGpu));
    CHECK(ops::candidates_timed() == before);
    CHECK(ops::kernel_choices(gpu.csr).empty());
  }
  const Adjacency small = random_graph(300, 2000, 23).to(kGpu);
  REQUIRE(small.nnz() < ops::kTuningMinEntries);
  const int64_t before = ops::candidates_timed();
  (void)ops::spmm(small, random_tensor({300, 32}, 24).to(kGpu));
  CHECK(ops::candidates_timed() == before);
}

TEST_CASE("GPU measured choices: HRPB or CSR timed per width with auto, A and its transpose share a table") {
  const Adjacency cpu = tunable_graph(31);
  Adjacency gpu = cpu.to(kGpu);
  graph_io::attach_hrpb(gpu, SpmmFormat::Auto);
  REQUIRE(gpu.hrpb != nullptr);
  ops::share_kernel_choices(gpu.csr, gpu.transpose);
  for (int64_t width : {int64_t{32}, int64_t{128}}) {
    const Tensor b = random_tensor({cpu.num_cols(), width}, 32 + static_cast<uint64_t>(width));
    const Tensor got = ops::spmm(gpu, b.to(kGpu));
    // One key holds the format and the CSR launch timed against it.
    const std::optional<std::string> choice = ops::sparse_plan(gpu.csr)->choices->find(ops::spmm_choice_key(1, width));
    REQUIRE(choice.has_value());
    const bool hrpb = choice->starts_with("hrpb ");
    CHECK((hrpb || choice->starts_with("csr ")));
    CHECK(ops::parse_spmm_tile(choice->substr(choice->find(' ') + 1), 1, width, true, DType::Float32).has_value());
    CHECK(ops::chosen_spmm_format(gpu, width) == (hrpb ? SpmmFormat::Hrpb : SpmmFormat::Csr));
    CHECK(relative_error(got, cpu_spmm(cpu, b)) < (hrpb ? 2e-3 : 1e-5));
    MESSAGE("width ", width, ": ", *choice);
  }
  // The transpose reads A's table.
  CHECK(ops::kernel_choices(gpu.transpose) == ops::kernel_choices(gpu.csr));
}

TEST_CASE("GPU measured choices in bfloat16: CSR, HRPB, or HRPB with B's rows staged by copies, timed once") {
  const Adjacency cpu = tunable_graph(37);
  Adjacency gpu = cpu.to(kGpu);
  graph_io::attach_hrpb(gpu, SpmmFormat::Auto);
  REQUIRE(gpu.hrpb != nullptr);
  const int64_t width = 128;  // rows of 256 bytes: both stagings exist
  REQUIRE(ops::hrpb_row_staging_matters(DType::BFloat16, width));
  const Tensor b = ops::cast(random_tensor({cpu.num_cols(), width}, 38), DType::BFloat16);
  const Tensor expected = cpu_spmm(cpu, ops::cast(b, DType::Float32));
  const Tensor got = ops::spmm(gpu, b.to(kGpu));
  const std::optional<std::string> choice =
      ops::sparse_plan(gpu.csr)->choices->find(ops::spmm_choice_key(1, width, DType::BFloat16));
  REQUIRE(choice.has_value());
  const std::string format = choice->substr(0, choice->find(' '));
  CHECK((format == "csr" || format == "hrpb" || format == ops::kHrpbByCopies));
  MESSAGE("bfloat16 width ", width, ": ", *choice);
  CHECK(relative_error(ops::cast(got, DType::Float32), expected) < 1e-2);  // bfloat16 C
  const int64_t timed = ops::candidates_timed();
  const Tensor again = ops::spmm(gpu, b.to(kGpu));
  CHECK(ops::candidates_timed() == timed);
  CHECK(to_double(again) == to_double(got));
  // Either staging, chosen through the recorded choice, gives the same bits.
  Adjacency bulk = cpu.to(kGpu), copies = cpu.to(kGpu);
  bulk.hrpb = copies.hrpb = gpu.hrpb;
  bulk.spmm_format = copies.spmm_format = SpmmFormat::Auto;
  ops::import_kernel_choices(bulk.csr, {{ops::spmm_choice_key(1, width, DType::BFloat16), "hrpb"}});
  ops::import_kernel_choices(copies.csr, {{ops::spmm_choice_key(1, width, DType::BFloat16), ops::kHrpbByCopies}});
  REQUIRE(ops::chosen_hrpb_row_staging(copies, width, DType::BFloat16) == ops::HrpbRowStaging::Copies);
  CHECK(to_double(ops::spmm(copies, b.to(kGpu))) == to_double(ops::spmm(bulk, b.to(kGpu))));
}

TEST_CASE("GPU measured choices: a CSR launch recorded by a CSR-only call is kept when auto times the format") {
  const Adjacency cpu = tunable_graph(43);
  Adjacency gpu = cpu.to(kGpu);
  graph_io::attach_hrpb(gpu, SpmmFormat::Auto);
  const int64_t width = 64;
  const Tensor b = random_tensor({cpu.num_cols(), width}, 44).to(kGpu);
  // ops::spmm with edge values runs CSR only: it records the CSR launch alone.
  (void)ops::spmm(gpu, gpu.values, b);
  const std::string key = ops::spmm_choice_key(1, width);
  const std::string tile = ops::kernel_choices(gpu.csr).at(key);
  REQUIRE(ops::parse_spmm_tile(tile, 1, width, true, DType::Float32).has_value());
  // The GCN form then times the format only (CSR once, HRPB once), and the key holds both.
  const int64_t before = ops::candidates_timed();
  const Tensor got = ops::spmm(gpu, b);
  CHECK(ops::candidates_timed() - before <= 2);
  const std::string both = ops::kernel_choices(gpu.csr).at(key);
  CHECK((both == "csr " + tile || both == "hrpb " + tile));
  CHECK(relative_error(got, cpu_spmm(cpu, b.to(Device::cpu()))) < (both.starts_with("hrpb") ? 2e-3 : 1e-5));
}

TEST_CASE("GPU measured choices: an imported HRPB format runs HRPB without timing the CSR launch") {
  const Adjacency cpu = tunable_graph(45);
  Adjacency gpu = cpu.to(kGpu);
  graph_io::attach_hrpb(gpu, SpmmFormat::Auto);
  ops::import_kernel_choices(gpu.csr, {{ops::spmm_choice_key(1, 128), "hrpb"}});
  const Tensor b = random_tensor({cpu.num_cols(), 128}, 46);
  const int64_t before = ops::candidates_timed();
  const Tensor got = ops::spmm(gpu, b.to(kGpu));
  CHECK(ops::candidates_timed() == before);
  CHECK(ops::kernel_choices(gpu.csr).at(ops::spmm_choice_key(1, 128)) == "hrpb");  // nothing added
  CHECK(relative_error(got, cpu_spmm(cpu, b)) < 2e-3);
}

TEST_CASE("GPU measured choices: an imported light tile's budget and grid are the launch, from text and decoded") {
  const Adjacency cpu = tunable_graph(47);
  const Adjacency gpu = cpu.to(kGpu);
  const int64_t width = 32;
  const Tensor b = random_tensor({cpu.num_cols(), width}, 48).to(kGpu);
  for (const char* name : {"v4s8r1-light64-rows", "v4s8r1-light40", "v4s8r1-light40-items-rows"}) {
    ops::import_kernel_choices(gpu.csr, {{ops::spmm_choice_key(1, width), std::string("csr ") + name}});
    const int64_t before = ops::candidates_timed();
    for (int call = 0; call < 2; ++call) {  // the first call parses the text, the second reads the decoded record
      const ops::SpmmChoice choice = ops::spmm_choice(gpu, {gpu.csr, gpu.values, 1, width, b});
      CAPTURE(name);
      CAPTURE(call);
      CHECK(ops::spmm_tile_name(choice.csr.tile) == name);
    }
    CHECK(ops::candidates_timed() == before);
    CHECK(relative_error(ops::spmm(gpu, b), cpu_spmm(cpu, b.to(Device::cpu()))) < 1e-5);
  }
}

TEST_CASE("GPU spmm backend: launches the tile it is given, padded or direct; refuses one its operands cannot take") {
  const Adjacency cpu = rmat_graph(4096, 60000, 47);
  const Adjacency gpu = cpu.to(kGpu);
  uint64_t seed = 4800;
  for (const int64_t features : {int64_t{64}, int64_t{41}}) {
    const Tensor b = random_tensor({cpu.num_cols(), features}, ++seed);
    const Tensor expected = cpu_spmm(cpu, b);
    const bool on_vector = features % 4 == 0;
    // Direct: every tile of the width; padded (41 only): every tile of the padded width.
    std::vector<ops::CsrSpmmLaunch> launches;
    for (const ops::SpmmTile& tile : ops::all_spmm_tiles(1, features, true, DType::Float32)) launches.push_back({tile});
    if (!on_vector) {
      for (const ops::SpmmTile& tile : ops::all_spmm_tiles(1, 44, true, DType::Float32)) launches.push_back({tile, true});
    }
    for (const ops::CsrSpmmLaunch& launch : launches) {
      Tensor got = poisoned({cpu.num_rows(), features}, kGpu);
      ops::spmm_forward(ops::Cuda{}, gpu.csr, gpu.values, 1, features, b.to(kGpu), got, nullptr, Tensor(), false,
                        launch);
      CAPTURE(features);
      CAPTURE(launch.padded);
      CAPTURE(ops::spmm_tile_name(launch.tile));
      CHECK(relative_error(got, expected) < 2e-5);
    }
  }
  // A 16-byte tile on a B that starts one float into its storage, and a tile without a kernel: refused.
  const int64_t features = 64;
  const Tensor storage = random_tensor({cpu.num_cols() * features + 1}, ++seed).to(kGpu);
  const Tensor misaligned = storage.narrow_rows(1, cpu.num_cols() * features + 1).view({cpu.num_cols(), features});
  Tensor c = poisoned({cpu.num_rows(), features}, kGpu);
  const ops::SpmmTile vector_tile{4, 16, 1};
  CHECK_THROWS_AS(ops::spmm_forward(ops::Cuda{}, gpu.csr, gpu.values, 1, features, misaligned, c, nullptr, Tensor(),
                                    false, {vector_tile}),
                  InvalidArgument);
  const ops::SpmmTile no_kernel{4, 2, 2};
  REQUIRE_FALSE(ops::spmm_tile_has_kernel(no_kernel, DType::Float32));
  const Tensor aligned = random_tensor({cpu.num_cols(), features}, ++seed).to(kGpu);
  CHECK_THROWS_AS(ops::spmm_forward(ops::Cuda{}, gpu.csr, gpu.values, 1, features, aligned, c, nullptr, Tensor(),
                                    false, {no_kernel}),
                  InvalidArgument);
  // Through the choice the misaligned B takes a scalar tile (or the padded path) and matches the CPU.
  ops::csr_spmm_into(gpu.csr, gpu.values, 1, features, misaligned, c);
  CHECK(relative_error(c, cpu_spmm(cpu, misaligned.to(Device::cpu()))) < 2e-5);
}

TEST_CASE("GPU measured choices: SDDMM's padded path and its kernel under one key, imported without timing") {
  const Adjacency cpu = tunable_graph(49);
  const Adjacency gpu = cpu.to(kGpu);
  const int64_t features = 41;
  const Tensor x = random_tensor({cpu.num_rows(), features}, 50);
  const Tensor y = random_tensor({cpu.num_cols(), features}, 51);
  const Tensor expected = ops::sddmm_dot(cpu, x, y);
  CHECK(relative_error(ops::sddmm_dot(gpu, x.to(kGpu), y.to(kGpu)), expected) < 1e-5);
  const ops::KernelChoiceMap choices = ops::kernel_choices(gpu.csr);
  const std::string key = ops::sddmm_choice_key(1, features, false, DType::Float32);
  REQUIRE(choices.contains(key));
  const std::string chosen = choices.at(key);
  MESSAGE("SDDMM width 41: ", chosen);
  const bool padded = chosen.starts_with("padded ");
  const std::string kernel = padded ? chosen.substr(7) : chosen;
  const int64_t width = padded ? 44 : features;
  CHECK(ops::parse_sddmm_kernel(kernel, *ops::sparse_plan(gpu.csr), width, false).has_value());
  for (const auto& [name, variant] : choices) CHECK_FALSE(name.starts_with("sddmm-"));
  // A fresh copy with the choices imported: no timing, the same function.
  const Adjacency again = cpu.to(kGpu);
  ops::import_kernel_choices(again.csr, choices);
  const int64_t before = ops::candidates_timed();
  CHECK(relative_error(ops::sddmm_dot(again, x.to(kGpu), y.to(kGpu)), expected) < 1e-5);
  CHECK(ops::candidates_timed() == before);
  // Each way recorded by hand runs that way.
  for (const std::string& way : {std::string("edge-groups-8"), std::string("padded segments-8")}) {
    const Adjacency forced = cpu.to(kGpu);
    ops::import_kernel_choices(forced.csr, {{key, way}});
    CHECK(relative_error(ops::sddmm_dot(forced, x.to(kGpu), y.to(kGpu)), expected) < 1e-5);
    CHECK(ops::kernel_choices(forced.csr).at(key) == way);
  }
}

TEST_CASE("GPU sddmm backend: refuses a kernel that does not exist for the graph") {
  const Adjacency cpu = random_graph(100000, 400000, 52);  // too large for entry rows: no Edges kernel
  const Adjacency gpu = cpu.to(kGpu);
  REQUIRE_FALSE(ops::sparse_plan(gpu.csr)->entry_row.defined());
  const Tensor x = random_tensor({cpu.num_rows(), 16}, 53).to(kGpu);
  Tensor out = poisoned({cpu.nnz()}, kGpu);
  const ops::SddmmLaunch edges{{ops::SddmmPath::Edges, 0}};
  CHECK_THROWS_AS(ops::sddmm_dot_forward(ops::Cuda{}, gpu.csr, 1, 16, x, x, out, nullptr, edges), InvalidArgument);
  const ops::SddmmLaunch hrpb{{ops::SddmmPath::Hrpb, 0}};
  CHECK_THROWS_AS(ops::sddmm_dot_forward(ops::Cuda{}, gpu.csr, 1, 16, x, x, out, nullptr, hrpb), InvalidArgument);
}

TEST_CASE("GPU timing wall time: a timing inside another's launch is counted once, in the outer one") {
  const auto wait = [] { std::this_thread::sleep_for(std::chrono::milliseconds(20)); };
  const double counted_before = ops::timing_milliseconds();
  const int64_t timed_before = ops::candidates_timed();
  const auto started = std::chrono::steady_clock::now();
  // Each outer launch times an inner candidate (two launches of 20 ms); the
  // outer's first launch timed others, so two more follow: about 120 ms of wall time in all.
  (void)ops::candidate_ms(kGpu, [&] { (void)ops::candidate_ms(kGpu, wait); });
  const double wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  const double counted_ms = ops::timing_milliseconds() - counted_before;
  CAPTURE(wall_ms);
  CAPTURE(counted_ms);
  CHECK(ops::candidates_timed() - timed_before == 4);
  // Against the wall time of the same calls, not a fixed bound: counted once,
  // the timing is most of the wall time; counted twice, near 2x it.
  CHECK(counted_ms >= 0.75 * wall_ms);
  CHECK(counted_ms <= wall_ms + 1.0);
}

TEST_CASE("GPU candidate timing: a choice inside the first launch reports its time, and no launch follows") {
  const auto sleep_ms = [](double milliseconds) {
    std::this_thread::sleep_for(std::chrono::microseconds(static_cast<int64_t>(milliseconds * 1000.0)));
  };
  int launches = 0;
  const double reported = ops::candidate_ms(kGpu, [&] {
    ++launches;
    (void)ops::candidate_ms(kGpu, [&] { sleep_ms(2.0); }, "inner");
    ops::report_chosen_ms(1.25);
  }, "outer");
  CHECK(launches == 1);
  CHECK(reported == 1.25);

  // A report made inside an inner candidate's first launch is the inner's:
  // the outer's first launch timed others and got no report, so two follow.
  launches = 0;
  double inner_ms = 0.0;
  (void)ops::candidate_ms(kGpu, [&] {
    ++launches;
    inner_ms = ops::candidate_ms(kGpu, [&] {
      (void)ops::candidate_ms(kGpu, [&] { sleep_ms(1.0); }, "innermost");
      ops::report_chosen_ms(7.5);
    }, "inner");
  }, "outer");
  CHECK(inner_ms == 7.5);
  CHECK(launches == 3);

  // Outside a candidate's first launch a report goes nowhere.
  ops::report_chosen_ms(1000.0);
  launches = 0;
  const double plain = ops::candidate_ms(kGpu, [&] { ++launches; sleep_ms(2.0); }, "plain");
  CHECK(plain < 1000.0);
  CHECK(launches == 2);
}

TEST_CASE("GPU candidate timing: a clear loser and a warm candidate get one launch, a possible winner two") {
  // Host sleeps inside the launch: the events around it measure the sleep.
  // `took` keeps each launch's sleep as the host clock saw it, so a check can
  // say which launch a returned time is (the nearer one), with no bound on
  // how long anything took.
  std::vector<double> took;
  const auto sleeping = [&took](int& launches, std::vector<double> milliseconds) {
    return [&launches, &took, milliseconds] {
      const double wait = milliseconds[std::min(static_cast<std::size_t>(launches), milliseconds.size() - 1)];
      if (launches == 0) took.clear();
      ++launches;
      const auto start = std::chrono::steady_clock::now();
      std::this_thread::sleep_for(std::chrono::microseconds(static_cast<int64_t>(wait * 1000.0)));
      took.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    };
  };
  const auto nearer = [](double value, double to, double than) { return std::abs(value - to) < std::abs(value - than); };
  ops::forget_one_time_costs();
  int launches = 0;
  // No one-time cost seen yet: even a candidate far slower than the best gets two launches.
  (void)ops::candidate_ms(kGpu, sleeping(launches, {20.0}), "first", 1.0);
  CHECK(launches == 2);
  const ops::OneTimeCosts seen = ops::largest_one_time_costs();
  REQUIRE(seen.seen);
  CHECK(seen.ratio >= 1.0);
  CHECK(seen.milliseconds >= 0.0);

  SUBCASE("slower than the best by more than any one-time cost seen: one launch") {
    const double slow = seen.milliseconds + seen.ratio * 5.0 + 20.0;
    launches = 0;
    const double ms = ops::candidate_ms(kGpu, sleeping(launches, {slow}), "loser", 5.0);
    CHECK(launches == 1);
    CHECK(nearer(ms, took[0], 5.0));  // its one launch's time, not the best's
  }
  SUBCASE("close to the best: two launches") {
    launches = 0;
    (void)ops::candidate_ms(kGpu, sleeping(launches, {5.0}), "rival", 10.0);
    CHECK(launches == 2);
  }
  SUBCASE("warm: one launch") {
    launches = 0;
    (void)ops::candidate_ms(kGpu, sleeping(launches, {5.0}), "warm", std::numeric_limits<double>::infinity(), true);
    CHECK(launches == 1);
  }
  SUBCASE("under a millisecond: two launches even when warm or a clear loser") {
    launches = 0;
    (void)ops::candidate_ms(kGpu, sleeping(launches, {0.2}), "short warm", std::numeric_limits<double>::infinity(), true);
    CHECK(launches == 2);
    launches = 0;
    (void)ops::candidate_ms(kGpu, sleeping(launches, {0.5}), "short loser", 0.01);
    CHECK(launches == 2);
  }
  SUBCASE("under 0.05 ms: four launches more, the fastest counts") {
    launches = 0;
    const double ms = ops::candidate_ms(kGpu, [&launches] { ++launches; }, "empty");
    REQUIRE((launches == 2 || launches == 6));
    CHECK((launches == 6) == (ms < 0.05));  // the rule, whatever the launches took
    launches = 0;
    (void)ops::candidate_ms(kGpu, sleeping(launches, {0.2}), "not short");
    CHECK(launches == 2);
  }
  SUBCASE("a first launch that paid a one-time cost as large as one seen before still gets its second") {
    const double cost = seen.milliseconds + 30.0;
    launches = 0;
    // Seen: a first launch `cost` slower than the second (5 ms).
    (void)ops::candidate_ms(kGpu, sleeping(launches, {cost + 5.0, 5.0}), "cold");
    REQUIRE(launches == 2);
    // Now the largest: 30 ms above the one seen before, of which a loaded machine's late
    // wake-ups (under 15 ms: a second sleep running long shrinks the difference) may take some.
    CHECK(ops::largest_one_time_costs().milliseconds > seen.milliseconds + 15.0);
    // A faster candidate (3 ms) whose first launch pays the same cost beats the best (10 ms).
    launches = 0;
    const double ms = ops::candidate_ms(kGpu, sleeping(launches, {cost + 3.0, 3.0}), "cold winner", 10.0);
    REQUIRE(launches == 2);
    CHECK(nearer(ms, took[1], took[0]));  // the second launch, not the first's sleep, counts
  }
  SUBCASE("a first launch slower in proportion to a ratio seen before still gets its second") {
    launches = 0;
    // Seen: a first launch 3x its second (30 vs 10 ms).
    (void)ops::candidate_ms(kGpu, sleeping(launches, {30.0, 10.0}), "cold ratio");
    REQUIRE(launches == 2);
    const ops::OneTimeCosts costs = ops::largest_one_time_costs();
    CHECK(costs.ratio >= 2.5);
    // Best 10 ms: a first launch of 40 ms minus the largest cost in milliseconds (about 20) is 20, within 3x 10.
    launches = 0;
    (void)ops::candidate_ms(kGpu, sleeping(launches, {costs.milliseconds + 2.0 * 10.0 + 5.0, 8.0}), "ratio winner", 10.0);
    CHECK(launches == 2);
  }
  ops::forget_one_time_costs();  // the sleeps' costs are not a kernel's
}

TEST_CASE("GPU device launch timing: a held launch is queued while the stream is still busy; hold_stream holds") {
  Tensor target = Tensor::empty({1024}, DType::Float32, kGpu);
  const auto fill = [&] { detail::fill_cuda(target.raw_data(), target.numel(), DType::Float32, 1.0, kGpu); };
  memory::synchronize(kGpu);  // nothing of earlier cases left on the stream
  // Events alone: after 1 ms of host work the stream has run its start event
  // and waits for the host, so the events count the host's time to queue.
  bool busy = true;
  (void)ops::timed_launch_ms(kGpu, [&] {
    host_work(std::chrono::milliseconds(1));
    busy = stream_busy(kGpu);
    fill();
  });
  CHECK_FALSE(busy);
  // Held: the stream still runs the 200 µs hold when the launch is queued, so
  // the start event runs after the host has queued the fill: the events count
  // the GPU's work only.
  busy = false;
  (void)ops::device_launch_ms(kGpu, [&] {
    busy = stream_busy(kGpu);
    fill();
  });
  CHECK(busy);
  // Work queued after a hold waits for it.
  ops::hold_stream(kGpu, 2000.0);
  CHECK(stream_busy(kGpu));
  memory::synchronize(kGpu);
  CHECK_FALSE(stream_busy(kGpu));
  CHECK_THROWS_AS(ops::hold_stream(Device::cpu(), 1.0), Error);
  CHECK_THROWS_AS(ops::hold_stream(kGpu, -1.0), Error);
}

TEST_CASE("GPU candidate timing: a short candidate's extra launches are held, leaving out the host's time to queue it") {
  Tensor target = Tensor::empty({1024}, DType::Float32, kGpu);
  // Each launch notes whether the stream was still busy after 10 µs of host
  // work: held by a 200 µs hold, or already idle (the start event long done).
  std::vector<bool> held;
  const auto launch = [&] {
    host_work(std::chrono::microseconds(10));
    held.push_back(stream_busy(kGpu));
    detail::fill_cuda(target.raw_data(), target.numel(), DType::Float32, 1.0, kGpu);
  };
  const double ms = ops::candidate_ms(kGpu, launch, "short");
  CAPTURE(ms);
  CAPTURE(held.size());
  // Two launches timed by events alone; where the faster is under 0.05 ms
  // (a few microseconds of fill), four more, each after a hold of the stream.
  REQUIRE((held.size() == 2 || held.size() == 6));
  CHECK((held.size() == 6) == (ms < 0.05));
  for (std::size_t launch_index = 2; launch_index < held.size(); ++launch_index) {
    CAPTURE(launch_index);
    CHECK(held[launch_index]);
  }
}
