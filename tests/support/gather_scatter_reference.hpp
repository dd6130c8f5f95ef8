// Float64 references of the scatter and segment reductions
// (ops/gather_scatter.hpp), computed independently of the ops: each source
// row in increasing order, Max/Min by strict comparison (so the first of
// equal values stays), NaN-free inputs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/tensor.hpp"
#include "ops/reduce_kind.hpp"

namespace sgnn::testing {

struct ReducedRows {
  std::vector<double> values;    // [outputs · width]; 0 where nothing arrived
  std::vector<int64_t> winners;  // Max/Min: the source row that won per element, −1 where nothing arrived
  std::vector<int64_t> counts;   // [outputs] rows that arrived
};

// Rows of `src` (`width` values each) reduced into `outputs` rows: row e goes
// to target[e].
ReducedRows reference_reduce(const std::vector<double>& src, int64_t width, const std::vector<int64_t>& target,
                             int64_t outputs, ops::ReduceKind reduce);

// The segment of every position for CSR offsets [S + 1].
std::vector<int64_t> segment_of_positions(const std::vector<int64_t>& offsets);

// An int32 or int64 tensor's values as int64.
std::vector<int64_t> to_int64(const Tensor& index);

// The text of the InvalidArgument `call` throws ("" if it throws nothing).
template <typename Call>
std::string invalid_argument_text(const Call& call) {
  try {
    call();
  } catch (const InvalidArgument& error) {
    return error.what();
  }
  return "";
}

}  // namespace sgnn::testing
