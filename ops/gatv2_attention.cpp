#include "ops/gatv2_attention.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/autograd.hpp"
#include "ops/cast.hpp"
#include "ops/choice_keys.hpp"
#include "ops/determinism.hpp"
#include "ops/dropout.hpp"
#include "ops/edge_softmax.hpp"
#include "ops/gatv2_backend.hpp"
#include "ops/kernel_timer.hpp"
#include "ops/sparse_plan.hpp"
#include "ops/spmm_backend.hpp"
#include "ops/sparse_checks.hpp"
#include "ops/spmm.hpp"

namespace sgnn::ops {

namespace {

constexpr const char* kOp = "gatv2_scores";

void check_gatv2(const Adjacency& adjacency, const Tensor& x_target, const Tensor& x_source, const Tensor& a,
                 float negative_slope, const char* op) {
  check_adjacency(adjacency, op);
  check_defined(x_target, op, "x_target");
  check_dense_operand(x_target, adjacency, adjacency.num_rows(), op, "x_target");
  check_dense_operand(x_source, adjacency, adjacency.num_cols(), op, "x_source");
  SGNN_CHECK(x_target.dim() == 3 && x_source.dim() == 3 && x_target.size(1) == x_source.size(1) &&
                 x_target.size(2) == x_source.size(2),
             op, ": x_target and x_source must be [n_rows, H, F] and [n_cols, H, F] with one H and F, got ",
             shape_str(x_target.shape()), " and ", shape_str(x_source.shape()));
  SGNN_CHECK(x_target.dtype() == x_source.dtype(), op, ": x_target and x_source must have one dtype, got ",
             dtype_name(x_target.dtype()), " and ", dtype_name(x_source.dtype()));
  check_defined(a, op, "a");
  check_dtype(a, DType::Float32, op, "a");
  SGNN_CHECK(a.device() == adjacency.device(), op, ": argument 'a' is on ", a.device().str(),
             " but the adjacency is on ", adjacency.device().str());
  SGNN_CHECK(a.shape() == Shape({x_target.size(1), x_target.size(2)}), op, ": a must be [H, F] = [",
             x_target.size(1), ", ", x_target.size(2), "], got ", shape_str(a.shape()));
  SGNN_CHECK(negative_slope >= 0.0f, op, ": negative_slope must be non-negative, got ", negative_slope);
}

}  // namespace

Tensor gatv2_scores(const Adjacency& adjacency, const Tensor& x_target, const Tensor& x_source, const Tensor& a,
                    float negative_slope) {
  check_gatv2(adjacency, x_target, x_source, a, negative_slope, kOp);
  const int64_t heads = x_target.size(1);
  Tensor scores = Tensor::empty({adjacency.nnz(), heads}, DType::Float32, adjacency.device());
  if (scores.numel() > 0) {
    SGNN_DISPATCH(scores.device(), gatv2_scores_forward, adjacency.csr, x_target, x_source, a, negative_slope, scores);
  }
  if (autograd::needs_recording({x_target, x_source, a})) {
    check_transpose(adjacency, kOp);
    autograd::record(
        kOp, {x_target, x_source, a}, scores,
        [adjacency, negative_slope, rows = x_target.detach(), columns = x_source.detach(), saved_a = a.detach()](
            const Tensor& grad_scores, const autograd::NeedsGrad& needs) {
          std::vector<Tensor> grads(3);
          const Device device = grad_scores.device();
          if (needs[0] || needs[2]) {
            Tensor grad_rows = Tensor::zeros(rows.shape(), DType::Float32, device);
            Tensor grad_a = needs[2] ? Tensor::zeros(saved_a.shape(), DType::Float32, device) : Tensor();
            SGNN_DISPATCH(device, gatv2_scores_backward, adjacency.csr, Tensor(), grad_scores, rows, columns, saved_a,
                          negative_slope, grad_rows, grad_a);
            if (needs[0]) grads[0] = cast(grad_rows, rows.dtype());
            grads[2] = grad_a;
          }
          if (needs[1]) {
            // The columns' sums are rows of Aᵀ; the scores' gradient read in A's order through the edge map.
            Tensor map = adjacency.transpose_to_csr;
            Tensor gradient = grad_scores;
            if (map.dtype() != DType::Int32) {  // nnz ≥ 2^31: move the gradient into Aᵀ's order first
              gradient = Tensor::empty_like(grad_scores);
              SGNN_DISPATCH(device, gather_edges, map, grad_scores, gradient);
              map = Tensor();
            }
            Tensor grad_columns = Tensor::zeros(columns.shape(), DType::Float32, device);
            Tensor no_a;
            SGNN_DISPATCH(device, gatv2_scores_backward, adjacency.transpose, map, gradient, columns, rows, saved_a,
                          negative_slope, grad_columns, no_a);
            grads[1] = cast(grad_columns, columns.dtype());
          }
          return grads;
        });
  }
  return scores;
}

Tensor gatv2_attention(const Adjacency& adjacency, const Tensor& x_target, const Tensor& x_source, const Tensor& a,
                       float negative_slope) {
  return edge_softmax(adjacency, gatv2_scores(adjacency, x_target, x_source, a, negative_slope));
}

namespace {

// spmm(A, dropout(gatv2_attention(...)), x_source): the ops the fused kernels fuse.
Tensor composed_aggregate(const Adjacency& adjacency, const Tensor& x_target, const Tensor& x_source, const Tensor& a,
                          float negative_slope, float dropout, bool training, Generator& generator) {
  const Tensor attention = gatv2_attention(adjacency, x_target, x_source, a, negative_slope);
  return spmm(adjacency, ops::dropout(attention, dropout, training, generator), x_source);
}

// The fused kernels with `lanes_per_head` (one of gatv2_fused_layouts).
Tensor fused_aggregate(const Adjacency& adjacency, const Tensor& x_target, const Tensor& x_source, const Tensor& a,
                       float negative_slope, float dropout, bool training, Generator& generator, int lanes_per_head) {
  constexpr const char* op = "gatv2_aggregate";
  const Device device = adjacency.device();
  const int64_t heads = x_target.size(1);
  std::optional<EntryDropout> entries;
  if (training && dropout > 0.0f) {  // ops::dropout's draw: one stream of nnz · H values
    entries = EntryDropout{dropout, generator.next_draw(static_cast<uint64_t>(adjacency.nnz() * heads))};
  }
  Tensor scores = Tensor::empty({adjacency.nnz(), heads}, DType::Float32, device);
  Tensor row_lse = Tensor::empty({adjacency.num_rows(), heads}, DType::Float32, device);
  Tensor out = Tensor::empty(x_target.shape(), x_target.dtype(), device);
  SGNN_DISPATCH(device, gatv2_aggregate_forward, adjacency.csr, x_target, x_source, a, negative_slope, entries,
                lanes_per_head, scores, row_lse, out);
  if (autograd::needs_recording({x_target, x_source, a})) {
    check_transpose(adjacency, op);
    autograd::record(op, {x_target, x_source, a}, out,
                     [adjacency, negative_slope, entries, lanes_per_head, scores, row_lse,
                      target = x_target.detach(), source = x_source.detach(), saved_a = a.detach(),
                      saved_out = out.detach()](const Tensor& grad_out, const autograd::NeedsGrad&) {
                       const Device on = grad_out.device();
                       Tensor grad_target = Tensor::empty(target.shape(), DType::Float32, on);
                       Tensor grad_source = Tensor::empty(source.shape(), DType::Float32, on);
                       Tensor grad_a = Tensor::empty(saved_a.shape(), DType::Float32, on);
                       SGNN_DISPATCH(on, gatv2_aggregate_backward, adjacency, target, source, saved_a, negative_slope,
                                     entries, lanes_per_head, scores, row_lse, cast(saved_out, DType::Float32),
                                     cast(grad_out, DType::Float32), grad_target, grad_source, grad_a);
                       return std::vector<Tensor>{cast(grad_target, target.dtype()),
                                                  cast(grad_source, source.dtype()), grad_a};
                     });
  }
  return out;
}

constexpr int kComposed = 0;

// A recorded choice as lanes per head (kComposed for the composition):
// "composed", "fused" (the default layout: choices stored before there were
// two), "fused <n> lanes per head"; a layout this build lacks gives nullopt.
std::optional<int> decode_path(const std::string& value, const std::vector<int>& layouts) {
  if (value == "composed") return kComposed;
  if (value == "fused") return layouts.front();
  int lanes = 0;
  if (std::sscanf(value.c_str(), "fused %d lanes per head", &lanes) == 1 &&
      std::find(layouts.begin(), layouts.end(), lanes) != layouts.end()) {
    return lanes;
  }
  return std::nullopt;
}

std::string path_name(int lanes_per_head, const std::vector<int>& layouts) {
  if (lanes_per_head == kComposed) return "composed";
  if (lanes_per_head == layouts.front()) return "fused";
  return "fused " + std::to_string(lanes_per_head) + " lanes per head";
}

// Which path a call takes, as lanes per head (kComposed: the composition):
// the one place this is decided. The fused kernels make three passes where
// the composition makes six and win on long rows; on rows of a few entries
// the composition's short-row tiles can win, and the fused layout with twice
// the lanes per head (fewer values a lane) can beat both (bench_attention,
// docs/kernels.md). So on CUDA the first call of a shape on a graph times
// every fused layout and the composition on the call's own operands
// (forward and backward when the call records gradients, what a training
// step pays; the forward alone otherwise) and records the fastest in the
// graph's choices under gatv2_choice_key, exported and imported with them.
// Where nothing is recorded and timing is not allowed (may_tune): the
// default fused layout. Under ops::set_deterministic(true) on CUDA: the
// composition, whose backward adds in a fixed order (gatv2_scores_backward's
// partials, the SpMM's split-row merge); the fused kernels' backward adds a's
// and the rows' gradients with atomics.
int choose_path(const Adjacency& adjacency, const Tensor& x_target, const Tensor& x_source, const Tensor& a,
                float negative_slope, float dropout, bool training) {
  const Device device = adjacency.device();
  const std::vector<int> layouts = SGNN_DISPATCH(device, gatv2_fused_layouts, x_target, x_source, adjacency);
  if (layouts.empty()) return kComposed;
  if (!device.is_cuda()) return layouts.front();
  if (deterministic()) return kComposed;
  const bool with_backward = autograd::needs_recording({x_target, x_source, a});
  const std::string key = gatv2_choice_key(x_target.size(1), x_target.size(2), x_target.dtype(), with_backward);
  const std::shared_ptr<const SparsePlan> plan = sparse_plan(adjacency.csr);
  if (const std::optional<std::string> recorded = plan->choices->find(key)) {
    if (const std::optional<int> path = decode_path(*recorded, layouts)) return *path;
  }
  if (!may_tune(adjacency.csr, *plan->choices, stream_capturing(device))) return layouts.front();
  // Timed on detached copies with their own generator: the caller's tape and
  // draws are untouched. The gradient fed back is the output itself.
  const auto run_path = [&](int path) {
    Generator draws(0);
    Tensor target = x_target.detach(), source = x_source.detach(), weights = a.detach();
    if (with_backward) {
      target.set_requires_grad(true);
      source.set_requires_grad(true);
      weights.set_requires_grad(true);
    }
    const Tensor out =
        path == kComposed
            ? composed_aggregate(adjacency, target, source, weights, negative_slope, dropout, training, draws)
            : fused_aggregate(adjacency, target, source, weights, negative_slope, dropout, training, draws, path);
    if (with_backward) out.backward(out.detach());
  };
  {  // The composition's SpMM picks its tiles on its first call: settled before the timing.
    const ScopedTuningTime settling(device);
    run_path(kComposed);
  }
  std::vector<int> candidates = layouts;
  candidates.push_back(kComposed);
  int best = candidates.front();
  double best_ms = std::numeric_limits<double>::infinity();
  for (const int path : candidates) {
    const double ms =
        candidate_ms(device, [&] { run_path(path); }, key + " " + path_name(path, layouts), best_ms);
    if (ms < best_ms) {
      best_ms = ms;
      best = path;
    }
  }
  plan->choices->set(key, path_name(best, layouts));
  return best;
}

}  // namespace

Tensor gatv2_aggregate(const Adjacency& adjacency, const Tensor& x_target, const Tensor& x_source, const Tensor& a,
                       float negative_slope, float dropout, bool training, Generator& generator) {
  constexpr const char* op = "gatv2_aggregate";
  check_gatv2(adjacency, x_target, x_source, a, negative_slope, op);
  SGNN_CHECK(dropout >= 0.0f && dropout < 1.0f, op, ": dropout must be in [0, 1), got ", dropout);
  // Before any path runs (choose_path may time them): the backward of every path needs Aᵀ.
  if (autograd::needs_recording({x_target, x_source, a})) check_transpose(adjacency, op);
  const int path = choose_path(adjacency, x_target, x_source, a, negative_slope, dropout, training);
  if (path == kComposed) {
    return composed_aggregate(adjacency, x_target, x_source, a, negative_slope, dropout, training, generator);
  }
  return fused_aggregate(adjacency, x_target, x_source, a, negative_slope, dropout, training, generator, path);
}

}  // namespace sgnn::ops
