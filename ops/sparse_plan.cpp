#include "ops/sparse_plan.hpp"

#include <algorithm>
#include <deque>
#include <mutex>
#include <numeric>

#include "ops/sparse_plan_reservation.hpp"
#include "ops/sparse_segments.hpp"

namespace sgnn::ops {

namespace {

std::mutex cache_mutex;
std::deque<std::shared_ptr<const SparsePlan>> cache;  // most recent first
int64_t plans_built = 0;
int64_t reserved_plans = 0;  // SparsePlanReservation's, under cache_mutex

// Drops the least recently used plans beyond the capacity (cache_mutex held).
void trim_cache() {
  const auto capacity = static_cast<std::size_t>(static_cast<int64_t>(kPlanCacheSize) + reserved_plans);
  while (cache.size() > capacity) cache.pop_back();
}

bool same_key(const SparsePlan& plan, const Csr& csr) {
  return plan.indptr.shares_storage_with(csr.indptr) && plan.indptr.raw_data() == csr.indptr.raw_data() &&
         plan.num_rows == csr.num_rows && plan.nnz == csr.nnz;
}

std::shared_ptr<const SparsePlan> build_plan(const Csr& csr) {
  auto plan = std::make_shared<SparsePlan>();
  plan->indptr = csr.indptr;
  plan->num_rows = csr.num_rows;
  plan->nnz = csr.nnz;
  const std::vector<int64_t> lengths = csr.row_lengths();
  plan->max_row_length = lengths.empty() ? 0 : *std::max_element(lengths.begin(), lengths.end());
  plan->mean_row_length = csr.num_rows == 0 ? 0.0 : static_cast<double>(csr.nnz) / static_cast<double>(csr.num_rows);
  if (csr.row_order.defined()) {
    plan->row_order = csr.row_order;
  } else {
    std::vector<int32_t> order(lengths.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
      return lengths[static_cast<std::size_t>(a)] > lengths[static_cast<std::size_t>(b)];
    });
    plan->row_order = Tensor::from_vector(order, {csr.num_rows}, csr.device());
  }
  const SegmentPlan segments = plan_segments(lengths, choose_segment_length(plan->mean_row_length, csr.nnz));
  plan->segment_length = segments.segment_length;
  plan->segments = static_cast<int64_t>(segments.row.size());
  plan->split_segments = segments.split_segments;
  plan->num_split_rows = static_cast<int64_t>(segments.split_rows.size());
  plan->mean_segment_length =
      plan->segments == 0 ? 0.0 : static_cast<double>(csr.nnz) / static_cast<double>(plan->segments);
  plan->segment_row = Tensor::from_vector(segments.row, {plan->segments}, csr.device());
  plan->segment_begin = Tensor::from_vector(segments.begin, {plan->segments}, csr.device());
  plan->split_rows = Tensor::from_vector(segments.split_rows, {plan->num_split_rows}, csr.device());
  plan->split_offsets = Tensor::from_vector(segments.split_offsets, {plan->num_split_rows + 1}, csr.device());
  if (csr.nnz <= kEntryRowsMaxEntries) {
    std::vector<int32_t> entry_row;
    entry_row.reserve(static_cast<std::size_t>(csr.nnz));
    for (std::size_t row = 0; row < lengths.size(); ++row) {
      entry_row.insert(entry_row.end(), static_cast<std::size_t>(lengths[row]), static_cast<int32_t>(row));
    }
    plan->entry_row = Tensor::from_vector(entry_row, {csr.nnz}, csr.device());
  }
  return plan;
}

}  // namespace

std::shared_ptr<const SparsePlan> sparse_plan(const Csr& csr) {
  SGNN_CHECK(csr.indptr.defined(), "sparse_plan: the CSR has no indptr");
  std::lock_guard<std::mutex> lock(cache_mutex);
  for (auto it = cache.begin(); it != cache.end(); ++it) {
    if (same_key(**it, csr)) {
      std::shared_ptr<const SparsePlan> found = *it;
      cache.erase(it);
      cache.push_front(found);
      return found;
    }
  }
  std::shared_ptr<const SparsePlan> plan = build_plan(csr);
  ++plans_built;
  cache.push_front(plan);
  trim_cache();
  return plan;
}

void register_sparse_plan(std::shared_ptr<const SparsePlan> plan) {
  SGNN_CHECK(plan != nullptr && plan->indptr.defined(), "register_sparse_plan: a plan without its indptr");
  std::lock_guard<std::mutex> lock(cache_mutex);
  for (auto it = cache.begin(); it != cache.end(); ++it) {
    if ((*it)->indptr.shares_storage_with(plan->indptr) && (*it)->indptr.raw_data() == plan->indptr.raw_data()) {
      cache.erase(it);
      break;
    }
  }
  cache.push_front(std::move(plan));
  trim_cache();
}

SparsePlanReservation::SparsePlanReservation(int64_t plans) : plans_(plans) {
  SGNN_CHECK(plans >= 0, "SparsePlanReservation: room for ", plans, " plans; expected a count >= 0");
  const std::lock_guard<std::mutex> lock(cache_mutex);
  reserved_plans += plans;
}

SparsePlanReservation::~SparsePlanReservation() {
  const std::lock_guard<std::mutex> lock(cache_mutex);
  reserved_plans -= plans_;
  trim_cache();
}

int64_t sparse_plan_capacity() {
  const std::lock_guard<std::mutex> lock(cache_mutex);
  return static_cast<int64_t>(kPlanCacheSize) + reserved_plans;
}

int64_t sparse_plans_built() {
  std::lock_guard<std::mutex> lock(cache_mutex);
  return plans_built;
}

}  // namespace sgnn::ops
