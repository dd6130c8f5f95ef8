#include "ops/spmm_choice.hpp"

#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/autograd.hpp"
#include "ops/choice_keys.hpp"
#include "ops/kernel_choices.hpp"
#include "ops/kernel_timer.hpp"
#include "ops/sparse_plan.hpp"
#include "ops/spmm_backend.hpp"
#include "ops/spmm_format.hpp"
#include "ops/vector_access.hpp"

namespace sgnn::ops {

namespace {

constexpr const char* kPadded = "padded";
constexpr const char* kDirect = "direct";
constexpr double kNotTimed = std::numeric_limits<double>::infinity();

// A call's shape: what its choice is keyed by.
struct Shape {
  int64_t heads;
  int64_t features;
  DType dtype;
  bool vector_ready;  // 16-byte accesses: a width on the vector, B and C aligned
};

Shape shape_of(int64_t heads, int64_t features, DType dtype, bool aligned) {
  return {heads, features, dtype, aligned && features % vector_elements(dtype) == 0};
}

// The shape the padded path runs: the width rounded up to the vector, fresh (aligned) copies.
Shape padded_shape(const Shape& shape) {
  return {shape.heads, padded_width(shape.features, vector_elements(shape.dtype)), shape.dtype, true};
}

std::string key_of(const Shape& shape) {
  return spmm_choice_key(shape.heads, shape.features, shape.dtype, shape.vector_ready);
}

DecodedChoiceKey decoded_key_of(const Shape& shape) {
  constexpr int kSpmm = 1 << 8;
  return {kSpmm | (shape.dtype == DType::BFloat16 ? 1 : 0) | (shape.vector_ready ? 2 : 0), shape.heads,
          shape.features};
}

// The graph a choice is made on.
struct Context {
  const Csr& csr;
  const SparsePlan& plan;
  Device device;
};

// What the graph's choices hold for one shape: the parts decided so far.
struct Record {
  bool has_format = false;
  bool hrpb = false;    // the format: HRPB, else CSR
  bool copies = false;  // HRPB with B's rows staged by copies (kHrpbByCopies)
  bool has_launch = false;
  CsrSpmmLaunch launch;
};

// A Record in 64 bits (KernelChoiceTable's decoded choices): flags, then the tile's numbers.
uint64_t packed(const Record& record) {
  const SpmmTile& tile = record.launch.tile;
  const bool flags[] = {record.has_format, record.hrpb,   record.copies,      record.has_launch, record.launch.padded,
                        tile.by_slice,     tile.by_row,   tile.across_heads,  tile.light,
                        tile.item_grid};
  uint64_t bits = 0;
  for (std::size_t i = 0; i < std::size(flags); ++i) bits |= uint64_t{flags[i]} << i;
  return bits | uint64_t(tile.vec) << 16 | uint64_t(tile.sub) << 24 | uint64_t(tile.repeat) << 32 |
         uint64_t(tile.light_registers) << 40;
}

Record unpacked(uint64_t bits) {
  const auto flag = [&](int i) { return ((bits >> i) & 1) != 0; };
  Record record{flag(0), flag(1), flag(2), flag(3), {}};
  SpmmTile& tile = record.launch.tile;
  record.launch.padded = flag(4);
  tile.by_slice = flag(5);
  tile.by_row = flag(6);
  tile.across_heads = flag(7);
  tile.light = flag(8);
  tile.item_grid = flag(9);
  tile.vec = static_cast<int>((bits >> 16) & 0xff);
  tile.sub = static_cast<int>((bits >> 24) & 0xff);
  tile.repeat = static_cast<int>((bits >> 32) & 0xff);
  tile.light_registers = static_cast<int>((bits >> 40) & 0xff);
  return record;
}

std::string text_of(const Record& record, const Shape& shape) {
  std::string text;
  if (record.has_format) text = record.hrpb ? (record.copies ? kHrpbByCopies : "hrpb") : "csr";
  if (!record.has_launch) return text;
  if (!text.empty()) text += " ";
  if (record.launch.padded) return text + kPadded + " " + spmm_tile_name(record.launch.tile);
  return text + (shape.vector_ready ? spmm_tile_name(record.launch.tile) : kDirect);
}

// The parts a recorded value names that exist for this shape (unknown
// names, e.g. of another library version, are left undecided: timed anew).
Record parsed(std::string_view text, const Shape& shape) {
  std::vector<std::string_view> words;
  while (!text.empty()) {
    const std::size_t end = std::min(text.find(' '), text.size());
    if (end > 0) words.push_back(text.substr(0, end));
    text.remove_prefix(std::min(end + 1, text.size()));
  }
  Record record;
  std::size_t next = 0;
  if (!words.empty() && (words[0] == "csr" || words[0] == "hrpb" || words[0] == kHrpbByCopies)) {
    record.has_format = true;
    record.hrpb = words[0] != "csr";
    record.copies = words[0] == kHrpbByCopies;
    next = 1;
  }
  const std::size_t left = words.size() - next;
  std::optional<SpmmTile> tile;
  if (left == 1 && words[next] == kDirect && !shape.vector_ready) {
    tile = rule_spmm_tile(shape.features, false, shape.dtype, false);
  } else if (left == 1) {
    tile = parse_spmm_tile(words[next], shape.heads, shape.features, shape.vector_ready, shape.dtype);
  } else if (left == 2 && words[next] == kPadded && !shape.vector_ready) {
    const Shape padded = padded_shape(shape);
    tile = parse_spmm_tile(words[next + 1], padded.heads, padded.features, true, padded.dtype);
    record.launch.padded = true;
  }
  record.has_launch = tile.has_value();
  if (tile) record.launch.tile = *tile;
  else record.launch.padded = false;
  return record;
}

// The shape's record: decoded before, else read from its text (and kept decoded).
Record recorded(const Context& context, const Shape& shape) {
  return unpacked(context.plan.choices->decoded(
      decoded_key_of(shape), [&] { return key_of(shape); },
      [&](const std::optional<std::string>& text) { return packed(text ? parsed(*text, shape) : Record{}); }));
}

void store(const Context& context, const Shape& shape, const Record& record) {
  context.plan.choices->set(key_of(shape), text_of(record, shape), decoded_key_of(shape), packed(record));
}

// may_tune's rules; the entry count first, so that small graphs ask the
// stream nothing on every call.
bool tuning_pays(const Context& context) {
  return context.csr.nnz >= kTuningMinEntries &&
         may_tune(context.csr, *context.plan.choices, stream_capturing(context.device));
}

bool light_runs(const Context& context, const Shape& shape) {
  return light_spmm_tiles_fit(context.csr, context.plan, shape.heads, shape.features);
}

CsrSpmmLaunch rule_launch(const Context& context, const Shape& shape) {
  return {rule_spmm_tile(shape.features, shape.vector_ready, shape.dtype, light_runs(context, shape)), false};
}

// Runs the call being decided with a CSR launch (into its output, or a scratch one).
using RunCsr = std::function<void(const CsrSpmmLaunch&)>;

struct Timed {
  CsrSpmmLaunch launch;
  double milliseconds;
};

CsrSpmmLaunch csr_launch(const Context& context, const Shape& shape, Record& record, const RunCsr& run,
                         double* timed_ms = nullptr);

// The padded path of a shape without 16-byte accesses: the padded width's
// own launch (forced, recorded, timed or the rule), run on the padded copies.
CsrSpmmLaunch padded_launch(const Context& context, const Shape& shape, const RunCsr& run) {
  const Shape padded = padded_shape(shape);
  Record padded_record = recorded(context, padded);
  const RunCsr run_padded = [&](const CsrSpmmLaunch& launch) { run({launch.tile, true}); };
  return {csr_launch(context, padded, padded_record, run_padded).tile, true};
}

// Every candidate tile of a shape with 16-byte accesses, each against the
// runner-up so far; nullopt where there is one.
std::optional<Timed> time_tiles(const Context& context, const Shape& shape, const RunCsr& run) {
  const std::vector<SpmmTile> tiles =
      candidate_spmm_tiles(shape.heads, shape.features, true, shape.dtype, light_runs(context, shape));
  if (tiles.size() == 1) return std::nullopt;
  const std::string key = key_of(shape);
  const auto time = [&](const SpmmTile& tile, double rival_ms) {
    return candidate_ms(context.device, [&] { run({tile, false}); }, key + " " + spmm_tile_name(tile), rival_ms);
  };
  SpmmTile best = tiles.front(), runner_up = tiles.front();
  double best_ms = kNotTimed, runner_up_ms = kNotTimed;
  for (const SpmmTile& tile : tiles) {
    const double ms = time(tile, runner_up_ms);
    if (ms < best_ms) {
      runner_up = best;
      runner_up_ms = best_ms;
      best_ms = ms;
      best = tile;
    } else if (ms < runner_up_ms) {
      runner_up_ms = ms;
      runner_up = tile;
    }
  }
  // The order of the work items matters where the graph's numbering has
  // locality, and by how much depends on the tile: the two fastest are
  // timed again in row order (two candidates more, not twice as many). On
  // SBM after RCM at width 128 the light tile won in the plan's order and
  // the heavy one in row order, by 4% (docs/kernels.md).
  for (SpmmTile by_row : {best, runner_up}) {
    by_row.by_row = true;
    const double ms = time(by_row, best_ms);
    if (ms < best_ms) {
      best_ms = ms;
      best = by_row;
    }
  }
  return Timed{{best, false}, best_ms};
}

// Widths that are not a multiple of the 16-byte vector (GCN's and GAT's
// class counts: 41 on Reddit) or operands not 16-byte aligned leave the CSR
// kernel to scalar loads: one load instruction per element, where bfloat16
// then saves bytes but no instructions. The padded path (the same sums in
// the same order) pays where its two small copies cost less than the scalar
// loads: timed whole against the direct path.
Timed time_padded(const Context& context, const Shape& shape, const RunCsr& run) {
  const CsrSpmmLaunch direct = rule_launch(context, shape);
  std::optional<CsrSpmmLaunch> padded;
  // The padded path's first run makes the padded width's choice (timed there where it pays).
  const auto run_padded = [&] {
    if (!padded) padded = padded_launch(context, shape, run);
    run(*padded);
  };
  double fastest_ms = kNotTimed;
  const bool padded_faster = padded_path_faster(context.device, key_of(shape), [&] { run(direct); }, run_padded,
                                                &fastest_ms);
  return {padded_faster ? *padded : direct, fastest_ms};
}

// The CSR launch of a shape: forced, recorded, timed (then recorded in
// `record` and the graph's choices, its time in `timed_ms`), else the rule.
CsrSpmmLaunch csr_launch(const Context& context, const Shape& shape, Record& record, const RunCsr& run,
                         double* timed_ms) {
  if (spmm_tile_forced()) {
    const std::string forced = forced_spmm_tile();
    if (forced == kPadded && !shape.vector_ready) return padded_launch(context, shape, run);
    for (const SpmmTile& tile : all_spmm_tiles(shape.heads, shape.features, shape.vector_ready, shape.dtype)) {
      if (spmm_tile_name(tile) == forced) return {tile, false};
    }
    if (!shape.vector_ready) return rule_launch(context, shape);  // a forced name never asks for padding
  }
  if (record.has_launch) return record.launch;
  if (!tuning_pays(context)) return rule_launch(context, shape);
  const std::optional<Timed> timed =
      shape.vector_ready ? time_tiles(context, shape, run) : time_padded(context, shape, run);
  if (!timed) {
    // One tile: nothing measured, nothing stored; kept decoded, so that later calls list no candidates.
    record.has_launch = true;
    record.launch = rule_launch(context, shape);
    context.plan.choices->set_decoded(decoded_key_of(shape), packed(record));
    return record.launch;
  }
  record.has_launch = true;
  record.launch = timed->launch;
  store(context, shape, record);
  if (timed_ms != nullptr) *timed_ms = timed->milliseconds;
  return timed->launch;
}

// Times CSR (its launch: `csr_ms` where it was timed just now), then HRPB
// against it, then HRPB staging B's rows by copies where that is a choice,
// and records the fastest format in `record`.
void time_formats(const Context& context, const Shape& shape, const Adjacency& adjacency, const CsrSpmmCall& call,
                  const CsrSpmmLaunch& launch, const RunCsr& run, double csr_ms, Record& record) {
  const autograd::NoGradGuard no_grad;
  const std::string key = key_of(shape);
  // CSR first: HRPB's first launch then shows whether it can win, and a clear loser is not launched again.
  if (csr_ms == kNotTimed) csr_ms = candidate_ms(context.device, [&] { run(launch); }, key + " csr");
  const double hrpb_ms =
      candidate_ms(context.device, [&] { (void)spmm_hrpb(*adjacency.hrpb, call.b); }, key + " hrpb", csr_ms);
  record.has_format = true;
  record.hrpb = hrpb_ms < csr_ms;
  record.copies = false;
  if (hrpb_row_staging_matters(shape.dtype, shape.features)) {
    const double best_ms = std::min(csr_ms, hrpb_ms);
    const double copies_ms = candidate_ms(
        context.device, [&] { (void)spmm_hrpb(*adjacency.hrpb, call.b, HrpbRowStaging::Copies); },
        key + " " + kHrpbByCopies, best_ms);
    if (copies_ms < best_ms) record.hrpb = record.copies = true;
  }
  store(context, shape, record);
}

// The format part: adjacency.spmm_format, the record, else the rule.
void choose_format(const Adjacency& adjacency, const Record& record, int64_t width, DType dtype, SpmmChoice& choice) {
  const auto hrpb = [&](bool copies) {
    choice.format = SpmmFormat::Hrpb;
    choice.staging = copies && hrpb_row_staging_matters(dtype, width) ? HrpbRowStaging::Copies
                                                                       : HrpbRowStaging::BulkCopies;
  };
  switch (adjacency.spmm_format) {
    case SpmmFormat::Csr:
      return;
    case SpmmFormat::Hrpb:
      return hrpb(record.has_format && record.copies);
    case SpmmFormat::Auto:
      if (adjacency.hrpb == nullptr) return;
      if (record.has_format) {
        if (record.hrpb) hrpb(record.copies);
        return;
      }
      if (rule_spmm_format(adjacency, width, dtype) == SpmmFormat::Hrpb) hrpb(false);
      return;
  }
}

void check_hrpb_layout(const Adjacency& adjacency) {
  SGNN_CHECK(adjacency.spmm_format != SpmmFormat::Hrpb || adjacency.hrpb != nullptr,
             "spmm: the adjacency asks for the HRPB kernel but has no HRPB layout (build it with "
             "graph_io::attach_hrpb, or use SpmmFormat::Csr)");
}

bool has_format_question(const Adjacency& adjacency) {
  return adjacency.spmm_format == SpmmFormat::Hrpb || (adjacency.spmm_format == SpmmFormat::Auto && adjacency.hrpb);
}

}  // namespace

SpmmChoice spmm_choice(const Adjacency& adjacency, const CsrSpmmCall& call) {
  check_hrpb_layout(adjacency);
  SpmmChoice choice;
  const Device device = call.b.device();
  // On the CPU only the format is a choice (the CSR backend has one kernel).
  if (!device.is_cuda() && !has_format_question(adjacency)) return choice;
  const std::shared_ptr<const SparsePlan> plan = sparse_plan(adjacency.csr);
  const Context context{adjacency.csr, *plan, device};
  // C is allocated after the choice: aligned as every fresh tensor is.
  const Shape shape = shape_of(call.heads, call.features, call.b.dtype(), vector_aligned(call.b.raw_data()));
  Record record = recorded(context, shape);
  // The CSR launch where CSR may run: not under a forced or recorded HRPB format.
  const bool hrpb_settled =
      adjacency.spmm_format == SpmmFormat::Hrpb ||
      (adjacency.spmm_format == SpmmFormat::Auto && adjacency.hrpb != nullptr && record.has_format && record.hrpb);
  if (device.is_cuda() && !hrpb_settled) {
    Tensor scratch;
    // Two references: held inside the std::function, no allocation on calls that time nothing.
    const RunCsr run = [&scratch, &call](const CsrSpmmLaunch& launch) {
      if (!scratch.defined()) scratch = Tensor::empty({call.csr.num_rows, call.features}, call.b.dtype(), call.b.device());
      launch_csr_spmm(call, scratch, launch);
    };
    double csr_ms = kNotTimed;
    choice.csr = csr_launch(context, shape, record, run, &csr_ms);
    const bool format_open = adjacency.spmm_format == SpmmFormat::Auto && adjacency.hrpb != nullptr && !record.has_format;
    if (format_open && adjacency.num_rows() > 0 && call.features > 0 && tuning_pays(context)) {
      time_formats(context, shape, adjacency, call, choice.csr, run, csr_ms, record);
    }
  }
  choose_format(adjacency, record, call.features, call.b.dtype(), choice);
  return choice;
}

SpmmChoice spmm_format_choice(const Adjacency& adjacency, int64_t width, DType dtype) {
  check_hrpb_layout(adjacency);
  SpmmChoice choice;
  if (!has_format_question(adjacency)) return choice;
  const std::shared_ptr<const SparsePlan> plan = sparse_plan(adjacency.csr);
  const Context context{adjacency.csr, *plan, adjacency.device()};
  choose_format(adjacency, recorded(context, shape_of(1, width, dtype, true)), width, dtype, choice);
  return choice;
}

void launch_csr_spmm(const CsrSpmmCall& call, Tensor& c, const CsrSpmmLaunch& launch) {
  SGNN_DISPATCH(c.device(), spmm_forward, call.csr, call.values, call.heads, call.features, call.b, c,
                call.symmetric_scale, call.value_map, call.average, launch);
}

void csr_spmm_into(const Csr& csr, const Tensor& values, int64_t heads, int64_t features, const Tensor& b, Tensor& c,
                   const double* symmetric_scale, const Tensor& value_map, bool average) {
  const CsrSpmmCall call{csr, values, heads, features, b, symmetric_scale, value_map, average};
  if (!c.device().is_cuda() || c.numel() == 0) return launch_csr_spmm(call, c, {});
  const std::shared_ptr<const SparsePlan> plan = sparse_plan(csr);
  const Context context{csr, *plan, c.device()};
  const Shape shape = shape_of(heads, features, b.dtype(), vector_aligned(b.raw_data()) && vector_aligned(c.raw_data()));
  Record record = recorded(context, shape);
  const CsrSpmmLaunch launch = csr_launch(context, shape, record, [&call, &c](const CsrSpmmLaunch& candidate) {
    launch_csr_spmm(call, c, candidate);
  });
  launch_csr_spmm(call, c, launch);
}

bool records_spmm_format(const KernelChoiceMap& choices) {
  for (const auto& [key, variant] : choices) {
    if (key.starts_with("spmm:") && (variant.starts_with("csr") || variant.starts_with("hrpb"))) return true;
  }
  return false;
}

bool records_hrpb_spmm(const KernelChoiceMap& choices) {
  for (const auto& [key, variant] : choices) {
    if (key.starts_with("spmm:") && variant.starts_with("hrpb")) return true;
  }
  return false;
}

}  // namespace sgnn::ops
