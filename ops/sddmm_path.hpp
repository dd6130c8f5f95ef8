// Which CUDA kernel computes sddmm_dot on a graph (ops/cuda/sddmm*.cu):
//   Segments   one subwarp per work segment of the plan (Sputnik's SDDMM),
//              several segments per warp: best for short rows
//   DenseRows  one warp per segment, x[row] kept in registers for the whole
//              segment, Y rows streamed several at a time: for long rows
//              (ops/cuda/sddmm_dense_rows.cu); widths up to
//              kDenseRowsMaxFeatures per head
//   Edges      one thread per (entry, head), the whole dot product in the
//              thread: the fewest dependent loads, for small graphs where
//              latency, not traffic, sets the time (ops/cuda/sddmm_edges.cu);
//              only where the plan has entry rows (ops/sparse_plan.hpp)
//   EdgeGroups groups of a few lanes per run of consecutive entries, rows
//              found by search over the offsets: balanced whatever the row
//              lengths, one shuffle per entry (ops/cuda/sddmm_edge_groups.cu);
//              three group sizes are candidates for timing
//   Hrpb       tensor cores over the graph's HRPB layout, where the
//              adjacency has one: a block's 16 y rows read once for all its
//              entries, for meshes and stencils (ops/cuda/sddmm_hrpb.cu);
//              float32 on TF32 (per-head widths a multiple of 16), bfloat16
//              (a multiple of 32), up to kHrpbSddmmMaxFeatures; timed, never
//              the rule's choice
// On graphs where timing pays (ops/kernel_choices.hpp) the first call of a
// (heads, width) times every path (and group size) and keeps the fastest;
// elsewhere choose_sddmm_path's rule decides from the graph's cached plan
// (entry rows or not, mean entries per work segment) and the width.
// force_sddmm_path overrides both process-wide (tests cover every kernel on
// one graph, bench_sparse compares them). Thread safe; read per call. All
// kernels write the same function.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/hrpb.hpp"
#include "ops/sparse_plan.hpp"

namespace sgnn::ops {

enum class SddmmPath { Auto, Segments, DenseRows, Edges, EdgeGroups, Hrpb };

// Mean entries per work segment from which DenseRows is chosen: one warp
// walks ≥ 128 entries per x row it loads, so its 32 lanes stay busy.
inline constexpr double kDenseRowsMinMeanSegment = 128.0;
// Widest per-head feature count DenseRows handles (its per-lane registers).
inline constexpr int64_t kDenseRowsMaxFeatures = 512;
// Widest per-head feature count the HRPB path handles (its staged x rows: 33 KB of shared memory).
inline constexpr int64_t kHrpbSddmmMaxFeatures = 512;
// On small graphs (the plan has entry rows) the plan gives Edges the widths
// up to kEdgesMaxFeatures per head, DenseRows those up to
// kSmallGraphDenseRowsMaxFeatures (one coalesced index load per 32 entries
// and x[row] in registers: the shortest critical path once a thread's own
// dot product gets long), Segments the wider ones. Calibrated on the H100
// with bench_sparse --sddmm-path all on Cora, Citeseer and their R-MAT
// look-alikes (docs/kernels.md).
inline constexpr int64_t kEdgesMaxFeatures = 32;
inline constexpr int64_t kSmallGraphDenseRowsMaxFeatures = 128;

// Auto returns to the measured or ruled choice. `lanes` (a power of two in
// 1..32; 0 = the rule's) sets the lanes per item of Segments and EdgeGroups;
// by_row runs Segments and DenseRows over the plan's work items in row order
// (ops/cuda/sparse_device.cuh, SegmentList) instead of longest first.
void force_sddmm_path(SddmmPath path, int lanes = 0, bool by_row = false);
SddmmPath forced_sddmm_path();
int forced_sddmm_lanes();
bool forced_sddmm_by_row();

// Forces `path` (with `lanes` and `by_row`) for its lifetime, then restores what was forced before.
class ScopedSddmmPath {
 public:
  explicit ScopedSddmmPath(SddmmPath path, int lanes = 0, bool by_row = false)
      : previous_(forced_sddmm_path()), previous_lanes_(forced_sddmm_lanes()), previous_by_row_(forced_sddmm_by_row()) {
    force_sddmm_path(path, lanes, by_row);
  }
  ~ScopedSddmmPath() { force_sddmm_path(previous_, previous_lanes_, previous_by_row_); }
  ScopedSddmmPath(const ScopedSddmmPath&) = delete;
  ScopedSddmmPath& operator=(const ScopedSddmmPath&) = delete;

