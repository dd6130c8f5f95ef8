// The numerics check mode: an opt-in hunt for the op that first produces a
// NaN or Inf.
//
// While enabled, every op that records an autograd node (every op on the
// training path) checks its output after the forward, and every backward
// checks each gradient it returns; the first non-finite value throws
// NumericalError naming the op and the direction ("op 'spmm' backward: the
// gradient of input 1 ..."). Inside a LayerNaming scope the message also names
// the layer: the module owning the parameter nearest upstream of the op. The
// trainer opens that scope and adds the epoch.
//
// Cost when enabled: one reduction and one 16-byte device-to-host read per
// op and per gradient (ops/nonfinite_check.hpp), which synchronises every op:
// for debugging, not for timing, and not inside a CUDA Graph capture. When
// disabled: nothing. Process-wide, not thread safe: set it before training.
#pragma once

#include <string>
#include <unordered_map>

#include "core/autograd.hpp"
#include "training/nn/module.hpp"

namespace sgnn::training {

void set_check_numerics(bool enabled);
bool check_numerics();

// Sets the mode for its scope and restores the previous one.
class CheckNumericsScope {
 public:
  explicit CheckNumericsScope(bool enabled);
  ~CheckNumericsScope();
  CheckNumericsScope(const CheckNumericsScope&) = delete;
  CheckNumericsScope& operator=(const CheckNumericsScope&) = delete;

 private:
  bool previous_;
};

// While alive, check-mode errors name the layer of `model` ("layers.1") in
// which the failing op sits. `model` must outlive the scope. Scopes nest (the
// innermost names).
class LayerNaming {
 public:
  explicit LayerNaming(const Module& model);
  ~LayerNaming();
  LayerNaming(const LayerNaming&) = delete;
  LayerNaming& operator=(const LayerNaming&) = delete;

  // The module path ("layers.1") of the parameter nearest upstream of `node`
  // (its own parameter inputs first, then breadth first through the tape);
  // empty when no parameter of the model is upstream.
  std::string layer_of(const autograd::Node& node) const;

 private:
  const LayerNaming* previous_;
  std::unordered_map<const autograd::AutogradMeta*, std::string> layer_of_parameter_;
};

}  // namespace sgnn::training
