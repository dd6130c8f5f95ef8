// Each HRPB block's rows as 16-bit column masks, with where their entries
// start in the CSR the HRPB was built from: what the HRPB SDDMM
// (ops/cuda/sddmm_hrpb.cu) needs to write a block's dot products to their
// CSR entries without decoding the brick patterns in every warp.
//
//   row_masks  [num_blocks · 16] uint2, on the HRPB's device (an int32 Tensor
//              of num_blocks · 32 words). Entry 16·b + r, for row r of block
//              b's panel:
//                x  entries of row r in the panel's blocks before b
//                y  bit c set when compacted column c of block b holds an
//                   entry of row r (bits 4k … 4k+3: brick k)
//              Because a panel's active columns are in increasing order and
//              a CSR row's columns are sorted, the entry at (r, c) is CSR
//              entry indptr[row] + x + popcount(y & (2^c − 1)).
//
// hrpb_row_masks(hrpb) builds them on the first call for an Hrpb on a CUDA
// device and keeps them in hrpb.derived (core/hrpb.hpp), which its copies
// share: later calls return the same tensor. Thread safe. 128 bytes a block.
#pragma once

#include "core/hrpb.hpp"

namespace sgnn::ops {

Tensor hrpb_row_masks(const Hrpb& hrpb);

// How many times row masks were built (once per HRPB and its copies), for tests.
int64_t hrpb_row_masks_built();

}  // namespace sgnn::ops