 private:
  SddmmPath previous_;
  int previous_lanes_;
  bool previous_by_row_;
};

// One SDDMM kernel: a path, its lanes per item (0 where the path has no
// choice) and the order of its work items (Segments and DenseRows only).
// name(): "dense-rows", "segments-8", "edge-groups-16", "dense-rows-rows", …
struct SddmmKernel {
  SddmmPath path = SddmmPath::Segments;
  int lanes = 0;
  bool by_row = false;
  std::string name() const;
};

// Segments, DenseRows, Edges or EdgeGroups (never Auto or Hrpb): the forced
// path if any, else the rule by the plan (which never picks EdgeGroups); each
// only where it exists, even when forced: DenseRows for features per head in
// 1..kDenseRowsMaxFeatures, Edges where the plan has entry rows. A forced
// Hrpb is the CUDA backend's to run where it fits; here it falls to the rule.
SddmmPath choose_sddmm_path(const SparsePlan& plan, int64_t features);

// Every SDDMM kernel there is for sddmm_dot on `csr` at `features` per head
// for operands of `dtype` (float32 or bfloat16; `vectorized`: 16-byte loads,
// see ops/cuda/sddmm_arguments.cuh), the rule's first: the candidates timed
// in the plan's order (Hrpb last, where `hrpb`, the layout of csr's matrix,
// is given and fits), then the segment kernels in row order (which the
// measured choice times after the others). Defined by the CUDA backend
// (CUDA builds only); bench_sparse times each, the tests run each.
std::vector<SddmmKernel> sddmm_candidates(const Csr& csr, int64_t features, bool vectorized,
                                          DType dtype = DType::Float32, const Hrpb* hrpb = nullptr);

// Whether the Hrpb path computes sddmm_dot on `csr`: `hrpb` is the layout of
// the same matrix (its sizes and entry count) on its device, operands with
// 16-byte loads (`vectorized`), and a per-head width that is a multiple of 16
// (float32) or 32 (bfloat16) up to kHrpbSddmmMaxFeatures.
bool hrpb_sddmm_fits(const Hrpb* hrpb, const Csr& csr, int64_t features, bool vectorized,
                     DType dtype = DType::Float32);

// The key of sddmm_dot's measured choice (ops/kernel_choices.hpp):
// "sddmm:h<heads>:f<features>", then ":scalar" without 16-byte loads,
// ":bf16" for bfloat16 operands (which move half the bytes, so may pick
// another kernel; float32 keys are unchanged from before bfloat16 existed)
// and ":hrpb" when the HRPB kernel is among the candidates (a choice made
// without it is not taken for one that had it, nor the other way round).
std::string sddmm_choice_key(int64_t heads, int64_t features, bool vectorized, DType dtype, bool with_hrpb = false);

// Per-head widths that are not a multiple of the 16-byte vector (or
// operands not 16-byte aligned) leave every kernel to scalar loads; the
// padded path copies x and y into [n, heads, width rounded up] with zero
// columns and runs the vector kernels there (ops/cuda/pad_features.cuh).
// The measured choice between the two is stored under this key,
// "sddmm-padded:[bf16:]h<heads>:f<features>", as "direct" or "padded"; a
// forced path always runs direct.
std::string sddmm_padded_key(int64_t heads, int64_t features, DType dtype);
inline constexpr const char* kSddmmPadded = "padded";

// "auto", "segments", "dense-rows", "edges", "edge-groups", "hrpb"; parse_sddmm_path throws InvalidArgument
// on any other name.
std::string_view sddmm_path_name(SddmmPath path);
SddmmPath parse_sddmm_path(std::string_view name);

}  // namespace sgnn::ops
