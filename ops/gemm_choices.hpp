// The dense products' measured algorithms (CUDA: ops/cuda/gemm_algorithm.hpp)
// as text, so that a run stores them beside its graph's sparse kernel choices
// (training/kernel_selection.hpp) and a later run with the same cache folder
// runs the same algorithms without timing them again.
#pragma once

#include "ops/kernel_choice_table.hpp"

namespace sgnn::ops {

// This process's choices, keys "gemm:<shape>"; empty without the CUDA backend.
KernelChoiceMap gemm_choices();
// Choices read back. Keys other than "gemm:...", values of another cuBLASLt
// version or not parsed, and algorithms cuBLASLt no longer accepts for the
// call are ignored (that shape is timed as usual). No effect without CUDA.
void import_gemm_choices(const KernelChoiceMap& choices);
// Drops the process's choices and the imported ones (tests: a fresh process
// in the same binary). Not safe while another thread runs a product.
void forget_gemm_choices();

}  // namespace sgnn::ops
