// rode_driver: RoDe's SpMM and SDDMM kernels (Pang et al., "A Row
// Decomposition-based Approach for Sparse Matrix Multiplication on GPUs",
// PPoPP 2024) on one Matrix Market file: each kernel checked against a
// float64 CPU reference, then timed. Our program, not RoDe's: it is compiled
// with RoDe's own sources by bench/peers/build_rode.sh (no RoDe code is part
// of this project) and driven by bench/compare_peer_kernels.py.
//
//   rode_driver MATRIX [--widths 32,128] [--warmup 5] [--runs 25]
//
// The matrix goes through RoDe's own reader and preprocessing, as its
// evaluation programs (eval/eval_{spmm,sddmm}_f32_n{32,128}.cu) use them:
// SparseMatrix(file, SORTED, 1) (entries sorted by row and column, repeated
// entries merged, rows not padded), then RowDivide2Segment(SEG_LENGTH, 4, 32),
// with SEG_LENGTH 512 for the SpMM kernels and the width-32 SDDMM and 32 for
// the width-128 SDDMM (the lengths those programs pair with each kernel).
// Kernels and the widths they take:
//   RoDeSpmm_n32   any multiple of 32 (32 columns a thread block)
//   RoDeSpmm_n128  any multiple of 64 (64 columns a thread block)
//   RoDeSDDMM_n32  32 only, RoDeSDDMM_n128  128 only (the width is a template
//                  parameter of the kernels)
// A kernel's 32-bit offsets limit it too: SpMM needs columns · width · 4 and
// rows · width below 2^31, SDDMM rows · width and columns · width below 2^31;
// a case past them prints "not supported" instead of running.
//
// Semantics (RoDe's, kept): SpMM C = A · B accumulates into C with atomics,
// so C must be zero before a call; RoDe's programs time repeated calls
// without clearing it, and so does the "Time" of its report line; a second
// line, "C cleared", times a cudaMemsetAsync of C and the call, the cost of a
// correct call. SDDMM out[e] = value[e] · (X[row(e)] · Y[col(e)]), sampled
// by A's values as in Sputnik (cuSPARSE's SDDMM and ours leave the values
// out: RoDe reads 4 bytes an entry more).
//
// Checking: one call on zeroed C (SpMM) or on an output filled with NaN
// (SDDMM: an entry the kernels skip stays NaN), against the float64 product
// of RoDe's own host arrays; relative error ‖got − ref‖ / ‖ref‖ at most 1e-4,
// else the kernel prints "WRONG" and no report. Timing: the median of --runs
// calls after --warmup calls, each between CUDA events on the legacy default
// stream (RoDe launches its two kernels on two blocking streams, which that
// stream waits for), recorded after a 200 µs hold of the stream so that the
// host's time to queue the launches is not in the figure, as bench_sparse
// times ours. Report lines, in the form of dgSPARSE-Lib's example drivers:
//   [RoDe SpMM n32] Report: F=32, relative error 1.2e-07, Time 0.042100 (ms)
//   [RoDe SpMM n32, C cleared] Report: F=32, Time 0.045200 (ms)
//   [RoDe SDDMM n32] Report: F=32, relative error 3.0e-07, Time 0.051000 (ms)
// Exit status 0 when the matrix was read and the device found (whatever the
// kernels' results), 1 otherwise.
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>  // before RoDe's headers: their CUDA_CALL uses std::cout without including it
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "RoDeSddmm.h"
#include "RoDeSpmm.h"
#include "matrix_utils.h"

namespace {

constexpr double kMaxRelativeError = 1e-4;
constexpr double kHoldMicroseconds = 200.0;
constexpr int kSpmmSegmentLength = 512;         // eval_spmm_f32_n{32,128}.cu
constexpr int kSddmm32SegmentLength = 512;      // eval_sddmm_f32_n32.cu
constexpr int kSddmm128SegmentLength = 32;      // eval_sddmm_f32_n128.cu
constexpr int kVectorLength = 4, kBlockK = 32;  // RowDivide2Segment's other two arguments there

struct Options {
  std::string matrix;
  std::vector<int> widths{32, 128};
  int warmup = 5;
  int runs = 25;
};

[[noreturn]] void usage(const char* problem) {
  std::fprintf(stderr, "rode_driver: %s\nusage: rode_driver MATRIX [--widths 32,128] [--warmup N] [--runs N]\n",
               problem);
  std::exit(1);
}

int positive(const char* text, const char* what) {
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || value <= 0 || value > 1 << 20) usage(what);
  return static_cast<int>(value);
}

