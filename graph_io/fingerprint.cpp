#include "graph_io/fingerprint.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

namespace sgnn::graph_io {

namespace {

constexpr uint64_t kPrime1 = 0x9e3779b185ebca87ull;
constexpr uint64_t kPrime2 = 0xc2b2ae3d27d4eb4full;

constexpr uint64_t rotate_left(uint64_t x, int bits) { return (x << bits) | (x >> (64 - bits)); }

// Four independent lanes (xxHash64-style rounds) over one block.
uint64_t hash_block(const unsigned char* data, std::size_t bytes, uint64_t seed) {
  uint64_t lanes[4] = {seed + kPrime1 + kPrime2, seed + kPrime2, seed, seed - kPrime1};
  std::size_t position = 0;
  for (; position + 32 <= bytes; position += 32) {
    for (int lane = 0; lane < 4; ++lane) {
      uint64_t word;
      std::memcpy(&word, data + position + 8 * static_cast<std::size_t>(lane), 8);
      lanes[lane] = rotate_left(lanes[lane] + word * kPrime2, 31) * kPrime1;
    }
  }
  uint64_t state = bytes;
  for (const uint64_t lane : lanes) state = hash_combine(state, lane);
  for (; position < bytes; ++position) state = hash_combine(state, data[position]);
  return state;
}

}  // namespace

uint64_t hash_bytes(const void* data, std::size_t bytes, uint64_t seed) {
  constexpr std::size_t kBlock = std::size_t{1} << 22;
  const auto* base = static_cast<const unsigned char*>(data);
  const std::size_t blocks = std::max<std::size_t>(1, (bytes + kBlock - 1) / kBlock);
  std::vector<uint64_t> partial(blocks);
#pragma omp parallel for schedule(static) if (blocks > 1)
  for (std::size_t b = 0; b < blocks; ++b) {
    const std::size_t begin = b * kBlock;
    partial[b] = hash_block(base + begin, std::min(kBlock, bytes - std::min(bytes, begin)), seed + b);
  }
  uint64_t state = hash_combine(seed, bytes);
  for (const uint64_t value : partial) state = hash_combine(state, value);
  return state;
}

uint64_t hash_tensor(const Tensor& tensor, uint64_t seed) {
  if (!tensor.defined()) return hash_combine(seed, 0x5eedull);
  uint64_t state = hash_combine(seed, static_cast<uint64_t>(tensor.dtype()) + 1);
  for (const int64_t extent : tensor.shape()) state = hash_combine(state, static_cast<uint64_t>(extent));
  const Tensor host = tensor.to(Device::cpu());
  return hash_bytes(host.raw_data(), host.nbytes(), state);
}

}  // namespace sgnn::graph_io
