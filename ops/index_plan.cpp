#include "ops/index_plan.hpp"

#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "ops/gather_scatter_backend.hpp"
#include "ops/kernel_timer.hpp"

namespace sgnn::ops {

namespace {

struct IndexPlan {
  Tensor index;  // the key, held so its address stays unique while cached
  IndexFacts facts;
  std::vector<std::pair<int64_t, SortedIndex>> sorted;  // by num_outputs
};

std::mutex cache_mutex;
std::deque<std::shared_ptr<IndexPlan>> cache;  // most recent first
int64_t plans_built = 0;

bool same_key(const IndexPlan& plan, const Tensor& index) {
  return plan.index.shares_storage_with(index) && plan.index.raw_data() == index.raw_data() &&
         plan.index.numel() == index.numel() && plan.index.dtype() == index.dtype();
}

// The cached plan of a CUDA tensor (cache_mutex held); null when the tensor
// is new and the stream is being captured (its facts cannot be read back).
std::shared_ptr<IndexPlan> find_or_build(const Tensor& index) {
  for (auto it = cache.begin(); it != cache.end(); ++it) {
    if (same_key(**it, index)) {
      std::shared_ptr<IndexPlan> found = *it;
      cache.erase(it);
      cache.push_front(found);
      return found;
    }
  }
  if (stream_capturing(index.device())) return nullptr;
  auto plan = std::make_shared<IndexPlan>();
  plan->index = index;
  plan->facts = SGNN_DISPATCH(index.device(), index_facts, index);
  ++plans_built;
  cache.push_front(plan);
  if (cache.size() > kIndexPlanCacheSize) cache.pop_back();
  return plan;
}

// The facts of a non-empty index: computed (CPU), cached (CUDA), or none
// (CUDA, new, inside a capture).
std::optional<IndexFacts> facts_of(const Tensor& index) {
  if (!index.device().is_cuda()) return index_facts(Cpu{}, index);
  std::lock_guard<std::mutex> lock(cache_mutex);
  const std::shared_ptr<IndexPlan> plan = find_or_build(index);
  if (!plan) return std::nullopt;
  return plan->facts;
}

void check_index_tensor(const Tensor& index, const char* op, const char* argument) {
  check_defined(index, op, argument);
  SGNN_CHECK(index.dtype() == DType::Int32 || index.dtype() == DType::Int64, op, ": argument '", argument,
             "' must be int32 or int64, got ", dtype_name(index.dtype()));
  SGNN_CHECK(index.dim() == 1, op, ": argument '", argument, "' must be a vector [n], got shape ",
             shape_str(index.shape()));
}


}  // namespace

void check_index_values(const Tensor& index, int64_t bound, const char* op, const char* argument,
                        std::string_view bound_text) {
  check_index_tensor(index, op, argument);
  if (index.numel() == 0) return;
  const std::optional<IndexFacts> facts = facts_of(index);
  if (!facts) return;
  SGNN_CHECK(facts->min >= 0 && facts->max < bound, op, ": argument '", argument, "' (shape ",
             shape_str(index.shape()), ") has values in [", facts->min, ", ", facts->max, "], outside [0, ", bound,
             ") given by ", bound_text);
}

void check_offsets_values(const Tensor& offsets, int64_t positions, const char* op, const char* argument,
                          std::string_view positions_text) {
  check_index_tensor(offsets, op, argument);
  SGNN_CHECK(offsets.numel() >= 1, op, ": argument '", argument,
             "' must hold at least one value (S + 1 offsets for S segments), got shape ",
             shape_str(offsets.shape()));
  const std::optional<IndexFacts> facts = facts_of(offsets);
  if (!facts) return;
  SGNN_CHECK(facts->first == 0 && facts->last == positions && facts->descents == 0, op, ": argument '", argument,
             "' (shape ", shape_str(offsets.shape()), ") must be non-decreasing from 0 to ", positions, " (",
             positions_text, "), got first ", facts->first, ", last ", facts->last,
             facts->descents == 0 ? ", non-decreasing" : ", decreasing in places");
}

SortedIndex sorted_index_uncached(const Tensor& index, int64_t num_outputs) {
  SortedIndex sorted{Tensor::empty({num_outputs + 1}, DType::Int32, index.device()),
                     Tensor::empty({index.numel()}, DType::Int32, index.device())};
  SGNN_DISPATCH(index.device(), sort_index, index, num_outputs, sorted.offsets, sorted.order);
  return sorted;
}

SortedIndex sorted_index(const Tensor& index, int64_t num_outputs, const char* op) {
  SGNN_CHECK(index.numel() < (int64_t{1} << 31) && num_outputs < (int64_t{1} << 31), op, ": ", index.numel(),
             " entries into ", num_outputs, " outputs: the sorted path counts in int32 (at most 2^31 - 1 of each)");
  if (!index.device().is_cuda()) return sorted_index_uncached(index, num_outputs);
  std::lock_guard<std::mutex> lock(cache_mutex);
  const std::shared_ptr<IndexPlan> plan = find_or_build(index);
  SGNN_CHECK(plan != nullptr, op, ": an index tensor first used inside a CUDA Graph capture must be sorted, which "
             "waits for the stream; run the op once before capturing");
  for (const auto& [outputs, sorted] : plan->sorted) {
    if (outputs == num_outputs) return sorted;
  }
  SGNN_CHECK(!stream_capturing(index.device()), op, ": the index's sort for ", num_outputs,
             " outputs is new inside a CUDA Graph capture; run the op once before capturing");
  plan->sorted.emplace_back(num_outputs, sorted_index_uncached(index, num_outputs));
  return plan->sorted.back().second;
}

int64_t index_plans_built() {
  std::lock_guard<std::mutex> lock(cache_mutex);
  return plans_built;
}

}  // namespace sgnn::ops