Options parse(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string argument = argv[i];
    const bool has_value = i + 1 < argc;
    if (argument == "--widths" && has_value) {
      options.widths.clear();
      std::string list = argv[++i];
      for (std::size_t start = 0; start <= list.size();) {
        const std::size_t comma = std::min(list.find(',', start), list.size());
        options.widths.push_back(positive(list.substr(start, comma - start).c_str(), "bad --widths"));
        start = comma + 1;
      }
    } else if (argument == "--warmup" && has_value) {
      options.warmup = positive(argv[++i], "bad --warmup");
    } else if (argument == "--runs" && has_value) {
      options.runs = positive(argv[++i], "bad --runs");
    } else if (options.matrix.empty() && argument.rfind("--", 0) != 0) {
      options.matrix = argument;
    } else {
      usage(("unexpected argument " + argument).c_str());
    }
  }
  if (options.matrix.empty()) usage("no MATRIX");
  return options;
}

// RoDe's reader crashes on a file it cannot open and trusts the size line, so
// both are checked first: a coordinate Matrix Market file whose sizes fit
// RoDe's int counts. Returns the entry count the file declares.
long long check_header(const std::string& path) {
  std::FILE* file = std::fopen(path.c_str(), "r");
  if (file == nullptr) usage(("cannot open " + path).c_str());
  char line[1024];
  const bool banner =
      std::fgets(line, sizeof line, file) != nullptr && std::strncmp(line, "%%MatrixMarket matrix coordinate", 32) == 0;
  long long rows = -1, columns = -1, entries = -1;
  while (banner && std::fgets(line, sizeof line, file) != nullptr) {
    if (line[0] == '%') continue;
    if (std::sscanf(line, "%lld %lld %lld", &rows, &columns, &entries) != 3) rows = -1;
    break;
  }
  std::fclose(file);
  if (!banner) usage((path + " is not a coordinate Matrix Market file").c_str());
  if (rows <= 0 || columns <= 0 || entries < 0) usage((path + ": no valid size line").c_str());
  if (rows >= INT_MAX || columns >= INT_MAX || entries >= INT_MAX / 2) {
    usage((path + ": sizes past RoDe's 32-bit counts").c_str());
  }
  return entries;
}

void check_cuda(cudaError_t status, const char* what) {
  if (status == cudaSuccess) return;
  std::fprintf(stderr, "rode_driver: %s: %s\n", what, cudaGetErrorString(status));
  std::exit(1);
}

// A CSR view of RoDe's host matrix (after its reader: sorted, merged, unpadded).
struct HostCsr {
  int rows = 0, columns = 0, nnz = 0;
  const int* offsets = nullptr;
  const int* indices = nullptr;
  const float* values = nullptr;
};

// Runs body(first, last) over [0, count) split across the host's cores.
template <typename Body>
void parallel_rows(int count, Body body) {
  const int threads = static_cast<int>(std::max(1u, std::min(64u, std::thread::hardware_concurrency())));
  std::vector<std::thread> workers;
  const int chunk = (count + threads - 1) / threads;
  for (int first = 0; first < count; first += chunk) {
    workers.emplace_back(body, first, std::min(count, first + chunk));
  }
  for (std::thread& worker : workers) worker.join();
}

