#include "ops/kernel_choice_table.hpp"

#include <atomic>

#include "ops/determinism.hpp"

namespace sgnn::ops {

namespace {

std::atomic<bool> tuning_enabled{true};

}  // namespace

std::shared_ptr<KernelChoiceTable> KernelChoiceTable::target() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return forward_;
}

std::optional<std::string> KernelChoiceTable::find(const std::string& key) const {
  if (const auto other = target()) return other->find(key);
  const std::lock_guard<std::mutex> lock(mutex_);
  const auto found = choices_.find(key);
  if (found == choices_.end()) return std::nullopt;
  return found->second;
}

void KernelChoiceTable::set(const std::string& key, const std::string& variant) {
  if (const auto other = target()) return other->set(key, variant);
  const std::lock_guard<std::mutex> lock(mutex_);
  choices_[key] = variant;
  decoded_.clear();
}

KernelChoiceMap KernelChoiceTable::all() const {
  if (const auto other = target()) return other->all();
  const std::lock_guard<std::mutex> lock(mutex_);
  return choices_;
}

void KernelChoiceTable::import(const KernelChoiceMap& choices) {
  if (const auto other = target()) return other->import(choices);
  const std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& [key, variant] : choices) choices_[key] = variant;
  decoded_.clear();
  imported_ = true;
}

std::optional<uint64_t> KernelChoiceTable::find_decoded(const DecodedChoiceKey& key) const {
  if (const auto other = target()) return other->find_decoded(key);
  const std::lock_guard<std::mutex> lock(mutex_);
  const auto found = decoded_.find(key);
  if (found == decoded_.end()) return std::nullopt;
  return found->second;
}

void KernelChoiceTable::set_decoded(const DecodedChoiceKey& key, uint64_t decoded) {
  if (const auto other = target()) return other->set_decoded(key, decoded);
  const std::lock_guard<std::mutex> lock(mutex_);
  decoded_[key] = decoded;
}

void KernelChoiceTable::set(const std::string& key, const std::string& variant, const DecodedChoiceKey& decoded_key,
                            uint64_t decoded) {
  set(key, variant);
  set_decoded(decoded_key, decoded);
}

bool KernelChoiceTable::imported() const {
  if (const auto other = target()) return other->imported();
  const std::lock_guard<std::mutex> lock(mutex_);
  return imported_;
}

void KernelChoiceTable::forward_to(std::shared_ptr<KernelChoiceTable> other) {
  if (other.get() == this) return;
  const std::lock_guard<std::mutex> lock(mutex_);
  forward_ = std::move(other);
}

void set_kernel_tuning(bool enabled) { tuning_enabled.store(enabled, std::memory_order_relaxed); }

bool kernel_tuning_enabled() { return tuning_enabled.load(std::memory_order_relaxed); }

bool may_tune(const Csr& csr, const KernelChoiceTable& table, bool capturing) {
  if (!csr.device().is_cuda() || capturing || !kernel_tuning_enabled()) return false;
  if (csr.nnz < kTuningMinEntries) return false;
  return !deterministic() || table.imported();
}

}  // namespace sgnn::ops
