// Helpers shared by the test suites: random inputs, comparisons against
// float64 references, finite-difference gradient checks.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/tensor.hpp"

namespace sgnn::testing {

// Uniform random float32 tensor in [low, high) on `device`, from a host
// generator seeded with `seed` (fresh inputs per test, reproducible).
Tensor random_tensor(const Shape& shape, uint64_t seed, double low = -1.0, double high = 1.0,
                     Device device = Device::cpu());
// Uniform random int64 (or int32) values in [low, high).
Tensor random_indices(const Shape& shape, uint64_t seed, int64_t low, int64_t high, DType dtype = DType::Int64,
                      Device device = Device::cpu());
// A tensor whose every element is NaN: outputs are poisoned with it before a
// kernel runs, so an element the kernel fails to write is caught.
Tensor poisoned(const Shape& shape, Device device);

// The message of the InvalidArgument that call() throws, "no error" when it throws none.
std::string invalid_argument_message(const std::function<void()>& call);

// ‖got − reference‖₂ / ‖reference‖₂ in float64 (‖got − reference‖₂ when the
// reference is zero). NaN anywhere gives +inf.
double relative_error(const Tensor& got, const std::vector<double>& reference);
double relative_error(const Tensor& got, const Tensor& reference);

std::vector<double> to_double(const Tensor& tensor);

// max_i |got_i − reference_i| / bound_i (0 when every difference is 0): at
// most 1 when every element is within its bound. NaN, a size mismatch or a
// non-zero error against a zero bound give +inf.
double worst_bound_ratio(const Tensor& got, const std::vector<double>& reference, const std::vector<double>& bound);

// Unit roundoff of bfloat16 (8 significant bits, round to nearest): a value
// stored as bfloat16 is off by at most this times its magnitude.
inline constexpr double kBf16UnitRoundoff = 1.0 / 256.0;
// Unit roundoff of float32 (24 significant bits).
inline constexpr double kFloatUnitRoundoff = 1.0 / 16777216.0;

// Compares the gradients that backward() gives for every input with
// requires_grad against central finite differences of L = Σ w ⊙ f(inputs)
// (w random and fixed). Inputs must be CPU float32 leaves. Returns the
// largest relative error over the inputs.
double gradient_error(const std::function<Tensor(const std::vector<Tensor>&)>& f, std::vector<Tensor> inputs,
                      double epsilon = 1e-3, uint64_t seed = 7);

}  // namespace sgnn::testing
