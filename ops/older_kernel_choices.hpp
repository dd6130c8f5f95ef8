// Kernel choices stored by builds before one key held a call's whole SpMM or
// SDDMM choice (ops/spmm_choice.hpp, ops/sddmm_choice.hpp), in today's keys,
// so that a cache file written by such a build still saves the timing:
//   "spmm-tile:[bf16:]h<H>:f<F>" = tile    -> the tile of spmm_choice_key(H, F)
//   "spmm-format:[bf16:]f<F>" = format     -> the format of spmm_choice_key(1, F)
//   "spmm-padded:[bf16:]h<H>:f<F>"         -> spmm_choice_key(H, F, aligned = false):
//        = "padded": "padded <the tile stored for the padded width>"; = "direct": "direct"
//   "sddmm-padded:[bf16:]h<H>:f<F>" = "padded"
//                                          -> the ":scalar" sddmm_choice_key(H, F):
//        "padded <the kernel stored for the padded width>" ("direct": the ":scalar"
//        key already names the direct kernel)
// "spmm-tile:...:scalar" keys are dropped (one tile existed: nothing was
// timed), and a padded choice whose padded width has no stored choice is
// dropped (timed again). "gspmm-extreme-order:..." keys (g-SpMM Max/Min's
// order, timed between two launches) are dropped: gspmm_extreme_choice_key
// times its heavy and light tiles with the order (ops/cuda/gspmm.cu). Every
// other key is kept as it is (the SDDMM kernels' keys did not change).
#pragma once

#include "ops/kernel_choices.hpp"

namespace sgnn::ops {

KernelChoiceMap with_current_keys(const KernelChoiceMap& choices);

}  // namespace sgnn::ops
