// Where a graph's measured kernel choices are kept (KernelChoiceTable, one
// per graph, held by its plan: ops/sparse_plan.hpp), and when a call may time
// candidates to fill it (may_tune). What the choices are and how a graph's
// are exported and imported: ops/kernel_choices.hpp.
//
// Timing happens only where it can pay and cannot change results that must
// not change; otherwise each op's rule decides (and nothing is recorded):
//   - on CUDA devices, outside CUDA Graph capture;
//   - on graphs of at least kTuningMinEntries entries: timing an (op, width)
//     costs a few launches plus a host synchronisation each (~0.1 ms on a
//     toy graph), which a few hundred epochs of a kernel that is a microsecond
//     faster do not repay below that size (on Cora's 13K entries the
//     candidates differ by 3-8 µs per call, docs/kernels.md, so they do);
//   - not under ops::set_deterministic(true) unless the graph's choices were
//     imported (the candidates sum in different orders; a stored choice keeps
//     runs reproducible, a fresh timing might not);
//   - not while set_kernel_tuning(false).
#pragma once

#include <compare>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "core/csr.hpp"

namespace sgnn::ops {

inline constexpr int64_t kTuningMinEntries = int64_t{1} << 12;

// Keys look like "spmm:h1:f128" (float32) or "spmm:bf16:h1:f128" (bfloat16
// operands: their own choice), values like "v4s32r1" or "hrpb v4s32r1"
// (ops/spmm_choice.hpp, ops/sddmm_choice.hpp).
using KernelChoiceMap = std::map<std::string, std::string>;

// The key of a choice as its op decodes it (ops/spmm_choice.cpp,
// ops/sddmm_choice.cpp): plain numbers, so that a call finds its choice
// without building a string or parsing one. `kind` is the op's own
// numbering of its op and flags (dtype, 16-byte accesses, ...).
struct DecodedChoiceKey {
  int kind = 0;
  int64_t heads = 0;
  int64_t features = 0;
  auto operator<=>(const DecodedChoiceKey&) const = default;
};

// The choices of one graph (shared by a plan and, for a symmetric pattern,
// its transpose's plan). Thread safe.
class KernelChoiceTable {
 public:
  std::optional<std::string> find(const std::string& key) const;
  void set(const std::string& key, const std::string& variant);
  KernelChoiceMap all() const;
  void import(const KernelChoiceMap& choices);
  bool imported() const;
  // An op's choice for `key` as it decoded it from the text (packed in 64
  // bits by the op), or nullopt where it has not decoded it yet. set() and
  // import() forget every decoded choice: the ops decode the text again.
  std::optional<uint64_t> find_decoded(const DecodedChoiceKey& key) const;
  void set_decoded(const DecodedChoiceKey& key, uint64_t decoded);
  // The decoded choice of `key`, else decode(find(text_key())) (the text
  // key built only then), kept decoded.
  template <typename TextKey, typename Decode>
  uint64_t decoded(const DecodedChoiceKey& key, const TextKey& text_key, const Decode& decode) {
    if (const std::optional<uint64_t> found = find_decoded(key)) return *found;
    const uint64_t bits = decode(find(text_key()));
    set_decoded(key, bits);
    return bits;
  }
  // Records `variant` under `key` and its decoded form under `decoded_key`.
  void set(const std::string& key, const std::string& variant, const DecodedChoiceKey& decoded_key, uint64_t decoded);
  // From now on this table reads and writes `other` (which must not forward back).
  void forward_to(std::shared_ptr<KernelChoiceTable> other);

 private:
  std::shared_ptr<KernelChoiceTable> target() const;
  mutable std::mutex mutex_;
  KernelChoiceMap choices_;
  std::map<DecodedChoiceKey, uint64_t> decoded_;
  bool imported_ = false;
  std::shared_ptr<KernelChoiceTable> forward_;
};

// Process-wide switch (default on); ScopedKernelTuning for a scope.
void set_kernel_tuning(bool enabled);
bool kernel_tuning_enabled();
class ScopedKernelTuning {
 public:
  explicit ScopedKernelTuning(bool enabled) : previous_(kernel_tuning_enabled()) { set_kernel_tuning(enabled); }
  ~ScopedKernelTuning() { set_kernel_tuning(previous_); }
  ScopedKernelTuning(const ScopedKernelTuning&) = delete;
  ScopedKernelTuning& operator=(const ScopedKernelTuning&) = delete;

 private:
  bool previous_;
};

// Whether a call on `csr` with table `table` may time candidates now (the
// rules above; `capturing`: the stream is being captured into a CUDA Graph).
bool may_tune(const Csr& csr, const KernelChoiceTable& table, bool capturing);

}  // namespace sgnn::ops
