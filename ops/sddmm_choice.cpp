#include "ops/sddmm_choice.hpp"

#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ops/choice_keys.hpp"
#include "ops/kernel_timer.hpp"
#include "ops/sddmm_backend.hpp"
#include "ops/sddmm_path.hpp"
#include "ops/sparse_plan.hpp"
#include "ops/vector_access.hpp"

namespace sgnn::ops {

namespace {

constexpr std::string_view kPadded = "padded";

// The graph a choice is made on.
struct Context {
  const Csr& csr;
  const SparsePlan& plan;
  Device device;
  const Hrpb* hrpb;
};

// A call's shape: what its choice is keyed by.
struct Shape {
  int64_t heads;
  int64_t features;
  DType dtype;
  bool vector_ready;  // 16-byte loads: a width on the vector, x and y aligned
  bool hrpb_fits;     // the Hrpb kernel is a candidate
};

Shape shape_of(const Context& context, int64_t heads, int64_t features, DType dtype, bool aligned) {
  const bool vector_ready = aligned && features % vector_elements(dtype) == 0;
  return {heads, features, dtype, vector_ready,
          hrpb_sddmm_fits(context.hrpb, context.csr, features, vector_ready, dtype)};
}

// The shape the padded path runs: the width rounded up to the vector, fresh (aligned) copies.
Shape padded_shape(const Context& context, const Shape& shape) {
  return shape_of(context, shape.heads, padded_width(shape.features, vector_elements(shape.dtype)), shape.dtype,
                  true);
}

int vector_of(const Shape& shape) { return shape.vector_ready ? vector_elements(shape.dtype) : 1; }

std::string key_of(const Shape& shape) {
  return sddmm_choice_key(shape.heads, shape.features, shape.vector_ready, shape.dtype, shape.hrpb_fits);
}

DecodedChoiceKey decoded_key_of(const Shape& shape) {
  constexpr int kSddmm = 2 << 8;
  return {kSddmm | (shape.dtype == DType::BFloat16 ? 1 : 0) | (shape.vector_ready ? 2 : 0) | (shape.hrpb_fits ? 4 : 0),
          shape.heads, shape.features};
}

// What the graph's choices hold for one shape.
struct Record {
  bool has_launch = false;
  SddmmLaunch launch;
};

// A Record in 64 bits (KernelChoiceTable's decoded choices).
uint64_t packed(const Record& record) {
  const SddmmKernel& kernel = record.launch.kernel;
  return uint64_t{record.has_launch} | uint64_t{record.launch.padded} << 1 | uint64_t{kernel.by_row} << 2 |
         uint64_t(kernel.path) << 8 | uint64_t(kernel.lanes) << 16;
}

Record unpacked(uint64_t bits) {
  Record record;
  record.has_launch = (bits & 1) != 0;
  record.launch.padded = (bits & 2) != 0;
  record.launch.kernel.by_row = (bits & 4) != 0;
  record.launch.kernel.path = static_cast<SddmmPath>((bits >> 8) & 0xff);
  record.launch.kernel.lanes = static_cast<int>((bits >> 16) & 0xff);
  return record;
}

std::string text_of(const Record& record) {
  return (record.launch.padded ? std::string(kPadded) + " " : std::string()) + record.launch.kernel.name();
}

// The launch a recorded value names where it exists for this shape
// (unknown names, e.g. of another library version, are timed anew).
Record parsed(const Context& context, std::string_view text, const Shape& shape) {
  Record record;
  std::optional<SddmmKernel> kernel;
  if (text.starts_with(kPadded) && text.size() > kPadded.size() && text[kPadded.size()] == ' ') {
    if (shape.vector_ready) return record;
    const Shape padded = padded_shape(context, shape);
    kernel = parse_sddmm_kernel(text.substr(kPadded.size() + 1), context.plan, padded.features, padded.hrpb_fits);
    record.launch.padded = true;
  } else {
    kernel = parse_sddmm_kernel(text, context.plan, shape.features, shape.hrpb_fits);
  }
  record.has_launch = kernel.has_value();
  if (kernel) record.launch.kernel = *kernel;
  else record.launch.padded = false;
  return record;
}

// The shape's record: decoded before, else read from its text (and kept decoded).
Record recorded(const Context& context, const Shape& shape) {
  return unpacked(context.plan.choices->decoded(
      decoded_key_of(shape), [&] { return key_of(shape); },
      [&](const std::optional<std::string>& text) { return packed(text ? parsed(context, *text, shape) : Record{}); }));
}

void store(const Context& context, const Shape& shape, const Record& record) {
  context.plan.choices->set(key_of(shape), text_of(record), decoded_key_of(shape), packed(record));
}

// may_tune's rules; the entry count first, so that small graphs ask the
// stream nothing on every call.
bool tuning_pays(const Context& context) {
  return context.csr.nnz >= kTuningMinEntries &&
         may_tune(context.csr, *context.plan.choices, stream_capturing(context.device));
}

// The forced path (never padded), where it exists: Hrpb where it fits, else
// choose_sddmm_path's, with the forced lanes and row order where it has them.
SddmmKernel forced_kernel(const Context& context, const Shape& shape) {
  if (forced_sddmm_path() == SddmmPath::Hrpb && shape.hrpb_fits) return {SddmmPath::Hrpb, 0};
  SddmmKernel kernel = rule_sddmm_kernel(context.plan, shape.features, vector_of(shape));
  if (kernel.lanes > 0 && forced_sddmm_lanes() > 0) kernel.lanes = forced_sddmm_lanes();
  kernel.by_row = forced_sddmm_by_row() && walks_segments(kernel.path);
  return kernel;
}

// Runs the call being decided with a launch (into its output).
using RunSddmm = std::function<void(const SddmmLaunch&)>;

// Every candidate kernel of a shape, each against the fastest so far, then
// those with a row order again in row order; nullopt where there is one.
std::optional<SddmmKernel> time_kernels(const Context& context, const Shape& shape, const RunSddmm& run) {
  const std::vector<SddmmKernel> all =
      candidate_sddmm_kernels(context.plan, shape.features, vector_of(shape), shape.hrpb_fits);
  if (all.size() == 1) return std::nullopt;
  const std::string key = key_of(shape);
  const auto time = [&](const SddmmKernel& kernel, double best_ms, bool warm) {
    return candidate_ms(context.device, [&] { run({kernel, false}); }, key + " " + kernel.name(), best_ms, warm);
  };
  SddmmKernel best = all.front();
  double best_ms = std::numeric_limits<double>::infinity();
  std::vector<SddmmKernel> walking;  // the kernels that have a row order
  for (const SddmmKernel& kernel : all) {
    const double ms = time(kernel, best_ms, false);
    if (ms < best_ms) {
      best_ms = ms;
      best = kernel;
    }
    if (walks_segments(kernel.path)) walking.push_back(kernel);
  }
  // Where the numbering has locality the row order keeps the y rows that run
  // together in L2: each kernel that has one is timed again that way (it may
  // then beat a kernel without one: DenseRows in row order against
  // EdgeGroups on community graphs). Not only the faster of the two: in
  // longest-first order they can tie while one gains far more from the row
  // order (bfloat16 at width 128 on SBM with contiguous blocks: Segments
  // 0.857 and DenseRows 0.856 ms, in row order 0.705 and 0.595 ms;
  // docs/kernels.md). Their kernels have run: one launch times each.
  for (SddmmKernel by_row : walking) {
    by_row.by_row = true;
    const double ms = time(by_row, best_ms, true);
    if (ms < best_ms) {
      best_ms = ms;
      best = by_row;
    }
  }
  return best;
}

SddmmLaunch sddmm_launch(const Context& context, const Shape& shape, Record& record, const RunSddmm& run);

// Per-head widths that are not a multiple of the 16-byte vector (or
// operands not 16-byte aligned) leave every kernel to scalar loads; the
// padded path runs the vector kernels on zero-padded copies (at 41 classes
// on the Reddit-scale graph the padded BF16 SDDMM took 2.7 against 6.4 ms).
// Each path makes its own kernel choice on its first run.
SddmmLaunch time_padded(const Context& context, const Shape& shape, const RunSddmm& run) {
  std::optional<SddmmKernel> direct;
  std::optional<SddmmLaunch> padded;
  const auto run_direct = [&] {
    if (!direct) {
      direct = time_kernels(context, shape, run)
                   .value_or(rule_sddmm_kernel(context.plan, shape.features, vector_of(shape)));
    }
    run({*direct, false});
  };
  const auto run_padded = [&] {
    if (!padded) {
      const Shape wide = padded_shape(context, shape);
      Record wide_record = recorded(context, wide);
      const RunSddmm run_wide = [&](const SddmmLaunch& launch) { run({launch.kernel, true}); };
      padded = SddmmLaunch{sddmm_launch(context, wide, wide_record, run_wide).kernel, true};
    }
    run(*padded);
  };
  if (padded_path_faster(context.device, key_of(shape), run_direct, run_padded)) return *padded;
  return {*direct, false};
}

// The launch of a shape: forced, recorded, timed (then recorded in `record`
// and the graph's choices), else the rule.
SddmmLaunch sddmm_launch(const Context& context, const Shape& shape, Record& record, const RunSddmm& run) {
  if (forced_sddmm_path() != SddmmPath::Auto) return {forced_kernel(context, shape), false};
  if (record.has_launch) return record.launch;
  const SddmmLaunch rule{rule_sddmm_kernel(context.plan, shape.features, vector_of(shape)), false};
  if (!tuning_pays(context)) return rule;
  if (shape.vector_ready) {
    const std::optional<SddmmKernel> fastest = time_kernels(context, shape, run);
    if (!fastest) return rule;
    record.launch = {*fastest, false};
  } else {
    record.launch = time_padded(context, shape, run);
  }
  record.has_launch = true;
  store(context, shape, record);
  return record.launch;
}

}  // namespace

namespace {

// One sddmm_dot call's operands, run with a launch by the backend.
struct DotCall {
  const Csr& csr;
  int64_t heads;
  int64_t features;
  const Tensor& x;
  const Tensor& y;
  Tensor& out;
  const Hrpb* hrpb;
  void operator()(const SddmmLaunch& launch) const {
    SGNN_DISPATCH(x.device(), sddmm_dot_forward, csr, heads, features, x, y, out, hrpb, launch);
  }
};

}  // namespace

void sddmm_dot_into(const Csr& csr, int64_t heads, int64_t features, const Tensor& x, const Tensor& y, Tensor& out,
                    const Hrpb* hrpb) {
  const DotCall call{csr, heads, features, x, y, out, hrpb};
  if (!x.device().is_cuda() || out.numel() == 0) return call({});
  const std::shared_ptr<const SparsePlan> plan = sparse_plan(csr);
  const Context context{csr, *plan, x.device(), hrpb};
  const Shape shape = shape_of(context, heads, features, x.dtype(),
                               vector_aligned(x.raw_data()) && vector_aligned(y.raw_data()));
  Record record = recorded(context, shape);
  // By reference: held inside the std::function without an allocation.
  call(sddmm_launch(context, shape, record, std::cref(call)));
}

bool records_hrpb_sddmm(const KernelChoiceMap& choices) {
  for (const auto& [key, variant] : choices) {
    if (key.starts_with("sddmm:") && (variant == "hrpb" || variant == "padded hrpb")) return true;
  }
  return false;
}

}  // namespace sgnn::ops
