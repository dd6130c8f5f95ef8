// The autograd engine: a dynamic tape.
//
// An op whose inputs require gradients calls `record`, which gives its output
// a Node holding the op's backward function (and through its captures the
// tensors that backward needs). `Tensor::backward` runs the nodes reachable
// from the root in reverse topological order, sums the gradients of tensors
// used more than once, stores leaf gradients in `Tensor::grad()`, and frees
// each node's saved tensors unless asked to retain the graph. A gradient has
// the dtype, shape and device of its tensor (float32 or bfloat16; bfloat16
// gradients are summed in float and rounded once).
//
// Saved tensors must be captured detached (`t.detach()`): a node never holds
// a tensor that points back to a node, so graphs have no reference cycles.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/tensor.hpp"

namespace sgnn::autograd {

struct AutogradMeta {
  bool requires_grad = false;
  Tensor grad;                    // leaves: the accumulated gradient
  std::shared_ptr<Node> grad_fn;  // non-leaves: the node that produced the tensor
};

// Where the gradient of one input of a node goes.
struct InputEdge {
  std::shared_ptr<Node> producer;            // the input's node, when it is not a leaf
  std::shared_ptr<AutogradMeta> leaf;        // the leaf's state, when it is a leaf requiring grad
  Shape shape;                               // to validate the gradient
  DType dtype = DType::Float32;              // a gradient has its input's dtype (bfloat16 activations: bfloat16)
  Device device;
  bool needs_grad() const { return producer != nullptr || leaf != nullptr; }
};

// needs_grad[i]: whether input i wants a gradient; skip the work otherwise.
using NeedsGrad = std::vector<bool>;
// Returns one gradient per input, in order; undefined for inputs that need none.
using BackwardFn = std::function<std::vector<Tensor>(const Tensor& grad_output, const NeedsGrad& needs_grad)>;

class Node {
 public:
  Node(std::string name, std::vector<InputEdge> inputs, BackwardFn backward);
  const std::string& name() const { return name_; }
  const std::vector<InputEdge>& inputs() const { return inputs_; }
  // Runs the backward function. Throws AutogradError when released.
  std::vector<Tensor> apply(const Tensor& grad_output);
  // Drops the backward function and the tensors it saved.
  void release() { backward_ = nullptr; }
  bool released() const { return !backward_; }

 private:
  std::string name_;
  std::vector<InputEdge> inputs_;
  NeedsGrad needs_grad_;
  BackwardFn backward_;
};

// Whether ops record nodes now (false inside a NoGradGuard). Per thread.
bool grad_enabled();

// Disables recording for its scope: evaluation builds no tape.
class NoGradGuard {
 public:
  NoGradGuard();
  ~NoGradGuard();
  NoGradGuard(const NoGradGuard&) = delete;
  NoGradGuard& operator=(const NoGradGuard&) = delete;

 private:
  bool previous_;
};

// True when grad mode is on and at least one input requires gradients.
bool needs_recording(std::initializer_list<std::reference_wrapper<const Tensor>> inputs);

// Makes `output` the result of node `name` over `inputs` (undefined inputs are
// allowed and get no gradient). Call only when needs_recording() is true.
void record(std::string_view name, const std::vector<Tensor>& inputs, Tensor& output, BackwardFn backward);

// The engine behind Tensor::backward.
void run_backward(const Tensor& root, const Tensor& gradient, bool retain_graph);

// Observer called with each gradient a node produces (for numerical-fault
// checks); empty by default. Not thread safe: set it before training.
using GradientObserver = std::function<void(const Node& node, std::size_t input, const Tensor& gradient)>;
void set_gradient_observer(GradientObserver observer);

// Observer called by record() with each node it creates and the op's output
// (for numerical-fault checks after every recorded forward op); empty by
// default. It may throw: the op then throws. Not thread safe: set it before
// training.
using RecordObserver = std::function<void(const Node& node, const Tensor& output)>;
void set_record_observer(RecordObserver observer);

}  // namespace sgnn::autograd
