#include <doctest/doctest.h>

#include "graph_io/hrpb_builder.hpp"
#include "ops/cast.hpp"
#include "ops/elementwise.hpp"
#include "ops/choice_keys.hpp"
#include "ops/kernel_choices.hpp"
#include "ops/spmm.hpp"
#include "ops/spmm_format.hpp"
#include "tests/support/hrpb_graphs.hpp"
#include "tests/support/testing.hpp"

using namespace sgnn;
using namespace sgnn::testing;

namespace {

const NamedGraph& graph_named(const std::vector<NamedGraph>& graphs, const std::string& name) {
  for (const NamedGraph& graph : graphs) {
    if (graph.name == name) return graph;
  }
  FAIL("no test graph named " << name);
  return graphs.front();
}

// The adjacency with an HRPB built from twice its values: which kernel ran
// shows in the result (2·A·b from HRPB, A·b from CSR).
Adjacency with_doubled_hrpb(const Adjacency& adjacency, SpmmFormat format) {
  Adjacency doubled = adjacency;
  doubled.values = ops::scale(adjacency.values, 2.0f);
  doubled.transpose_values = ops::scale(adjacency.transpose_values, 2.0f);
  Adjacency result = adjacency;
  result.hrpb = std::make_shared<const HrpbAdjacency>(graph_io::build_hrpb(doubled, {}));
  result.spmm_format = format;
  return result;
}

}  // namespace

TEST_CASE("spmm format names parse and print, others are refused") {
  for (const SpmmFormat format : {SpmmFormat::Csr, SpmmFormat::Hrpb, SpmmFormat::Auto}) {
    CHECK(parse_spmm_format(spmm_format_name(format)) == format);
  }
  CHECK_THROWS_WITH_AS(parse_spmm_format("bsr"), doctest::Contains("expected csr, hrpb or auto"), InvalidArgument);
}

TEST_CASE("ops::spmm runs the kernel the adjacency's format selects, forward and backward") {
  const std::vector<NamedGraph> graphs = hrpb_test_graphs();
  const Adjacency& base = graphs[2].adjacency;  // power-law, GCN-normalised
  const Tensor b = random_tensor({base.num_cols(), 6}, 3);
  const std::vector<double> once = reference_spmm(base.csr, base.values, b);
  std::vector<double> twice = once;
  for (double& v : twice) v *= 2.0;

  CHECK(relative_error(ops::spmm(with_doubled_hrpb(base, SpmmFormat::Csr), b), once) < 1e-5);
  CHECK(relative_error(ops::spmm(with_doubled_hrpb(base, SpmmFormat::Hrpb), b), twice) < 1e-5);

  Tensor input = b.clone().set_requires_grad(true);
  const Tensor grad_c = random_tensor({base.num_rows(), 6}, 4);
  ops::spmm(with_doubled_hrpb(base, SpmmFormat::Hrpb), input).backward(grad_c);
  std::vector<double> expected = reference_spmm(base.transpose, base.transpose_values, grad_c);
  for (double& v : expected) v *= 2.0;
  CHECK(relative_error(input.grad(), expected) < 1e-5);
}

TEST_CASE("auto picks HRPB on a dense panel at wide features and CSR on narrow ones or a power-law graph; HRPB without a layout is an error") {
  const std::vector<NamedGraph> graphs = hrpb_test_graphs();
  const Adjacency& dense = graph_named(graphs, "a full dense panel").adjacency;
  const Adjacency& power_law = graphs[2].adjacency;
  const Adjacency dense_auto = with_doubled_hrpb(dense, SpmmFormat::Auto);
  const Adjacency power_law_auto = with_doubled_hrpb(power_law, SpmmFormat::Auto);
  REQUIRE(dense_auto.hrpb->forward.statistics.alpha() >= ops::kHrpbAutoMinimumAlpha);
  REQUIRE(power_law_auto.hrpb->forward.statistics.alpha() < ops::kHrpbAutoMinimumAlpha);
  CHECK(ops::chosen_spmm_format(dense_auto, ops::kHrpbAutoMinimumWidth) == SpmmFormat::Hrpb);
  CHECK(ops::chosen_spmm_format(dense_auto, ops::kHrpbAutoMinimumWidth - 1) == SpmmFormat::Csr);
  CHECK(ops::chosen_spmm_format(power_law_auto, 256) == SpmmFormat::Csr);

  // A format stored by an older build (its own key) still settles the choice.
  ops::import_kernel_choices(power_law_auto.csr, {{"spmm-format:f32", "hrpb"}, {"spmm-tile:h1:f32", "v4s8r1"}});
  CHECK(ops::chosen_spmm_format(power_law_auto, 32) == SpmmFormat::Hrpb);
  CHECK(ops::chosen_spmm_format(power_law_auto, 256) == SpmmFormat::Csr);
  const Tensor b = random_tensor({power_law.num_cols(), 32}, 2);
  std::vector<double> twice = reference_spmm(power_law.csr, power_law.values, b);
  for (double& v : twice) v *= 2.0;
  CHECK(relative_error(ops::spmm(power_law_auto, b), twice) < 1e-5);

  Adjacency missing = dense;
  missing.spmm_format = SpmmFormat::Hrpb;
  CHECK_THROWS_WITH_AS(ops::spmm(missing, random_tensor({dense.num_cols(), 4}, 1)),
                       doctest::Contains("no HRPB layout"), InvalidArgument);
}

