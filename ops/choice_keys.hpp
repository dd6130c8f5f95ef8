// The keys of the measured choices in a graph's KernelChoiceTable
// (ops/kernel_choices.hpp): one key per shape of an op call holds that
// call's whole choice (ops/spmm_choice.hpp, ops/sddmm_choice.hpp).
#pragma once

#include <cstdint>
#include <string>

#include "core/dtype.hpp"

namespace sgnn::ops {

// "spmm:h<heads>:f<features>" for float32 B, "spmm:bf16:h..." for bfloat16,
// ":scalar" appended where 16-byte accesses are impossible: a per-head
// width off the vector (4 float32, 8 bfloat16), or B or C not 16-byte
// aligned (`aligned` false).
std::string spmm_choice_key(int64_t heads, int64_t features, DType dtype = DType::Float32, bool aligned = true);

// "sddmm:h<heads>:f<features>", then ":scalar" without 16-byte loads
// (`vectorized` false: a width off the vector or operands not 16-byte
// aligned), ":bf16" for bfloat16 operands (which move half the bytes, so
// may pick another kernel; float32 keys are unchanged from before bfloat16
// existed) and ":hrpb" when the HRPB kernel is among the candidates (a
// choice made without it is not taken for one that had it, nor the other
// way round).
std::string sddmm_choice_key(int64_t heads, int64_t features, bool vectorized, DType dtype = DType::Float32,
                             bool with_hrpb = false);

// "gatv2:h<heads>:f<features>" (ops/gatv2_attention.cpp's choice between the
// fused kernels and the composition), ":bf16" appended for bfloat16 x and
// ":forward" for calls that record no gradient (timed on the forward alone;
// a training call's choice is timed on forward and backward).
std::string gatv2_choice_key(int64_t heads, int64_t features, DType dtype, bool with_backward);

// "gspmm-extreme:h<heads>:f<features>" (ops/cuda/gspmm.cu's launch of the
// values-only Max/Min kernel), ":bf16" for bfloat16 operands and ":scalar"
// where u allows no 16-byte accesses (`vectorized` false).
std::string gspmm_extreme_choice_key(int64_t heads, int64_t features, DType dtype, bool vectorized);

}  // namespace sgnn::ops
