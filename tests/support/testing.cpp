#include "tests/support/testing.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "core/autograd.hpp"
#include "core/error.hpp"

namespace sgnn::testing {

Tensor random_tensor(const Shape& shape, uint64_t seed, double low, double high, Device device) {
  std::mt19937_64 engine(seed);
  std::uniform_real_distribution<float> distribution(static_cast<float>(low), static_cast<float>(high));
  std::vector<float> values(static_cast<std::size_t>(shape_numel(shape)));
  for (float& value : values) value = distribution(engine);
  return Tensor::from_vector(values, shape, device);
}

Tensor random_indices(const Shape& shape, uint64_t seed, int64_t low, int64_t high, DType dtype, Device device) {
  std::mt19937_64 engine(seed);
  std::uniform_int_distribution<int64_t> distribution(low, high - 1);
  const std::size_t count = static_cast<std::size_t>(shape_numel(shape));
  if (dtype == DType::Int32) {
    std::vector<int32_t> values(count);
    for (int32_t& value : values) value = static_cast<int32_t>(distribution(engine));
    return Tensor::from_vector(values, shape, device);
  }
  std::vector<int64_t> values(count);
  for (int64_t& value : values) value = distribution(engine);
  return Tensor::from_vector(values, shape, device);
}

Tensor poisoned(const Shape& shape, Device device) {
  return Tensor::full(shape, std::numeric_limits<double>::quiet_NaN(), DType::Float32, device);
}

std::vector<double> to_double(const Tensor& tensor) {
  switch (tensor.dtype()) {
    case DType::Float32: {
      const std::vector<float> v = tensor.to_vector<float>();
      return {v.begin(), v.end()};
    }
    case DType::Int32: {
      const std::vector<int32_t> v = tensor.to_vector<int32_t>();
      return {v.begin(), v.end()};
    }
    case DType::Int64: {
      const std::vector<int64_t> v = tensor.to_vector<int64_t>();
      std::vector<double> out(v.size());
      for (std::size_t i = 0; i < v.size(); ++i) out[i] = static_cast<double>(v[i]);
      return out;
    }
    case DType::BFloat16: {
      std::vector<double> out;
      for (const bfloat16 value : tensor.to_vector<bfloat16>()) out.push_back(static_cast<double>(value.to_float()));
      return out;
    }
  }
  return {};
}

double worst_bound_ratio(const Tensor& got, const std::vector<double>& reference, const std::vector<double>& bound) {
  const std::vector<double> values = to_double(got);
  if (values.size() != reference.size() || bound.size() != reference.size()) {
    return std::numeric_limits<double>::infinity();
  }
  double worst = 0.0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    const double error = std::abs(values[i] - reference[i]);
    if (error == 0.0) continue;
    if (!std::isfinite(error) || !(bound[i] > 0.0)) return std::numeric_limits<double>::infinity();
    worst = std::max(worst, error / bound[i]);
  }
  return worst;
}

std::string invalid_argument_message(const std::function<void()>& call) {
  try {
    call();
  } catch (const InvalidArgument& error) {
    return error.what();
  }
  return "no error";
}

double relative_error(const Tensor& got, const std::vector<double>& reference) {
  const std::vector<double> values = to_double(got);
  if (values.size() != reference.size()) return std::numeric_limits<double>::infinity();
  double difference = 0.0;
  double norm = 0.0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (!std::isfinite(values[i]) && values[i] != reference[i]) return std::numeric_limits<double>::infinity();
    const double d = values[i] - reference[i];
    difference += d * d;
    norm += reference[i] * reference[i];
  }
  return norm > 0.0 ? std::sqrt(difference / norm) : std::sqrt(difference);
}

double relative_error(const Tensor& got, const Tensor& reference) {
  if (got.shape() != reference.shape()) return std::numeric_limits<double>::infinity();
  return relative_error(got, to_double(reference));
}

double gradient_error(const std::function<Tensor(const std::vector<Tensor>&)>& f, std::vector<Tensor> inputs,
                      double epsilon, uint64_t seed) {
  for (Tensor& input : inputs) input.zero_grad();
  const Tensor output = f(inputs);
  const Tensor weights = random_tensor(output.shape(), seed, -1.0, 1.0, output.device());
  output.backward(weights);
  const std::vector<double> w = to_double(weights);

  auto loss = [&]() {
    autograd::NoGradGuard no_grad;
    const std::vector<double> values = to_double(f(inputs));
    double sum = 0.0;
    for (std::size_t i = 0; i < values.size(); ++i) sum += w[i] * values[i];
    return sum;
  };

  double worst = 0.0;
  for (Tensor& input : inputs) {
    if (!input.requires_grad()) continue;
    if (!input.grad().defined()) return std::numeric_limits<double>::infinity();
    float* data = input.data<float>();
    std::vector<double> numeric(static_cast<std::size_t>(input.numel()));
    for (int64_t i = 0; i < input.numel(); ++i) {
      const float saved = data[i];
      data[i] = saved + static_cast<float>(epsilon);
      const double plus = loss();
      data[i] = saved - static_cast<float>(epsilon);
      const double minus = loss();
      data[i] = saved;
      numeric[static_cast<std::size_t>(i)] = (plus - minus) / (2.0 * epsilon);
    }
    worst = std::max(worst, relative_error(input.grad(), numeric));
  }
  return worst;
}

}  // namespace sgnn::testing