TEST_CASE("BF16 spmm: HRPB runs through float32 when selected; auto keeps BF16 choices apart and defaults to CSR") {
  const std::vector<NamedGraph> graphs = hrpb_test_graphs();
  const Adjacency& dense = graph_named(graphs, "a full dense panel").adjacency;
  const Tensor b = ops::cast(random_tensor({dense.num_cols(), 20}, 5), DType::BFloat16);
  std::vector<double> twice = reference_spmm(dense.csr, dense.values, ops::cast(b, DType::Float32));
  for (double& v : twice) v *= 2.0;
  Tensor input = b.clone().set_requires_grad(true);
  const Tensor c = ops::spmm(with_doubled_hrpb(dense, SpmmFormat::Hrpb), input);
  CHECK(c.dtype() == DType::BFloat16);
  CHECK(relative_error(c, twice) < 4e-3);  // one bfloat16 rounding per element
  c.backward(ops::cast(random_tensor({dense.num_rows(), 20}, 6), DType::BFloat16));
  CHECK(input.grad().dtype() == DType::BFloat16);

  CHECK(ops::spmm_choice_key(1, 64) == "spmm:h1:f64");
  CHECK(ops::spmm_choice_key(1, 64, DType::BFloat16) == "spmm:bf16:h1:f64");
  const Adjacency dense_auto = with_doubled_hrpb(dense, SpmmFormat::Auto);
  REQUIRE(ops::chosen_spmm_format(dense_auto, 64) == SpmmFormat::Hrpb);   // the float32 rule
  CHECK(ops::chosen_spmm_format(dense_auto, 64, DType::BFloat16) == SpmmFormat::Csr);
  ops::import_kernel_choices(dense_auto.csr, {{ops::spmm_choice_key(1, 64, DType::BFloat16), "hrpb"},
                                              {ops::spmm_choice_key(1, 32), "csr"}});
  CHECK(ops::chosen_spmm_format(dense_auto, 64, DType::BFloat16) == SpmmFormat::Hrpb);
  CHECK(ops::chosen_spmm_format(dense_auto, 32, DType::BFloat16) == SpmmFormat::Csr);  // not the float32 choice's key
  CHECK(ops::chosen_spmm_format(dense_auto, 32) == SpmmFormat::Csr);
}

TEST_CASE("attach_hrpb builds the layout once for hrpb and auto, not for csr") {
  Adjacency adjacency = hrpb_test_graphs()[2].adjacency;
  CHECK(graph_io::attach_hrpb(adjacency, SpmmFormat::Csr) == 0.0);
  CHECK(adjacency.hrpb == nullptr);
  graph_io::attach_hrpb(adjacency, SpmmFormat::Auto);
  REQUIRE(adjacency.hrpb != nullptr);
  const HrpbAdjacency* built = adjacency.hrpb.get();
  CHECK(graph_io::attach_hrpb(adjacency, SpmmFormat::Hrpb) == 0.0);
  CHECK(adjacency.hrpb.get() == built);
  CHECK(adjacency.spmm_format == SpmmFormat::Hrpb);
}

TEST_CASE("BF16 HRPB row staging: the widths that have a choice, and the recorded choice picks the staging") {
  CHECK_FALSE(ops::hrpb_row_staging_matters(DType::BFloat16, 64));  // 128-byte rows: copies only
  CHECK(ops::hrpb_row_staging_matters(DType::BFloat16, 65));        // rows padded to 72 elements, 144 bytes
  CHECK(ops::hrpb_row_staging_matters(DType::BFloat16, 256));
  CHECK_FALSE(ops::hrpb_row_staging_matters(DType::Float32, 256));
  const std::vector<NamedGraph> graphs = hrpb_test_graphs();
  const Adjacency dense_auto = with_doubled_hrpb(graph_named(graphs, "a full dense panel").adjacency, SpmmFormat::Auto);
  ops::import_kernel_choices(dense_auto.csr, {{ops::spmm_choice_key(1, 128, DType::BFloat16), ops::kHrpbByCopies},
                                              {ops::spmm_choice_key(1, 256, DType::BFloat16), "hrpb"},
                                              {ops::spmm_choice_key(1, 64, DType::BFloat16), ops::kHrpbByCopies}});
  CHECK(ops::chosen_spmm_format(dense_auto, 128, DType::BFloat16) == SpmmFormat::Hrpb);
  CHECK(ops::chosen_hrpb_row_staging(dense_auto, 128, DType::BFloat16) == ops::HrpbRowStaging::Copies);
  CHECK(ops::chosen_hrpb_row_staging(dense_auto, 256, DType::BFloat16) == ops::HrpbRowStaging::BulkCopies);
  CHECK(ops::chosen_spmm_format(dense_auto, 64, DType::BFloat16) == SpmmFormat::Hrpb);
  CHECK(ops::chosen_hrpb_row_staging(dense_auto, 64, DType::BFloat16) == ops::HrpbRowStaging::BulkCopies);
  Adjacency forced_csr = dense_auto;
  forced_csr.spmm_format = SpmmFormat::Csr;
  CHECK(ops::chosen_hrpb_row_staging(forced_csr, 128, DType::BFloat16) == ops::HrpbRowStaging::BulkCopies);
  // Through ops::spmm the choice runs the HRPB kernel (doubled values: not the CSR's result).
  const Tensor b = ops::cast(random_tensor({dense_auto.num_cols(), 128}, 9), DType::BFloat16);
  std::vector<double> twice = reference_spmm(dense_auto.csr, dense_auto.values, ops::cast(b, DType::Float32));
  for (double& v : twice) v *= 2.0;
  CHECK(relative_error(ops::spmm(dense_auto, b), twice) < 4e-3);
}
