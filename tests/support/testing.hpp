// Helpers shared by the test suites: random inputs, comparisons against
// float64 references, finite-difference gradient checks.
#pragma once

#include <cstdint>
#include <functional>
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

// ‖got − reference‖₂ / ‖reference‖₂ in float64 (‖got − reference‖₂ when the
// reference is zero). NaN anywhere gives +inf.
double relative_error(const Tensor& got, const std::vector<double>& reference);
double relative_error(const Tensor& got, const Tensor& reference);

std::vector<double> to_double(const Tensor& tensor);

// Compares the gradients that backward() gives for every input with
// requires_grad against central finite differences of L = Σ w ⊙ f(inputs)
// (w random and fixed). Inputs must be CPU float32 leaves. Returns the
// largest relative error over the inputs.
double gradient_error(const std::function<Tensor(const std::vector<Tensor>&)>& f, std::vector<Tensor> inputs,
                      double epsilon = 1e-3, uint64_t seed = 7);

}  // namespace sgnn::testing
