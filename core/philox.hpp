// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2,
// 3", SC'11): a counter-based generator. The random numbers of element i
// depend only on (seed, offset, i), so the CPU and a GPU kernel produce the
// same dropout mask for the same seed, whatever the thread layout.
#pragma once

#include <cstdint>

#include "core/host_device.hpp"

namespace sgnn {

struct Philox4x32 {
  uint32_t v[4];
};

SGNN_HOST_DEVICE Philox4x32 philox4x32_10(Philox4x32 counter, uint32_t key0, uint32_t key1) {
  constexpr uint32_t kMul0 = 0xD2511F53u;
  constexpr uint32_t kMul1 = 0xCD9E8D57u;
  constexpr uint32_t kWeyl0 = 0x9E3779B9u;
  constexpr uint32_t kWeyl1 = 0xBB67AE85u;
  for (int round = 0; round < 10; ++round) {
    const uint64_t product0 = static_cast<uint64_t>(kMul0) * counter.v[0];
    const uint64_t product1 = static_cast<uint64_t>(kMul1) * counter.v[2];
    const uint32_t hi0 = static_cast<uint32_t>(product0 >> 32);
    const uint32_t lo0 = static_cast<uint32_t>(product0);
    const uint32_t hi1 = static_cast<uint32_t>(product1 >> 32);
    const uint32_t lo1 = static_cast<uint32_t>(product1);
    counter = Philox4x32{{hi1 ^ counter.v[1] ^ key0, lo1, hi0 ^ counter.v[3] ^ key1, lo0}};
    key0 += kWeyl0;
    key1 += kWeyl1;
  }
  return counter;
}

// The draw stream of one random op: element i uses block i / 4 of the
// counter space starting at `offset`, lane i % 4.
struct PhiloxStream {
  uint64_t seed = 0;
  uint64_t offset = 0;  // in 4-value blocks

  // The 128 random bits of `block`: Philox of the counter (block, offset) under the key seed.
  SGNN_HOST_DEVICE Philox4x32 block_bits(uint64_t block) const {
    const Philox4x32 counter{{static_cast<uint32_t>(block), static_cast<uint32_t>(block >> 32),
                              static_cast<uint32_t>(offset), static_cast<uint32_t>(offset >> 32)}};
    return philox4x32_10(counter, static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32));
  }

  // The uniform floats in [0, 1) of elements 4·block .. 4·block + 3 (24
  // random bits each): one Philox call serves four elements.
  SGNN_HOST_DEVICE void uniform4(uint64_t block, float (&out)[4]) const {
    const Philox4x32 bits = block_bits(block);
    for (int k = 0; k < 4; ++k) out[k] = static_cast<float>(bits.v[k] >> 8) * (1.0f / 16777216.0f);
  }

  // The uniform float of element `index`: lane index % 4 of block index / 4.
  SGNN_HOST_DEVICE float uniform(uint64_t index) const {
    float block[4];
    uniform4(index >> 2, block);
    return block[index & 3];
  }

  // The uniform floats in [0, 1) of elements 8·block .. 8·block + 7, 16
  // random bits each (multiples of 2^-16): one Philox call serves eight
  // elements, element 8·block + j taking the low (j even) or high half of
  // word j / 2. Dropout draws these: its keep test needs no finer steps, and
  // on 2-byte elements a Philox call per 4 elements set the kernel's time
  // (bfloat16 moved 2.0 TB/s where float moves 2.9).
  SGNN_HOST_DEVICE void uniform8(uint64_t block, float (&out)[8]) const {
    const Philox4x32 bits = block_bits(block);
    for (int k = 0; k < 4; ++k) {
      out[2 * k] = static_cast<float>(bits.v[k] & 0xFFFFu) * (1.0f / 65536.0f);
      out[2 * k + 1] = static_cast<float>(bits.v[k] >> 16) * (1.0f / 65536.0f);
    }
  }

  // The 16-bit uniform float of element `index`: lane index % 8 of uniform8's block index / 8.
  SGNN_HOST_DEVICE float uniform16(uint64_t index) const {
    float block[8];
    uniform8(index >> 3, block);
    return block[index & 7];
  }
};

}  // namespace sgnn
