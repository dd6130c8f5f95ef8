// The sampler's one formula, compiled into both backends (cpu/ and cuda/),
// so a seed gives the same blocks on the CPU and on a GPU.
//
// Draws: the k draws of destination i at hop h of batch b use elements
// indptr[i] .. indptr[i] + k - 1 of the Philox stream (seed, offset
// b·kHopsPerBatch + h), indptr being the block's own row offsets: every
// draw of a batch has its own counter, whatever the thread layout.
//
// Without replacement a row keeps min(degree, fanout) neighbours, chosen by
// Floyd's algorithm (Bentley & Floyd, CACM 1987): step s draws r uniform in
// [0, t] with t = degree - k + s and keeps r, or t when r was kept already;
// k steps give a uniform k-subset with no rejection loop. With replacement
// a row with neighbours keeps `fanout` independent uniform draws; fanout -1
// keeps every neighbour either way.
#pragma once

#include <cstdint>

#include "core/host_device.hpp"
#include "core/philox.hpp"

namespace sgnn::sampling {

inline constexpr uint64_t kHopsPerBatch = 256;  // hops of one batch never share a stream

SGNN_HOST_DEVICE PhiloxStream hop_stream(uint64_t seed, uint64_t batch, int64_t hop) {
  return PhiloxStream{seed, batch * kHopsPerBatch + static_cast<uint64_t>(hop)};
}

// The 32 random bits of element `element` of `stream`.
SGNN_HOST_DEVICE uint32_t draw_bits(const PhiloxStream& stream, uint64_t element) {
  return stream.block_bits(element >> 2).v[element & 3];
}

// A uniform integer in [0, bound) from 32 random bits (Lemire's multiply;
// bias below bound / 2^32, bound <= 2^32).
SGNN_HOST_DEVICE uint32_t uniform_below(uint32_t bits, uint64_t bound) {
  return static_cast<uint32_t>((static_cast<uint64_t>(bits) * bound) >> 32);
}

// How many neighbours a destination of `degree` neighbours keeps.
SGNN_HOST_DEVICE int64_t sampled_count(int64_t degree, int64_t fanout, bool replace) {
  if (fanout < 0) return degree;
  if (replace) return degree > 0 ? fanout : 0;
  return degree < fanout ? degree : fanout;
}

// Whether the row keeps all its neighbours in order (no draws).
SGNN_HOST_DEVICE bool keeps_all(int64_t degree, int64_t fanout, bool replace) {
  return fanout < 0 || (!replace && degree <= fanout);
}

// Floyd's candidate at step s of a row keeping k of `degree` neighbours:
// r in [0, degree - k + s]; the caller keeps it, or degree - k + s when r
// is already among the positions kept at steps 0 .. s - 1.
SGNN_HOST_DEVICE uint32_t floyd_candidate(const PhiloxStream& stream, uint64_t first_element, int64_t step,
                                          int64_t degree, int64_t kept) {
  const uint64_t bound = static_cast<uint64_t>(degree - kept + step) + 1;
  return uniform_below(draw_bits(stream, first_element + static_cast<uint64_t>(step)), bound);
}

}  // namespace sgnn::sampling
