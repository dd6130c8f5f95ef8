// Timing candidate kernels for the measured choices (ops/kernel_choices.hpp),
// from host code of any backend.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <string_view>

#include "core/device.hpp"

namespace sgnn::ops {

// Whether work queued on the library's stream of `device` is being captured
// into a CUDA Graph now (no timing, no host synchronisation then). False on the CPU.
bool stream_capturing(Device device);

// Milliseconds between CUDA events recorded on the library's stream of
// `device` before and after `launch()` (one launch; not counted as tuning).
double timed_launch_ms(Device device, const std::function<void()>& launch);

// The same, without the host's time to queue `launch()`: the stream is held
// busy for 200 µs first (ops/stream_hold.hpp), so what `launch()` queues
// waits on the GPU rather than the GPU on the host, provided the host queues
// it within that time. Benchmarks time kernels this way: kernels of tens of
// microseconds otherwise carry the host's queuing, which differs between the
// paths that reach the same kernel (docs/kernels.md).
double device_launch_ms(Device device, const std::function<void()>& launch);

// Milliseconds of `launch()` on the library's stream of a CUDA device (work
// queued before is finished first and not counted). A first launch may pay
// one-time costs (loading the kernel's module; another kernel's data in L2),
// so the candidate is launched a second time and the faster launch counts,
// except:
//   - `warm`: the caller has just run this kernel (one launch is its time);
//   - the first launch shows the candidate cannot beat `best_ms` (the
//     fastest rival so far) even if it paid the largest one-time cost seen
//     in this process, in milliseconds and as a ratio of first to second
//     launch (OneTimeCosts): (first − milliseconds) > ratio · best_ms. Its
//     first launch is returned. Before any cost has been seen, every
//     candidate gets its second launch.
// Launches under 1 ms always get a second (it costs less than the noise of
// timing one: launch overhead, clock resolution), and candidates under 0.05
// ms four more, timed after a hold of the stream as device_launch_ms times
// (their launch-to-launch spread, a few percent, and the host's time to
// queue them exceed the gaps between them); the fastest launch counts. A
// first launch that timed other candidates (the CSR SpMM picks its tile
// inside its first launch) is not counted; two launches after it are, unless
// the choice made inside reported the time of what it chose
// (report_chosen_ms): that time counts.
// `candidate` names what is timed (e.g. "spmm:h1:f128 v4s32r1"): with
// the environment variable SGNN_TUNING_LOG=1 each timing is written to
// stderr (its launches and wall time), to see what tuning costs.
double candidate_ms(Device device, const std::function<void()>& launch, std::string_view candidate = {},
                    double best_ms = std::numeric_limits<double>::infinity(), bool warm = false);

// A choice made inside a candidate's first launch (the CSR SpMM's tile, the
// padded path) reports the time of the launch it chose, when that launch is
// the whole op the candidate runs: the candidate counts it instead of
// launching twice more (the CSR candidate of the format choice cost two
// 7 ms launches on the Reddit-scale graph). Ignored outside a first launch.
void report_chosen_ms(double milliseconds);

// The largest one-time costs of the candidates timed twice so far whose
// first launch timed nothing else: first − second launch (milliseconds, ≥ 0)
// and first ÷ second (ratio, ≥ 1); `seen` is false before the first.
struct OneTimeCosts {
  bool seen = false;
  double milliseconds = 0.0;
  double ratio = 1.0;
};
OneTimeCosts largest_one_time_costs();
// Forgets them (tests start from a known state).
void forget_one_time_costs();

// Counts the wall time of a tuning procedure's own work outside candidate_ms
// (e.g. running each candidate once untimed to choose its tiles) in
// timing_milliseconds, once, like a timing (nested scopes and timings count
// in the outermost). Finishes queued work first so that it is not counted.
class ScopedTuningTime {
 public:
  explicit ScopedTuningTime(Device device);
  ~ScopedTuningTime();
  ScopedTuningTime(const ScopedTuningTime&) = delete;
  ScopedTuningTime& operator=(const ScopedTuningTime&) = delete;

 private:
  int64_t start_microseconds_;
  bool outermost_;
};

// Times the direct and the zero-padded path of one op call (the CSR SpMM's
// and SDDMM's, for widths off the 16-byte vector), each of which chooses its
// own kernels on its first call: runs each once inside a ScopedTuningTime,
// then one warm launch of each through candidate_ms ("<key> direct", "<key>
// padded"). True when the padded path was faster; `fastest_ms`, where
// given, gets the faster one's time.
bool padded_path_faster(Device device, std::string_view key, const std::function<void()>& direct,
                        const std::function<void()>& padded, double* fastest_ms = nullptr);

// How many candidates candidate_ms has timed in this process (for tests: a
// stored or recorded choice must not time again), and the wall time all
// tuning took (what measured choices cost a run; a timing inside another's
// launch is part of the outer one's time, not counted again).
int64_t candidates_timed();
double timing_milliseconds();

}  // namespace sgnn::ops
