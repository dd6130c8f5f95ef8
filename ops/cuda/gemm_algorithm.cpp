// The measured cuBLASLt algorithm of a GEMM shape (gemm_algorithm.hpp).
#include "ops/cuda/gemm_algorithm.hpp"

#include <array>
#include <cstdio>
#include <cstdint>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "core/cuda/cublas_check.hpp"
#include "core/cuda_runtime.hpp"
#include "ops/cuda/gemm_narrow.hpp"
#include "ops/determinism.hpp"
#include "ops/kernel_choice_table.hpp"
#include "ops/kernel_timer.hpp"

namespace sgnn::ops::gemm_cuda {

namespace {

// cuBLASLt's heuristic ranks its candidates; past the first few they were
// variants of the same tiles (and each costs two launches to time).
constexpr int kCandidates = 8;

// The largest power of two up to 256 that divides the address: an
// algorithm chosen for aligned operands may require that alignment, so it
// is part of the shape (and the heuristic is told it).
uint32_t alignment_of(const void* pointer) {
  const auto address = reinterpret_cast<std::uintptr_t>(pointer);
  uint32_t alignment = 256;
  while (alignment > 1 && address % alignment != 0) alignment /= 2;
  return alignment;
}

using ShapeKey = std::tuple<int, int, int, int, int, int, int, int, int, int, int, int, uint32_t, uint32_t, uint32_t>;

ShapeKey key_of(Device device, const GemmCall& call) {
  return {device.index, static_cast<int>(call.transpose_a), static_cast<int>(call.transpose_b), call.m, call.n,
          call.k, call.lda, call.ldb, call.ldc, static_cast<int>(call.operand_type),
          static_cast<int>(call.result_type), static_cast<int>(call.compute), alignment_of(call.a),
          alignment_of(call.b), alignment_of(call.c)};
}

// The key's text without the device (a stored choice applies to every device of the model it was timed on).
std::string text_of(const ShapeKey& key) {
  std::string text = "gemm:";
  std::apply([&](int, auto... fields) { ((text += std::to_string(fields) + ","), ...); }, key);
  text.pop_back();
  return text;
}

// Our 3xTF32 kernel (gemm_narrow.hpp), a candidate beside cuBLASLt's algorithms.
constexpr const char* kNarrowVariant = "sgnn:3xtf32";

// "lt<cuBLASLt version>:" then the algorithm's eight 64-bit words in hexadecimal, '.'-separated.
std::string variant_of(const cublasLtMatmulAlgo_t& algorithm) {
  std::string text = "lt" + std::to_string(cublasLtGetVersion()) + ":";
  char word[17];
  for (std::size_t i = 0; i < 8; ++i) {
    std::snprintf(word, sizeof word, "%016llx", static_cast<unsigned long long>(algorithm.data[i]));
    text += word;
    if (i + 1 < 8) text += '.';
  }
  return text;
}

std::optional<cublasLtMatmulAlgo_t> algorithm_of(const std::string& variant) {
  const std::string prefix = "lt" + std::to_string(cublasLtGetVersion()) + ":";
  if (!variant.starts_with(prefix) || variant.size() != prefix.size() + 8 * 16 + 7) return std::nullopt;
  cublasLtMatmulAlgo_t algorithm{};
  for (std::size_t i = 0; i < 8; ++i) {
    const std::size_t at = prefix.size() + i * 17;
    if (i > 0 && variant[at - 1] != '.') return std::nullopt;
    uint64_t value = 0;
    for (std::size_t j = at; j < at + 16; ++j) {
      const char c = variant[j];
      const int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
      if (digit < 0) return std::nullopt;
      value = value << 4 | static_cast<uint64_t>(digit);
    }
    algorithm.data[i] = value;
  }
  return algorithm;
}

// What a chosen shape runs with: descriptors built once, the fastest
// algorithm, or our narrow kernel where that was faster.
struct ChosenGemm {
  cublasLtMatmulDesc_t operation = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
  cublasLtMatmulAlgo_t algorithm{};
  bool narrow = false;
};

// A stored choice: a cuBLASLt algorithm, or our narrow kernel.
struct StoredGemm {
  cublasLtMatmulAlgo_t algorithm{};
  bool narrow = false;
};

// Stored-matrix extents of an operand that `operation` applies to, giving rows x cols of op(X).
std::pair<uint64_t, uint64_t> stored_extents(cublasOperation_t operation, int rows, int cols) {
  const auto r = static_cast<uint64_t>(rows), c = static_cast<uint64_t>(cols);
  return operation == CUBLAS_OP_N ? std::pair{r, c} : std::pair{c, r};
}

int64_t leading(int ld) { return int64_t{ld}; }

ChosenGemm describe(const GemmCall& call) {
  ChosenGemm g;
  SGNN_CUBLAS_CHECK(cublasLtMatmulDescCreate(&g.operation, call.compute, CUDA_R_32F));
  SGNN_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(g.operation, CUBLASLT_MATMUL_DESC_TRANSA, &call.transpose_a,
                                                   sizeof(call.transpose_a)));
  SGNN_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(g.operation, CUBLASLT_MATMUL_DESC_TRANSB, &call.transpose_b,
                                                   sizeof(call.transpose_b)));
  const auto [a_rows, a_cols] = stored_extents(call.transpose_a, call.m, call.k);
  const auto [b_rows, b_cols] = stored_extents(call.transpose_b, call.k, call.n);
  const auto [c_rows, c_cols] = stored_extents(CUBLAS_OP_N, call.m, call.n);
  SGNN_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&g.a, call.operand_type, a_rows, a_cols, leading(call.lda)));
  SGNN_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&g.b, call.operand_type, b_rows, b_cols, leading(call.ldb)));
  SGNN_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&g.c, call.result_type, c_rows, c_cols, leading(call.ldc)));
  return g;
}