std::vector<double> spmm_reference(const HostCsr& a, const std::vector<float>& b, int width) {
  std::vector<double> c(static_cast<std::size_t>(a.rows) * width, 0.0);
  parallel_rows(a.rows, [&](int first, int last) {
    for (int row = first; row < last; ++row) {
      double* out = &c[static_cast<std::size_t>(row) * width];
      for (int e = a.offsets[row]; e < a.offsets[row + 1]; ++e) {
        const float* in = &b[static_cast<std::size_t>(a.indices[e]) * width];
        for (int j = 0; j < width; ++j) out[j] += static_cast<double>(a.values[e]) * in[j];
      }
    }
  });
  return c;
}

std::vector<double> sddmm_reference(const HostCsr& a, const std::vector<float>& x, const std::vector<float>& y,
                                    int width) {
  std::vector<double> out(static_cast<std::size_t>(a.nnz), 0.0);
  parallel_rows(a.rows, [&](int first, int last) {
    for (int row = first; row < last; ++row) {
      const float* left = &x[static_cast<std::size_t>(row) * width];
      for (int e = a.offsets[row]; e < a.offsets[row + 1]; ++e) {
        const float* right = &y[static_cast<std::size_t>(a.indices[e]) * width];
        double dot = 0;
        for (int j = 0; j < width; ++j) dot += static_cast<double>(left[j]) * right[j];
        out[e] = static_cast<double>(a.values[e]) * dot;
      }
    }
  });
  return out;
}

// ‖got − reference‖ / ‖reference‖; infinity when got has a NaN or an infinity.
double relative_error(const std::vector<float>& got, const std::vector<double>& reference) {
  double difference = 0, norm = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (!std::isfinite(got[i])) return std::numeric_limits<double>::infinity();
    difference += (got[i] - reference[i]) * (got[i] - reference[i]);
    norm += reference[i] * reference[i];
  }
  return std::sqrt(difference / std::max(norm, 1e-300));
}

