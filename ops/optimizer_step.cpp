#include "ops/optimizer_step.hpp"

#include <cmath>

#include "ops/optimizer_step_backend.hpp"

namespace sgnn::ops {

namespace {

void check_parameter_and_gradient(const char* op, const Tensor& parameter, const Tensor& gradient) {
  check_dtype(parameter, DType::Float32, op, "parameter");
  check_dtype(gradient, DType::Float32, op, "gradient");
  check_same_device(parameter, gradient, op);
  SGNN_CHECK(parameter.shape() == gradient.shape(), op, ": gradient shape ", shape_str(gradient.shape()),
             " differs from parameter shape ", shape_str(parameter.shape()));
}

// A state tensor: allocated as zeros when undefined, else checked against the parameter.
void prepare_state(const char* op, const char* name, const Tensor& parameter, Tensor& state) {
  if (!state.defined()) {
    state = Tensor::zeros(parameter.shape(), DType::Float32, parameter.device());
    return;
  }
  check_dtype(state, DType::Float32, op, name);
  check_same_device(parameter, state, op);
  SGNN_CHECK(state.shape() == parameter.shape(), op, ": ", name, " shape ", shape_str(state.shape()),
             " differs from parameter shape ", shape_str(parameter.shape()));
}

}  // namespace

void sgd_step(Tensor& parameter, const Tensor& gradient, Tensor& momentum_buffer, const SgdHyperparameters& hyper) {
  constexpr const char* op = "sgd_step";
  check_parameter_and_gradient(op, parameter, gradient);
  SGNN_CHECK(hyper.learning_rate >= 0.0f, op, ": learning_rate must be >= 0, got ", hyper.learning_rate);
  SGNN_CHECK(hyper.momentum >= 0.0f, op, ": momentum must be >= 0, got ", hyper.momentum);
  SGNN_CHECK(hyper.weight_decay >= 0.0f, op, ": weight_decay must be >= 0, got ", hyper.weight_decay);
  SGNN_CHECK(!hyper.nesterov || hyper.momentum > 0.0f, op, ": nesterov needs momentum > 0");
  bool first_step = false;
  if (hyper.momentum > 0.0f) {
    first_step = !momentum_buffer.defined();
    prepare_state(op, "momentum_buffer", parameter, momentum_buffer);
  }
  SGNN_DISPATCH(parameter.device(), sgd_update, parameter, gradient, momentum_buffer, hyper, first_step);
}

namespace {

// Checks shared by adam_step and adam_step_deferred; the scalars without the
// step-dependent ones.
AdamScalars checked_adam_scalars(const char* op, Tensor& parameter, const Tensor& gradient, Tensor& first_moment,
                                 Tensor& second_moment, const AdamHyperparameters& hyper) {
  check_parameter_and_gradient(op, parameter, gradient);
  SGNN_CHECK(hyper.learning_rate >= 0.0f, op, ": learning_rate must be >= 0, got ", hyper.learning_rate);
  SGNN_CHECK(hyper.beta1 >= 0.0f && hyper.beta1 < 1.0f, op, ": beta1 must be in [0, 1), got ", hyper.beta1);
  SGNN_CHECK(hyper.beta2 >= 0.0f && hyper.beta2 < 1.0f, op, ": beta2 must be in [0, 1), got ", hyper.beta2);
  SGNN_CHECK(hyper.epsilon >= 0.0f, op, ": epsilon must be >= 0, got ", hyper.epsilon);
  SGNN_CHECK(hyper.weight_decay >= 0.0f, op, ": weight_decay must be >= 0, got ", hyper.weight_decay);
  prepare_state(op, "first_moment", parameter, first_moment);
  prepare_state(op, "second_moment", parameter, second_moment);
  return AdamScalars{hyper.learning_rate, hyper.beta1,  hyper.beta2, hyper.epsilon, hyper.weight_decay,
                     hyper.decoupled_weight_decay, 0.0f, 0.0f};
}

}  // namespace

AdamBiasCorrection adam_bias_correction(int64_t step, const AdamHyperparameters& hyper) {
  const double t = static_cast<double>(step);
  const double bias_correction1 = 1.0 - std::pow(static_cast<double>(hyper.beta1), t);
  const double bias_correction2 = 1.0 - std::pow(static_cast<double>(hyper.beta2), t);
  return AdamBiasCorrection{static_cast<float>(static_cast<double>(hyper.learning_rate) / bias_correction1),
                            static_cast<float>(std::sqrt(bias_correction2))};
}

void adam_step(Tensor& parameter, const Tensor& gradient, Tensor& first_moment, Tensor& second_moment, int64_t step,
               const AdamHyperparameters& hyper) {
  constexpr const char* op = "adam_step";
  SGNN_CHECK(step >= 1, op, ": step is 1-based, got ", step);
  AdamScalars scalars = checked_adam_scalars(op, parameter, gradient, first_moment, second_moment, hyper);
  const AdamBiasCorrection correction = adam_bias_correction(step, hyper);
  scalars.step_size = correction.step_size;
  scalars.bias_correction2_sqrt = correction.bias_correction2_sqrt;
  SGNN_DISPATCH(parameter.device(), adam_update, parameter, gradient, first_moment, second_moment, scalars,
                nullptr);
}

void adam_step_deferred(Tensor& parameter, const Tensor& gradient, Tensor& first_moment, Tensor& second_moment,
                        const AdamBiasCorrection* bias_correction, const AdamHyperparameters& hyper) {
  constexpr const char* op = "adam_step_deferred";
  SGNN_CHECK(bias_correction != nullptr, op, ": bias_correction is null");
  const AdamScalars scalars = checked_adam_scalars(op, parameter, gradient, first_moment, second_moment, hyper);
  SGNN_DISPATCH(parameter.device(), adam_update, parameter, gradient, first_moment, second_moment, scalars,
                bias_correction);
}

void adam_step_many(const std::vector<AdamUpdate>& updates) {
  constexpr const char* op = "adam_step_many";
  if (updates.empty()) return;
  std::vector<AdamTensorArguments> arguments;
  arguments.reserve(updates.size());
  Device device = Device::cpu();
  for (std::size_t i = 0; i < updates.size(); ++i) {
    const AdamUpdate& update = updates[i];
    SGNN_CHECK(update.parameter != nullptr && update.gradient != nullptr && update.first_moment != nullptr &&
                   update.second_moment != nullptr,
               op, ": entry ", i, " has a null tensor pointer");
    AdamScalars scalars = checked_adam_scalars(op, *update.parameter, *update.gradient, *update.first_moment,
                                               *update.second_moment, update.hyper);
    if (i == 0) device = update.parameter->device();
    SGNN_CHECK(update.parameter->device() == device, op, ": entry ", i, " is on ",
               update.parameter->device().str(), ", entry 0 on ", device.str());
    if (update.bias_correction == nullptr) {
      SGNN_CHECK(update.step >= 1, op, ": entry ", i, ": step is 1-based, got ", update.step);
      const AdamBiasCorrection correction = adam_bias_correction(update.step, update.hyper);
      scalars.step_size = correction.step_size;
      scalars.bias_correction2_sqrt = correction.bias_correction2_sqrt;
    }
    bfloat16* copy = nullptr;
    if (update.compute_copy != nullptr) {
      const Tensor& compute_copy = *update.compute_copy;
      check_dtype(compute_copy, DType::BFloat16, op, "compute_copy");
      SGNN_CHECK(compute_copy.shape() == update.parameter->shape() &&
                     compute_copy.device() == update.parameter->device(),
                 op, ": entry ", i, ": compute_copy ", shape_str(compute_copy.shape()), " on ",
                 compute_copy.device().str(), " does not match the parameter ", shape_str(update.parameter->shape()),
                 " on ", update.parameter->device().str());
      copy = compute_copy.data<bfloat16>();
    }
    arguments.push_back(AdamTensorArguments{update.parameter->data<float>(), update.gradient->data<float>(),
                                            update.first_moment->data<float>(), update.second_moment->data<float>(),
                                            update.parameter->numel(), scalars, update.bias_correction, copy});
  }
  SGNN_DISPATCH(device, adam_update_many, device, arguments);
}

}  // namespace sgnn::ops