void release(ChosenGemm& g) {
  cublasLtMatrixLayoutDestroy(g.c);
  cublasLtMatrixLayoutDestroy(g.b);
  cublasLtMatrixLayoutDestroy(g.a);
  cublasLtMatmulDescDestroy(g.operation);
}

void launch(const GemmContext& context, const ChosenGemm& g, const cublasLtMatmulAlgo_t& algorithm,
            const GemmCall& call) {
  if (g.narrow) return run_narrow(context, call);
  const float alpha = 1.0f, beta = 0.0f;
  SGNN_CUBLAS_CHECK(cublasLtMatmul(context.handle, g.operation, &alpha, call.a, g.a, call.b, g.b, &beta, call.c,
                                   g.c, call.c, g.c, &algorithm, context.workspace, context.workspace_bytes,
                                   cuda::stream(context.device)));
}

// Every candidate the heuristic offers for this shape and our narrow kernel
// where it applies, timed on the call's operands; the fastest goes into g.
void choose(const GemmContext& context, ChosenGemm& g, const GemmCall& call) {
  cublasLtMatmulPreference_t preference = nullptr;
  SGNN_CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&preference));
  std::array<cublasLtMatmulHeuristicResult_t, kCandidates> offered{};
  int returned = 0;
  const cublasStatus_t status = [&] {
    const std::array<std::pair<cublasLtMatmulPreferenceAttributes_t, uint32_t>, 4> alignments{{
        {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, alignment_of(call.a)},
        {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, alignment_of(call.b)},
        {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, alignment_of(call.c)},
        {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, alignment_of(call.c)},
    }};
    for (const auto& [attribute, bytes] : alignments) {
      const cublasStatus_t set = cublasLtMatmulPreferenceSetAttribute(preference, attribute, &bytes, sizeof(bytes));
      if (set != CUBLAS_STATUS_SUCCESS) return set;
    }
    const uint64_t bytes = context.workspace_bytes;
    const cublasStatus_t set =
        cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &bytes, sizeof(bytes));
    if (set != CUBLAS_STATUS_SUCCESS) return set;
    return cublasLtMatmulAlgoGetHeuristic(context.handle, g.operation, g.a, g.b, g.c, g.c, preference,
                                          kCandidates, offered.data(), &returned);
  }();
  cublasLtMatmulPreferenceDestroy(preference);
  SGNN_CUBLAS_CHECK(status);
  SGNN_CHECK(returned > 0, "matmul: cuBLASLt offers no algorithm for a ", call.m, " x ", call.n, " x ", call.k,
             " product");
  double best_ms = std::numeric_limits<double>::infinity();
  int best = -1;
  const std::string shape = "gemm:m" + std::to_string(call.m) + ":n" + std::to_string(call.n) + ":k" +
                            std::to_string(call.k) + " candidate ";
  for (int i = 0; i < returned; ++i) {
    if (offered[static_cast<std::size_t>(i)].state != CUBLAS_STATUS_SUCCESS) continue;
    const cublasLtMatmulAlgo_t& algorithm = offered[static_cast<std::size_t>(i)].algo;
    const double ms = candidate_ms(
        context.device, [&] { launch(context, g, algorithm, call); }, shape + std::to_string(i), best_ms);
    if (ms < best_ms) {
      best_ms = ms;
      best = i;
    }
  }
  SGNN_CHECK(best >= 0, "matmul: none of cuBLASLt's ", returned, " algorithms for a ", call.m, " x ", call.n, " x ",
             call.k, " product is usable");
  g.algorithm = offered[static_cast<std::size_t>(best)].algo;
  if (narrow_applies(context, call)) {
    const double ms = candidate_ms(
        context.device, [&] { run_narrow(context, call); }, shape + kNarrowVariant, best_ms);
    g.narrow = ms < best_ms;
  }
}