std::vector<float> random_matrix(std::size_t count, uint64_t seed) {
  std::mt19937_64 engine(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<float> values(count);
  for (float& v : values) v = uniform(engine);
  return values;
}

// A device buffer of `count` floats.
class DeviceFloats {
 public:
  explicit DeviceFloats(std::size_t count) : count_(count) {
    check_cuda(cudaMalloc(&data_, std::max<std::size_t>(count, 1) * sizeof(float)), "cudaMalloc");
  }
  explicit DeviceFloats(const std::vector<float>& host) : DeviceFloats(host.size()) {
    check_cuda(cudaMemcpy(data_, host.data(), count_ * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy");
  }
  ~DeviceFloats() { cudaFree(data_); }
  DeviceFloats(const DeviceFloats&) = delete;
  DeviceFloats& operator=(const DeviceFloats&) = delete;
  float* get() const { return data_; }
  std::size_t bytes() const { return count_ * sizeof(float); }
  std::vector<float> to_host() const {
    std::vector<float> host(count_);
    check_cuda(cudaMemcpy(host.data(), data_, bytes(), cudaMemcpyDeviceToHost), "cudaMemcpy");
    return host;
  }

 private:
  float* data_ = nullptr;
  std::size_t count_;
};

__device__ __forceinline__ unsigned long long global_nanoseconds() {
  unsigned long long now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  return now;
}

// One thread waits on the GPU's global timer: what follows on the stream is queued meanwhile.
__global__ void hold_kernel(unsigned long long nanoseconds) {
  const unsigned long long start = global_nanoseconds();
  while (global_nanoseconds() - start < nanoseconds) __nanosleep(1000);
}

// The streams RoDe's entry points launch on and the events that time them.
struct Timing {
  cudaStream_t first{}, second{};
  cudaEvent_t start{}, stop{};
  Timing() {
    // Blocking streams, as RoDe's programs create them: the legacy default stream waits for them.
    check_cuda(cudaStreamCreate(&first), "cudaStreamCreate");
    check_cuda(cudaStreamCreate(&second), "cudaStreamCreate");
    check_cuda(cudaEventCreate(&start), "cudaEventCreate");
    check_cuda(cudaEventCreate(&stop), "cudaEventCreate");
  }
  ~Timing() {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    cudaStreamDestroy(first);
    cudaStreamDestroy(second);
  }
  Timing(const Timing&) = delete;
  Timing& operator=(const Timing&) = delete;
};

// A RoDe entry point launches its block-part kernel over m1 segments and its
// residue kernel over m2 rows; a part with no work is a launch of zero blocks,
// which does nothing, as intended, but is refused: as an invalid configuration
// by CUDA 12, as an invalid value by CUDA 13 (the H200 run of 5823f4e, every
// stencil and FEM case without block segments). Returns the launches' error
// other than that one (cudaSuccess if none).
cudaError_t launch_error(int m1, int m2) {
  const cudaError_t status = cudaGetLastError();
  const bool empty_grid = status == cudaErrorInvalidConfiguration || status == cudaErrorInvalidValue;
  return empty_grid && (m1 == 0 || m2 == 0) ? cudaSuccess : status;
}

// The checked call's outcome: empty when it launched and finished, else why not.
std::string failure(int m1, int m2) {
  cudaError_t status = launch_error(m1, m2);
  if (status == cudaSuccess) status = cudaDeviceSynchronize();
  return status == cudaSuccess ? std::string() : cudaGetErrorString(status);
}

// Median ms of `runs` calls after `warmup`, each between events after a hold.
template <typename Call>
double median_ms(const Timing& timing, const Options& options, Call call) {
  for (int i = 0; i < options.warmup; ++i) call();
  check_cuda(cudaDeviceSynchronize(), "warm-up");
  std::vector<float> times;
  for (int i = 0; i < options.runs; ++i) {
    hold_kernel<<<1, 1, 0, 0>>>(static_cast<unsigned long long>(kHoldMicroseconds * 1000.0));
    check_cuda(cudaEventRecord(timing.start, 0), "cudaEventRecord");
    call();
    check_cuda(cudaEventRecord(timing.stop, 0), "cudaEventRecord");
    check_cuda(cudaEventSynchronize(timing.stop), "a timed call");
    float ms = 0;
    check_cuda(cudaEventElapsedTime(&ms, timing.start, timing.stop), "cudaEventElapsedTime");
    times.push_back(ms);
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

// RoDe's device matrix with one segmentation (RowDivide2Segment's segments and residue rows).
std::unique_ptr<SPC::CudaSparseMatrix<float>> segmented(SPC::SparseMatrix& host, int segment_length) {
  host.RowDivide2Segment(segment_length, kVectorLength, kBlockK);
  auto device = std::make_unique<SPC::CudaSparseMatrix<float>>(host);
  // RoDe's CUDA_CALL prints a failure and goes on: check that the copies arrived.
  check_cuda(cudaDeviceSynchronize(), "copying RoDe's matrix to the device");
  check_cuda(cudaGetLastError(), "copying RoDe's matrix to the device");
  std::printf("segments of %d entries: %d block segments, %d residue rows\n", segment_length, device->n_segs,
              device->n_segs_residue);
  return device;
}

bool fits_int(double value) { return value < static_cast<double>(INT_MAX); }

// RoDe's entry points (RoDeSpmm_n32 and _n128 also exist for double: the type picks the float ones).
using SpmmEntry = void (*)(int, int, int, int, const float*, const int*, const int*, const int*, const int*, const int*,
                           const float*, float*, cudaStream_t, cudaStream_t);
using SddmmEntry = void (*)(int, int, int, int, const int*, const int*, const int*, const int*, const int*,
                            const float*, const float*, const float*, float*, cudaStream_t, cudaStream_t);

// What a width needs to be timed: its operands and their float64 product.
struct SpmmOperands {
  std::vector<float> b;
  std::vector<double> reference;
};

void spmm(const char* name, bool n128, const SPC::CudaSparseMatrix<float>& a, const HostCsr& host, int width,
          const SpmmOperands& operands, const Timing& timing, const Options& options) {
  const DeviceFloats b(operands.b);
  DeviceFloats c(static_cast<std::size_t>(host.rows) * width);
  const SpmmEntry entry = n128 ? static_cast<SpmmEntry>(RoDeSpmm_n128) : static_cast<SpmmEntry>(RoDeSpmm_n32);
  auto launch = [&] {
    entry(a.n_segs, a.n_segs_residue, host.columns, width, a.Values(), a.ColumnIndices(), a.RowOffsets(),
          a.seg_row_indices, a.seg_row_indices_residue, a.seg_st_offsets, b.get(), c.get(), timing.first,
          timing.second);
  };
  check_cuda(cudaMemset(c.get(), 0, c.bytes()), "cudaMemset");
  launch();
  const std::string problem = failure(a.n_segs, a.n_segs_residue);
  if (!problem.empty()) {
    std::printf("[RoDe SpMM %s] F=%d: FAILED: %s\n", name, width, problem.c_str());
    std::exit(1);  // a fault leaves the context unusable
  }
  const double error = relative_error(c.to_host(), operands.reference);
  if (!(error <= kMaxRelativeError)) {
    std::printf("[RoDe SpMM %s] F=%d: WRONG, relative error %.3g (no report)\n", name, width, error);
    return;
  }
  const double ms = median_ms(timing, options, [&] {
    launch();
    (void)launch_error(a.n_segs, a.n_segs_residue);  // as in the checked call
  });
  const double cleared_ms = median_ms(timing, options, [&] {
    cudaMemsetAsync(c.get(), 0, c.bytes(), 0);
    launch();
    (void)launch_error(a.n_segs, a.n_segs_residue);
  });
  const double flop = 2.0 * host.nnz * width;
  std::printf("[RoDe SpMM %s] Report: F=%d, relative error %.2g, Time %.6f (ms), %.1f GFLOP/s\n", name, width, error,
              ms, flop / (ms * 1e6));
  std::printf("[RoDe SpMM %s, C cleared] Report: F=%d, Time %.6f (ms), %.1f GFLOP/s\n", name, width, cleared_ms,
              flop / (cleared_ms * 1e6));
}

// Both SpMM kernels at one width, where they take it.
void spmm_width(const SPC::CudaSparseMatrix<float>& a, const HostCsr& host, int width, const Timing& timing,
                const Options& options) {
  if (!fits_int(4.0 * host.columns * width) || !fits_int(1.0 * host.rows * width)) {
    std::printf("[RoDe SpMM] F=%d: not supported (offsets past RoDe's 32-bit ones)\n", width);
    return;
  }
  if (width % 32 != 0) {
    std::printf("[RoDe SpMM] F=%d: not supported (widths that are multiples of 32 only)\n", width);
    return;
  }
  SpmmOperands operands;
  operands.b = random_matrix(static_cast<std::size_t>(host.columns) * width, 1);
  operands.reference = spmm_reference(host, operands.b, width);
  spmm("n32", false, a, host, width, operands, timing, options);
  if (width % 64 == 0) {
    spmm("n128", true, a, host, width, operands, timing, options);
  } else {
    std::printf("[RoDe SpMM n128] F=%d: not supported (widths that are multiples of 64 only)\n", width);
  }
}

void sddmm(const char* name, bool n128, const SPC::CudaSparseMatrix<float>& a, const HostCsr& host, int width,
           const Timing& timing, const Options& options) {
  if (!fits_int(1.0 * host.rows * width) || !fits_int(1.0 * host.columns * width)) {
    std::printf("[RoDe SDDMM %s] F=%d: not supported (offsets past RoDe's 32-bit ones)\n", name, width);
    return;
  }
  const std::vector<float> x_host = random_matrix(static_cast<std::size_t>(host.rows) * width, 2);
  const std::vector<float> y_host = random_matrix(static_cast<std::size_t>(host.columns) * width, 3);
  const DeviceFloats x(x_host), y(y_host);
  DeviceFloats out(static_cast<std::size_t>(host.nnz));
  const SddmmEntry entry = n128 ? RoDeSDDMM_n128 : RoDeSDDMM_n32;
  auto launch = [&] {
    entry(a.n_segs, a.n_segs_residue, host.columns, width, a.seg_row_indices, a.seg_row_indices_residue,
          a.seg_st_offsets, a.RowOffsets(), a.ColumnIndices(), a.Values(), x.get(), y.get(), out.get(), timing.first,
          timing.second);
  };
  check_cuda(cudaMemset(out.get(), 0xff, out.bytes()), "cudaMemset");  // NaN: a skipped entry shows
  launch();
  const std::string problem = failure(a.n_segs, a.n_segs_residue);
  if (!problem.empty()) {
    std::printf("[RoDe SDDMM %s] F=%d: FAILED: %s\n", name, width, problem.c_str());
    std::exit(1);
  }
  const double error = relative_error(out.to_host(), sddmm_reference(host, x_host, y_host, width));
  if (!(error <= kMaxRelativeError)) {
    std::printf("[RoDe SDDMM %s] F=%d: WRONG, relative error %.3g (no report)\n", name, width, error);
    return;
  }
  const double ms = median_ms(timing, options, [&] {
    launch();
    (void)launch_error(a.n_segs, a.n_segs_residue);
  });
  std::printf("[RoDe SDDMM %s] Report: F=%d, relative error %.2g, Time %.6f (ms), %.1f GFLOP/s\n", name, width, error,
              ms, 2.0 * host.nnz * width / (ms * 1e6));
}

// Row lengths of the matrix RoDe holds: the regime its decomposition targets.
void print_row_lengths(const HostCsr& a) {
  std::vector<int> lengths(a.rows);
  int in_15_to_30 = 0;
  for (int row = 0; row < a.rows; ++row) {
    lengths[row] = a.offsets[row + 1] - a.offsets[row];
    in_15_to_30 += lengths[row] >= 15 && lengths[row] <= 30;
  }
  std::sort(lengths.begin(), lengths.end());
  std::printf("row lengths: min %d, median %d, max %d; rows of 15-30 entries %.1f%%\n", lengths.front(),
              lengths[lengths.size() / 2], lengths.back(), 100.0 * in_15_to_30 / a.rows);
}

}  // namespace

int main(int argc, char** argv) {
  const Options options = parse(argc, argv);
  const long long declared = check_header(options.matrix);
  SPC::SparseMatrix matrix(options.matrix, SPC::SORTED, 1);
  const HostCsr host{matrix.Rows(),       matrix.Columns(),       matrix.Nonzeros(),
                     matrix.RowOffsets(), matrix.ColumnIndices(), matrix.Values()};
  std::printf("matrix %s: %d rows, %d columns, %lld entries in the file, %d in RoDe's matrix%s\n",
              options.matrix.c_str(), host.rows, host.columns, declared, host.nnz,
              declared == host.nnz ? "" : " (repeated entries merged)");
  print_row_lengths(host);
  std::fflush(stdout);
  check_cuda(cudaSetDevice(0), "no CUDA device");
  cudaDeviceProp properties{};
  check_cuda(cudaGetDeviceProperties(&properties, 0), "cudaGetDeviceProperties");
  std::printf("device: %s\n", properties.name);
  std::fflush(stdout);
  const Timing timing;
  const bool sddmm_32 = std::find(options.widths.begin(), options.widths.end(), 32) != options.widths.end();
  const bool sddmm_128 = std::find(options.widths.begin(), options.widths.end(), 128) != options.widths.end();
  {
    const auto a = segmented(matrix, kSpmmSegmentLength);
    for (int width : options.widths) {
      spmm_width(*a, host, width, timing, options);
      std::fflush(stdout);
    }
    static_assert(kSddmm32SegmentLength == kSpmmSegmentLength, "the width-32 SDDMM reuses the SpMM's segments");
    if (sddmm_32) sddmm("n32", false, *a, host, 32, timing, options);
  }
  if (sddmm_128) {
    const auto a = segmented(matrix, kSddmm128SegmentLength);
    sddmm("n128", true, *a, host, 128, timing, options);
  }
  for (int width : options.widths) {
    if (width != 32 && width != 128) {
      std::printf("[RoDe SDDMM] F=%d: not supported (RoDe's SDDMM kernels take widths 32 and 128 only)\n", width);
    }
  }
  return 0;
}
