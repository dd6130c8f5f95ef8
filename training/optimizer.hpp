// Optimizers: update parameters in place from their accumulated gradients,
// with PyTorch's semantics (torch.optim.SGD, Adam, AdamW).
//
// Parameters come in groups; a group may override the optimizer's learning
// rate and weight decay (e.g. no decay on biases). The optimizer holds tensor
// handles that share storage and gradients with the model's parameters, so
// build it after moving the model to its device. A parameter whose gradient
// is undefined at step() is skipped, its state untouched (as in PyTorch).
//
// state() / load_state() save and restore everything a resumed run needs, as
// host tensors in a fixed order (see each class); load_state checks counts,
// dtypes and shapes and throws InvalidArgument on any mismatch, changing
// nothing. load_state writes into the existing state tensors (their device
// addresses stay fixed, which a captured training step relies on).
//
// Captured steps (core/replay_parameters.hpp): under an active recording,
// step() does not advance the host counters; it registers refreshes that
// advance them once per launch, and Adam reads its bias corrections from a
// replay slot, so every replay uses the right step count.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "core/tensor.hpp"
#include "ops/optimizer_step.hpp"
#include "training/nn/parameter_group.hpp"

namespace sgnn::training {

class Optimizer {
 public:
  virtual ~Optimizer() = default;
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;

  // One update of every parameter that has a gradient; step_count() + 1.
  virtual void step();
  // Drops every parameter's gradient (undefined, as set_to_none in PyTorch).
  void zero_grad();
  const std::vector<ParameterGroup>& groups() const { return groups_; }
  int64_t step_count() const { return step_count_; }

  // [step_count (int64 [1])], then per parameter, in group then parameter
  // order: how many updates it received (int64 [1]) and its state tensors
  // (float32, its shape). Host copies.
  virtual std::vector<Tensor> state() const;
  virtual void load_state(const std::vector<Tensor>& state);

 protected:
  // Groups must be non-empty and hold defined float32 tensors, none twice;
  // every learning rate and weight decay >= 0; compute copies bfloat16 of
  // their parameter's shape and device. `slots` state tensors of the
  // parameter's shape (float32, zeros, on its device) are kept per parameter.
  Optimizer(std::vector<ParameterGroup> groups, float learning_rate, float weight_decay, int slots);

  // Updates one parameter; `slots` is its state, `position` its index in
  // group then parameter order, `step` the 1-based count of its updates
  // including this one.
  virtual void update(Tensor& parameter, const Tensor& gradient, std::vector<Tensor>& slots, std::size_t position,
                      int64_t step, float learning_rate, float weight_decay) = 0;
  // Called at the start of step() and once at its end, after every
  // update(): an optimizer that batches its updates launches them in
  // finish_step (begin_step drops what an interrupted step left).
  virtual void begin_step() {}
  virtual void finish_step() {}
  // How many updates the parameter at `position` has received.
  int64_t parameter_step(std::size_t position) const { return parameter_steps_.at(position); }
  // The compute copy of the parameter at `position` (undefined: none).
  Tensor& compute_copy(std::size_t position) { return compute_copies_.at(position); }

 private:
  std::vector<ParameterGroup> groups_;
  float learning_rate_;
  float weight_decay_;
  std::vector<std::vector<Tensor>> slots_;  // per parameter, group order
  std::vector<int64_t> parameter_steps_;    // per parameter, group order
  std::vector<Tensor> compute_copies_;      // per parameter, group order (undefined: none)
  int64_t step_count_ = 0;
};

// SGD with momentum and L2 weight decay. State per parameter: the momentum
// buffer when momentum > 0 (zeros before the first step, so the first step
// gives buf = d as in PyTorch), nothing otherwise.
class Sgd final : public Optimizer {
 public:
  Sgd(std::vector<ParameterGroup> groups, const ops::SgdHyperparameters& hyper);
  Sgd(std::vector<Tensor> parameters, const ops::SgdHyperparameters& hyper);

 private:
  void update(Tensor& parameter, const Tensor& gradient, std::vector<Tensor>& slots, std::size_t position,
              int64_t step, float learning_rate, float weight_decay) override;
  ops::SgdHyperparameters hyper_;
};

// Adam (weight decay added to the gradient, L2) and, with
// decoupled_weight_decay, AdamW. State per parameter: first moment, second
// moment (bias corrections use the parameter's own update count).
class Adam : public Optimizer {
 public:
  Adam(std::vector<ParameterGroup> groups, const ops::AdamHyperparameters& hyper = {});
  Adam(std::vector<Tensor> parameters, const ops::AdamHyperparameters& hyper = {});

 private:
  // Collected by update(), applied by finish_step() with one multi-tensor launch.
  struct PendingUpdate {
    Tensor* parameter;
    Tensor gradient;
    std::vector<Tensor>* slots;
    ops::AdamHyperparameters hyper;
    int64_t step;
    const ops::AdamBiasCorrection* bias_correction;  // replay slot while recording, else null
    Tensor* compute_copy;                            // written in the same pass; null: none
  };
  void update(Tensor& parameter, const Tensor& gradient, std::vector<Tensor>& slots, std::size_t position,
              int64_t step, float learning_rate, float weight_decay) override;
  void begin_step() override { pending_.clear(); }
  void finish_step() override;
  ops::AdamHyperparameters hyper_;
  std::vector<PendingUpdate> pending_;
};

// AdamW: Adam with decoupled weight decay (p ·= 1 − lr·wd before the update),
// PyTorch's default weight decay 0.01.
class AdamW final : public Adam {
 public:
  static ops::AdamHyperparameters defaults();  // lr 1e-3, betas (0.9, 0.999), eps 1e-8, wd 0.01
  AdamW(std::vector<ParameterGroup> groups, ops::AdamHyperparameters hyper = defaults());
  AdamW(std::vector<Tensor> parameters, ops::AdamHyperparameters hyper = defaults());
};

}  // namespace sgnn::training
