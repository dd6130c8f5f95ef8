// The tiles of the CSR SpMM kernel (ops/cuda/spmm.cu): how many elements a
// lane loads per access (one 16-byte access: 4 floats or 8 bfloat16s; or 1),
// how many lanes share a row's features, how many accesses a lane makes per
// entry. Named "v<vec>s<lanes>r<accesses>", e.g. "v4s32r1" (one float4 per
// lane, 32 lanes: a 128-wide float row per subwarp), "v8s16r1" (8 bfloat16s
// per lane, 16 lanes: a 128-wide bfloat16 row). "-heads" after a name: one
// subwarp covers every head of a row (heads × width), each lane inside one
// head, instead of a subwarp per head ("v8s8r1-heads": GAT's 8 heads of 8
// bfloat16s, a lane per head). "-light" (float32, one access, 16 or 32
// lanes): the same sums in 32 registers, one entry staged per lane, so twice
// the warps fit an SM. "-slices" after a name: the
// work runs one feature slice of every row at a time instead of all slices of
// a row side by side (kinder to L2 when the dense operand is larger than it).
// Which tile runs is timed per graph and width where that pays
// (ops/kernel_choices.hpp), else a rule by the width; every tile sums each
// output over the same entries in the same order, so the choice changes the
// speed, never the result.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/dtype.hpp"

namespace sgnn::ops {

// The tiles there are for a per-head width, B's dtype (float32 or
// bfloat16; vectorizable: 16-byte accesses are possible, i.e. aligned
// operands and a width that is a multiple of 4 floats or 8 bfloat16s) and
// the head count; the rule's tile first. Defined by the CUDA backend (CUDA
// builds only).
std::vector<std::string> spmm_tile_names(int64_t features, bool vectorizable, DType dtype = DType::Float32,
                                         int64_t heads = 1);

// Forces a tile by name process-wide when it exists for the call's width
// ("" = back to the choice); tests run every tile, bench_sparse compares them.
void force_spmm_tile(const std::string& name);
std::string forced_spmm_tile();

class ScopedSpmmTile {
 public:
  explicit ScopedSpmmTile(const std::string& name) : previous_(forced_spmm_tile()) { force_spmm_tile(name); }
  ~ScopedSpmmTile() { force_spmm_tile(previous_); }
  ScopedSpmmTile(const ScopedSpmmTile&) = delete;
  ScopedSpmmTile& operator=(const ScopedSpmmTile&) = delete;

 private:
  std::string previous_;
};

}  // namespace sgnn::ops
