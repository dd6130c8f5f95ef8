// Which CUDA kernel computes sddmm_dot on a graph (ops/cuda/sddmm*.cu):
//   Segments   one subwarp per work segment of the plan (Sputnik's SDDMM),
//              several segments per warp: best for short rows; from 4 lanes
//              x[row] in registers and a step of entries reduced together
//              (RoDe's residue kernel's shape); one, two and four slices of
//              a head a lane are candidates for timing
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
// (heads, width) times every path (and group size) and keeps the fastest
// (ops/sddmm_choice.hpp); elsewhere choose_sddmm_path's rule decides from
// the graph's cached plan (entry rows or not, mean entries per work
// segment) and the width. force_sddmm_path overrides both process-wide
// (tests cover every kernel on one graph, bench_sparse compares them).
// Thread safe; read per call. All kernels write the same function.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/hrpb.hpp"
#include "ops/choice_keys.hpp"
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
  bool operator==(const SddmmKernel&) const = default;
};

// What the CUDA backend of sddmm_dot launches (ops/sddmm_backend.hpp):
// `kernel` on x and y as they are (direct), or, `padded`, on copies whose
// per-head width is rounded up to the 16-byte vector with zero columns (the
// kernel is then one of the padded width). Decided by ops/sddmm_choice.hpp.
struct SddmmLaunch {
  SddmmKernel kernel;
  bool padded = false;
};

// Segments, DenseRows, Edges or EdgeGroups (never Auto or Hrpb): the forced
// path if any, else the rule by the plan (which never picks EdgeGroups); each
// only where it exists, even when forced: DenseRows for features per head in
// 1..kDenseRowsMaxFeatures, Edges where the plan has entry rows. A forced
// Hrpb is the CUDA backend's to run where it fits; here it falls to the rule.
SddmmPath choose_sddmm_path(const SparsePlan& plan, int64_t features);

// The kernels for sddmm_dot on `plan`'s graph at `features` per head,
// `vector` elements per load (1, or vector_elements of the operands'
// dtype: 16-byte loads), the Hrpb kernel among them where `hrpb_fits`:
//   rule_sddmm_kernel        what runs where nothing is timed (choose_sddmm_path's path)
//   candidate_sddmm_kernels  what the choice times, in the plan's order: the
//                            rule's first, Hrpb last (the kernels that walk
//                            the plan's segments are timed in row order after them)
SddmmKernel rule_sddmm_kernel(const SparsePlan& plan, int64_t features, int vector);
std::vector<SddmmKernel> candidate_sddmm_kernels(const SparsePlan& plan, int64_t features, int vector,
                                                 bool hrpb_fits);
// Whether `kernel` exists there (the backend runs no other), and the one a
// name (SddmmKernel::name) stands for where it exists.
bool sddmm_kernel_exists(const SddmmKernel& kernel, const SparsePlan& plan, int64_t features, bool hrpb_fits);
std::optional<SddmmKernel> parse_sddmm_kernel(std::string_view name, const SparsePlan& plan, int64_t features,
                                              bool hrpb_fits);
// Whether a path walks the plan's work items (and so has a row order): Segments and DenseRows.
bool walks_segments(SddmmPath path);

// Every SDDMM kernel there is for sddmm_dot on `csr` at `features` per head
// for operands of `dtype` (float32 or bfloat16; `vectorized`: 16-byte loads,
// see ops/cuda/sddmm_arguments.cuh), the rule's first: the candidates timed
// in the plan's order (Hrpb last, where `hrpb`, the layout of csr's matrix,
// is given and fits), then the segment kernels in row order (which the
// measured choice times after the others). bench_sparse times each, the
// tests run each.
std::vector<SddmmKernel> sddmm_candidates(const Csr& csr, int64_t features, bool vectorized,
                                          DType dtype = DType::Float32, const Hrpb* hrpb = nullptr);

// Whether the Hrpb path computes sddmm_dot on `csr`: `hrpb` is the layout of
// the same matrix (its sizes and entry count) on its device, operands with
// 16-byte loads (`vectorized`), and a per-head width that is a multiple of 16
// (float32) or 32 (bfloat16) up to kHrpbSddmmMaxFeatures.
bool hrpb_sddmm_fits(const Hrpb* hrpb, const Csr& csr, int64_t features, bool vectorized,
                     DType dtype = DType::Float32);

// "auto", "segments", "dense-rows", "edges", "edge-groups", "hrpb"; parse_sddmm_path throws InvalidArgument
// on any other name.
std::string_view sddmm_path_name(SddmmPath path);
SddmmPath parse_sddmm_path(std::string_view name);

}  // namespace sgnn::ops