// The process's choices (descriptors live as long) and the stored ones not yet used, under one mutex.
struct Choices {
  std::mutex mutex;
  std::map<ShapeKey, ChosenGemm> chosen;
  std::map<std::string, StoredGemm> imported;  // by text_of(key)
};

Choices& choices() {
  static Choices all;
  return all;
}

// An imported algorithm cuBLASLt accepts for this call within the context's workspace.
bool usable(const GemmContext& context, const ChosenGemm& g, const cublasLtMatmulAlgo_t& algorithm) {
  cublasLtMatmulHeuristicResult_t result{};
  const cublasStatus_t status =
      cublasLtMatmulAlgoCheck(context.handle, g.operation, g.a, g.b, g.c, g.c, &algorithm, &result);
  return status == CUBLAS_STATUS_SUCCESS && result.workspaceSize <= context.workspace_bytes;
}

}  // namespace

bool run_chosen_gemm(const GemmContext& context, const GemmCall& call) {
  const Device device = context.device;
  if (deterministic()) return false;  // cuBLAS's default for every shape: no choice depends on a timing
  Choices& all = choices();
  const ShapeKey key = key_of(device, call);
  const ChosenGemm* found = nullptr;
  std::optional<StoredGemm> stored;
  {
    const std::lock_guard<std::mutex> lock(all.mutex);
    if (const auto it = all.chosen.find(key); it != all.chosen.end()) {
      found = &it->second;  // map nodes do not move
    } else if (const auto stored_it = all.imported.find(text_of(key)); stored_it != all.imported.end()) {
      stored = stored_it->second;
    }
  }
  if (found == nullptr) {
    const bool may_time = !stream_capturing(device) && kernel_tuning_enabled();
    if (!stored && !may_time) return false;
    ChosenGemm g = describe(call);
    try {
      if (stored && stored->narrow && narrow_applies(context, call)) {
        g.narrow = true;
      } else if (stored && !stored->narrow && usable(context, g, stored->algorithm)) {
        g.algorithm = stored->algorithm;
      } else if (may_time) {
        choose(context, g, call);
      } else {
        release(g);
        return false;
      }
    } catch (...) {
      release(g);
      throw;
    }
    const std::lock_guard<std::mutex> lock(all.mutex);
    const auto [it, inserted] = all.chosen.emplace(key, g);
    if (!inserted) release(g);  // another thread chose it meanwhile
    found = &it->second;
  }
  launch(context, *found, found->algorithm, call);
  return true;
}

std::map<std::string, std::string> export_choices() {
  Choices& all = choices();
  const std::lock_guard<std::mutex> lock(all.mutex);
  std::map<std::string, std::string> text;
  for (const auto& [key, g] : all.chosen)
    text[text_of(key)] = g.narrow ? std::string(kNarrowVariant) : variant_of(g.algorithm);
  return text;
}

void import_choices(const std::map<std::string, std::string>& stored) {
  Choices& all = choices();
  const std::lock_guard<std::mutex> lock(all.mutex);
  for (const auto& [key, variant] : stored) {
    if (!key.starts_with("gemm:")) continue;
    if (variant == kNarrowVariant) {
      all.imported[key] = StoredGemm{.narrow = true};
    } else if (const std::optional<cublasLtMatmulAlgo_t> algorithm = algorithm_of(variant)) {
      all.imported[key] = StoredGemm{.algorithm = *algorithm};
    }
  }
}

void forget_choices() {
  Choices& all = choices();
  const std::lock_guard<std::mutex> lock(all.mutex);
  for (auto& [key, g] : all.chosen) release(g);
  all.chosen.clear();
  all.imported.clear();
}

}  // namespace sgnn::ops::gemm_cuda
