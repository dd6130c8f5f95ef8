// Module: the base of every layer and model. Holds named parameters (leaf
// tensors with requires_grad), named buffers (state that is not learned by
// gradients, such as BatchNorm's running statistics) and named submodules,
// the train/eval mode, and moves its parameters and buffers between devices.
//
// Parameters are registered as pointers to members of the derived layer, so a
// layer uses its own `weight_` in forward while the registry sees the same
// handle. Modules are neither copyable nor movable (the pointers must stay
// valid); hold them by std::shared_ptr.
//
// Names are dotted paths: "layers.0.weight". Registration order is the order
// of parameters() (and of the optimizer state and checkpoints).
//
// Precision (training/nn/precision.hpp): in BFloat16 every parameter (a float32
// master) has a bfloat16 compute copy that layers multiply with
// (ops::matmul_weight). The optimizer refreshes the copies in its update
// (ParameterGroup::compute_copies, filled by Model::parameter_groups); whoever
// writes masters otherwise (loading a checkpoint, restoring the best epoch)
// calls refresh_compute_copies().
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/tensor.hpp"
#include "training/nn/precision.hpp"

namespace sgnn::training {

class Module {
 public:
  Module() = default;
  virtual ~Module() = default;
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;
  Module(Module&&) = delete;
  Module& operator=(Module&&) = delete;

  // Every parameter of this module and its submodules, depth first in
  // registration order.
  std::vector<Tensor> parameters() const;
  std::vector<std::pair<std::string, Tensor>> named_parameters() const;
  // Every buffer of this module and its submodules, depth first in
  // registration order, with dotted names (as named_parameters).
  std::vector<std::pair<std::string, Tensor>> named_buffers() const;
  // Direct submodules with their names.
  const std::vector<std::pair<std::string, std::shared_ptr<Module>>>& children() const { return children_; }
  int64_t parameter_count() const;  // total number of elements

  // Mode: training (dropout active) or evaluation; applies to every submodule.
  void train(bool training = true);
  void eval() { train(false); }
  bool is_training() const { return training_; }

  // Moves every parameter to `device` (a fresh leaf with requires_grad there;
  // gradients are dropped), and every buffer. Call before building the
  // optimizer, which holds the parameter handles.
  void to(Device device);
  // The device of the parameters, or of the buffers for a module without
  // parameters (CPU for a module with neither).
  Device device() const;

  // Sets every parameter gradient to undefined.
  void zero_grad();

  // Sets the precision of this module and every submodule: BFloat16 creates
  // the compute copies (from the masters), Float32 drops them.
  void set_precision(Precision precision);
  Precision precision() const { return precision_; }
  // The dtype a layer's activations have at this precision.
  DType activation_dtype() const { return training::activation_dtype(precision_); }
  // The bfloat16 copy of `parameter` (a member registered by this module) in
  // BFloat16; undefined in Float32. InvalidArgument for another tensor.
  const Tensor& compute_copy(const Tensor& parameter) const;
  // Every compute copy in named_parameters() order (undefined in Float32).
  std::vector<Tensor> compute_copies() const;
  // Rewrites every compute copy from its master (after the masters changed
  // outside the optimizer). Nothing to do in Float32.
  void refresh_compute_copies();

 protected:
  // `parameter` must be a member of the derived module (it is updated in
  // place by to()). Marks it as a leaf requiring gradients. Names must be
  // unique within the module; InvalidArgument otherwise.
  void register_parameter(std::string name, Tensor& parameter);
  // `buffer` must be a member of the derived module (updated in place by
  // to()): state that is not a parameter, of any dtype. Moved by to() and
  // saved in checkpoints; never given gradients, an optimizer or a compute
  // copy. Names are unique among parameters, buffers and submodules.
  void register_buffer(std::string name, Tensor& buffer);
  template <typename M>
  std::shared_ptr<M> register_module(std::string name, std::shared_ptr<M> module) {
    add_child(std::move(name), module);
    return module;
  }

 private:
  void add_child(std::string name, std::shared_ptr<Module> module);
  void check_unique_name(const std::string& name) const;
  void collect(const std::string& prefix, std::vector<std::pair<std::string, Tensor*>>& out) const;
  void collect_buffers(const std::string& prefix, std::vector<std::pair<std::string, Tensor*>>& out) const;
  void collect_copies(std::vector<Tensor>& out) const;
  void make_compute_copies();

  std::vector<std::pair<std::string, Tensor*>> parameters_;
  std::vector<std::pair<std::string, Tensor*>> buffers_;
  std::vector<Tensor> compute_copies_;  // one per entry of parameters_ in BFloat16, none in Float32
  Precision precision_ = Precision::Fp32;
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> children_;
  bool training_ = true;
};

// Copies the values of `source` into `destination` in place (same shape and
// dtype, any devices): handles held elsewhere (the optimizer) see the new
// values. Used to restore the best parameters and to load checkpoints.
void copy_into(Tensor& destination, const Tensor& source);

}  // namespace sgnn::training
