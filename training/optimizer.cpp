#include "training/optimizer.hpp"

#include <cstring>

#include "core/replay_parameters.hpp"
#include "ops/cast.hpp"
#include "training/nn/module.hpp"

namespace sgnn::training {

namespace {

void check_rate(float value, const char* what) {
  SGNN_CHECK(value >= 0.0f, "optimizer: ", what, " must be >= 0, got ", value);
}

std::vector<ParameterGroup> one_group(std::vector<Tensor> parameters) {
  return {ParameterGroup{std::move(parameters), std::nullopt, std::nullopt, {}}};
}

Tensor step_tensor(int64_t value) { return Tensor::from_vector<int64_t>({value}, {1}); }

int64_t read_step(const Tensor& tensor, std::size_t position) {
  SGNN_CHECK(tensor.defined() && tensor.dtype() == DType::Int64 && tensor.shape() == Shape{1},
             "load_state: entry ", position, " must be a step count (int64 [1])");
  const int64_t value = tensor.to_vector<int64_t>().at(0);
  SGNN_CHECK(value >= 0, "load_state: entry ", position, " holds a negative step count ", value);
  return value;
}

}  // namespace

Optimizer::Optimizer(std::vector<ParameterGroup> groups, float learning_rate, float weight_decay, int slots)
    : groups_(std::move(groups)), learning_rate_(learning_rate), weight_decay_(weight_decay) {
  check_rate(learning_rate_, "learning_rate");
  check_rate(weight_decay_, "weight_decay");
  SGNN_CHECK(!groups_.empty(), "optimizer: needs at least one parameter group");
  std::vector<const Tensor*> seen;
  for (std::size_t g = 0; g < groups_.size(); ++g) {
    const ParameterGroup& group = groups_[g];
    if (group.learning_rate) check_rate(*group.learning_rate, "a group's learning_rate");
    if (group.weight_decay) check_rate(*group.weight_decay, "a group's weight_decay");
    SGNN_CHECK(group.compute_copies.empty() || group.compute_copies.size() == group.parameters.size(),
               "optimizer: group ", g, " has ", group.compute_copies.size(), " compute copies for ",
               group.parameters.size(), " parameters");
    for (std::size_t i = 0; i < group.parameters.size(); ++i) {
      const Tensor& parameter = group.parameters[i];
      check_dtype(parameter, DType::Float32, "optimizer", "parameter");
      const Tensor copy = group.compute_copies.empty() ? Tensor() : group.compute_copies[i];
      if (copy.defined()) {
        check_dtype(copy, DType::BFloat16, "optimizer", "compute copy");
        SGNN_CHECK(copy.shape() == parameter.shape() && copy.device() == parameter.device(),
                   "optimizer: the compute copy of parameter ", i, " of group ", g, " is ", shape_str(copy.shape()),
                   " on ", copy.device().str(), ", the parameter ", shape_str(parameter.shape()), " on ",
                   parameter.device().str());
      }
      compute_copies_.push_back(copy);
      for (const Tensor* other : seen) {
        SGNN_CHECK(!(other->shares_storage_with(parameter) && other->raw_data() == parameter.raw_data()),
                   "optimizer: parameter ", i, " of group ", g, " appears more than once");
      }
      seen.push_back(&parameter);
      std::vector<Tensor> state;
      for (int s = 0; s < slots; ++s) state.push_back(Tensor::zeros(parameter.shape(), DType::Float32, parameter.device()));
      slots_.push_back(std::move(state));
      parameter_steps_.push_back(0);
    }
  }
}

void Optimizer::step() {
  begin_step();
  // Recording a captured step: the counters advance once per launch instead.
  ReplayParameters* replay = ReplayParameters::active();
  if (replay != nullptr) {
    replay->on_launch([this] { ++step_count_; });
  } else {
    ++step_count_;
  }
  std::size_t position = 0;
  for (ParameterGroup& group : groups_) {
    const float learning_rate = group.learning_rate.value_or(learning_rate_);
    const float weight_decay = group.weight_decay.value_or(weight_decay_);
    for (Tensor& parameter : group.parameters) {
      const std::size_t slot = position++;
      const Tensor gradient = parameter.grad();
      if (!gradient.defined()) continue;
      if (replay != nullptr) {
        // Registered before update()'s own refresh, so a launch counts first, then reads the count.
        replay->on_launch([this, slot] { ++parameter_steps_[slot]; });
        update(parameter, gradient, slots_[slot], slot, parameter_steps_[slot] + 1, learning_rate, weight_decay);
      } else {
        update(parameter, gradient, slots_[slot], slot, ++parameter_steps_[slot], learning_rate, weight_decay);
      }
    }
  }
  finish_step();
}

void Optimizer::zero_grad() {
  for (ParameterGroup& group : groups_) {
    for (Tensor& parameter : group.parameters) parameter.zero_grad();
  }
}

std::vector<Tensor> Optimizer::state() const {
  std::vector<Tensor> out{step_tensor(step_count_)};
  for (std::size_t p = 0; p < slots_.size(); ++p) {
    out.push_back(step_tensor(parameter_steps_[p]));
    for (const Tensor& slot : slots_[p]) out.push_back(slot.to(Device::cpu()).clone());
  }
  return out;
}

void Optimizer::load_state(const std::vector<Tensor>& state) {
  std::size_t expected = 1;
  for (const std::vector<Tensor>& slots : slots_) expected += 1 + slots.size();
  SGNN_CHECK(state.size() == expected, "load_state: expected ", expected, " tensors, got ", state.size(),
             " (a state from another model or optimizer?)");
  // Check everything first, then assign: a failed load changes nothing.
  const int64_t steps = read_step(state[0], 0);
  std::vector<int64_t> parameter_steps;
  std::size_t position = 1;
  for (const std::vector<Tensor>& slots : slots_) {
    parameter_steps.push_back(read_step(state[position], position));
    ++position;
    for (const Tensor& slot : slots) {
      const Tensor& saved = state[position];
      SGNN_CHECK(saved.defined() && saved.dtype() == DType::Float32 && saved.shape() == slot.shape(),
                 "load_state: entry ", position, " must be float32 ", shape_str(slot.shape()), ", got ",
                 saved.defined() ? shape_str(saved.shape()) : std::string("an undefined tensor"));
      ++position;
    }
  }
  position = 1;
  for (std::size_t p = 0; p < slots_.size(); ++p) {
    ++position;
    // Copied into the existing tensors: a captured step holds their addresses,
    // and the caller's tensors are never written by later updates.
    for (Tensor& slot : slots_[p]) copy_into(slot, state[position++]);
  }
  parameter_steps_ = std::move(parameter_steps);
  step_count_ = steps;
}

Sgd::Sgd(std::vector<ParameterGroup> groups, const ops::SgdHyperparameters& hyper)
    : Optimizer(std::move(groups), hyper.learning_rate, hyper.weight_decay, hyper.momentum > 0.0f ? 1 : 0),
      hyper_(hyper) {
  SGNN_CHECK(hyper.momentum >= 0.0f, "Sgd: momentum must be >= 0, got ", hyper.momentum);
  SGNN_CHECK(!hyper.nesterov || hyper.momentum > 0.0f, "Sgd: nesterov needs momentum > 0");
}

Sgd::Sgd(std::vector<Tensor> parameters, const ops::SgdHyperparameters& hyper)
    : Sgd(one_group(std::move(parameters)), hyper) {}

void Sgd::update(Tensor& parameter, const Tensor& gradient, std::vector<Tensor>& slots, std::size_t position,
                 int64_t /*step*/, float learning_rate, float weight_decay) {
  ops::SgdHyperparameters hyper = hyper_;
  hyper.learning_rate = learning_rate;
  hyper.weight_decay = weight_decay;
  // The buffer starts at zero, so momentum·0 + d = d: PyTorch's first step.
  Tensor no_buffer;
  ops::sgd_step(parameter, gradient, slots.empty() ? no_buffer : slots[0], hyper);
  if (Tensor& copy = compute_copy(position); copy.defined()) ops::cast_into(copy, parameter);
}

Adam::Adam(std::vector<ParameterGroup> groups, const ops::AdamHyperparameters& hyper)
    : Optimizer(std::move(groups), hyper.learning_rate, hyper.weight_decay, 2), hyper_(hyper) {
  SGNN_CHECK(hyper.beta1 >= 0.0f && hyper.beta1 < 1.0f, "Adam: beta1 must be in [0, 1), got ", hyper.beta1);
  SGNN_CHECK(hyper.beta2 >= 0.0f && hyper.beta2 < 1.0f, "Adam: beta2 must be in [0, 1), got ", hyper.beta2);
  SGNN_CHECK(hyper.epsilon >= 0.0f, "Adam: epsilon must be >= 0, got ", hyper.epsilon);
}

Adam::Adam(std::vector<Tensor> parameters, const ops::AdamHyperparameters& hyper)
    : Adam(one_group(std::move(parameters)), hyper) {}

void Adam::update(Tensor& parameter, const Tensor& gradient, std::vector<Tensor>& slots, std::size_t position,
                  int64_t step, float learning_rate, float weight_decay) {
  ops::AdamHyperparameters hyper = hyper_;
  hyper.learning_rate = learning_rate;
  hyper.weight_decay = weight_decay;
  const ops::AdamBiasCorrection* deferred = nullptr;
  if (ReplayParameters* replay = ReplayParameters::active()) {
    // The bias corrections of each launch's step count, from a replay slot.
    static_assert(sizeof(ops::AdamBiasCorrection) == sizeof(uint64_t), "one replay slot holds both scalars");
    const auto write = [](ReplayParameters::Slot& slot, const ops::AdamBiasCorrection& correction) {
      std::memcpy(slot.host, &correction, sizeof correction);
    };
    ReplayParameters::Slot& slot = replay->slot(&slots, [this, position, hyper, write](ReplayParameters::Slot& own) {
      write(own, ops::adam_bias_correction(parameter_step(position), hyper));
    });
    write(slot, ops::adam_bias_correction(step, hyper));
    deferred = reinterpret_cast<const ops::AdamBiasCorrection*>(slot.device);
  }
  Tensor& copy = compute_copy(position);
  pending_.push_back(
      PendingUpdate{&parameter, gradient, &slots, hyper, step, deferred, copy.defined() ? &copy : nullptr});
}

void Adam::finish_step() {
  // Taken out first: pending_ is empty again whatever the launch does.
  std::vector<PendingUpdate> batch = std::move(pending_);
  pending_.clear();
  std::vector<ops::AdamUpdate> updates;
  updates.reserve(batch.size());
  for (PendingUpdate& pending : batch) {
    updates.push_back(ops::AdamUpdate{pending.parameter, &pending.gradient, &(*pending.slots)[0], &(*pending.slots)[1],
                                      pending.hyper, pending.step, pending.bias_correction, pending.compute_copy});
  }
  ops::adam_step_many(updates);
}

ops::AdamHyperparameters AdamW::defaults() {
  ops::AdamHyperparameters hyper;
  hyper.weight_decay = 0.01f;
  hyper.decoupled_weight_decay = true;
  return hyper;
}

namespace {
ops::AdamHyperparameters decoupled(ops::AdamHyperparameters hyper) {
  hyper.decoupled_weight_decay = true;
  return hyper;
}
}  // namespace

AdamW::AdamW(std::vector<ParameterGroup> groups, ops::AdamHyperparameters hyper)
    : Adam(std::move(groups), decoupled(hyper)) {}

AdamW::AdamW(std::vector<Tensor> parameters, ops::AdamHyperparameters hyper)
    : Adam(std::move(parameters), decoupled(hyper)) {}

}  // namespace sgnn::training
