#include "core/autograd.hpp"

#include <unordered_map>
#include <unordered_set>

#ifdef SGNN_WITH_CUDA
#include "core/cuda/core_kernels.hpp"
#endif

namespace sgnn::autograd {

namespace {

thread_local bool grad_mode = true;

GradientObserver& gradient_observer() {
  static GradientObserver observer;
  return observer;
}

RecordObserver& record_observer() {
  static RecordObserver observer;
  return observer;
}

// Gradients are summed out of place: a gradient tensor may be shared (an add
// passes its output gradient to both inputs), so it is never modified.
// A bfloat16 sum is computed in float and rounded once, as on CUDA.
Tensor add_gradients(const Tensor& a, const Tensor& b) {
  Tensor sum = Tensor::empty_like(a);
  const int64_t n = a.numel();
  if (a.device().is_cuda()) {
#ifdef SGNN_WITH_CUDA
    detail::add_cuda(a.raw_data(), b.raw_data(), sum.raw_data(), a.dtype(), n, a.device());
#endif
    return sum;
  }
  visit_floating(a.dtype(), [&](auto element) {
    using T = decltype(element);
    const T* x = a.data<T>();
    const T* y = b.data<T>();
    T* out = sum.data<T>();
#pragma omp parallel for if (n > 65536)
    for (int64_t i = 0; i < n; ++i) out[i] = store_as<T>(load_float(x[i]) + load_float(y[i]));
  });
  return sum;
}

Tensor accumulate(const Tensor& existing, const Tensor& incoming) {
  return existing.defined() ? add_gradients(existing, incoming) : incoming;
}

void check_gradient(const Node& node, std::size_t input, const InputEdge& edge, const Tensor& gradient) {
  if (gradient.dtype() != edge.dtype || gradient.shape() != edge.shape || gradient.device() != edge.device) {
    throw AutogradError(detail::concat("backward of '", node.name(), "' returned a gradient of shape ",
                                       shape_str(gradient.shape()), " (", dtype_name(gradient.dtype()), ", ",
                                       gradient.device().str(), ") for input ", input, " of shape ",
                                       shape_str(edge.shape), " (", dtype_name(edge.dtype), ") on ",
                                       edge.device.str()));
  }
}

}  // namespace

Node::Node(std::string name, std::vector<InputEdge> inputs, BackwardFn backward)
    : name_(std::move(name)), inputs_(std::move(inputs)), backward_(std::move(backward)) {
  needs_grad_.reserve(inputs_.size());
  for (const InputEdge& edge : inputs_) needs_grad_.push_back(edge.needs_grad());
}

std::vector<Tensor> Node::apply(const Tensor& grad_output) {
  if (!backward_) {
    throw AutogradError("backward through '" + name_ +
                        "', whose saved tensors were freed by an earlier backward(); call backward(gradient, "
                        "/*retain_graph=*/true) the first time to run backward twice");
  }
  std::vector<Tensor> grads = backward_(grad_output, needs_grad_);
  if (grads.size() != inputs_.size()) {
    throw AutogradError(detail::concat("backward of '", name_, "' returned ", grads.size(), " gradients for ",
                                       inputs_.size(), " inputs"));
  }
  return grads;
}

bool grad_enabled() { return grad_mode; }

NoGradGuard::NoGradGuard() : previous_(grad_mode) { grad_mode = false; }
NoGradGuard::~NoGradGuard() { grad_mode = previous_; }

bool needs_recording(std::initializer_list<std::reference_wrapper<const Tensor>> inputs) {
  if (!grad_mode) return false;
  for (const Tensor& input : inputs) {
    if (input.requires_grad()) return true;
  }
  return false;
}

void record(std::string_view name, const std::vector<Tensor>& inputs, Tensor& output, BackwardFn backward) {
  std::vector<InputEdge> edges;
  edges.reserve(inputs.size());
  for (const Tensor& input : inputs) {
    InputEdge edge;
    if (input.defined() && input.requires_grad()) {
      if (input.grad_fn()) edge.producer = input.grad_fn();
      else edge.leaf = input.autograd_meta();
      edge.shape = input.shape();
      edge.dtype = input.dtype();
      edge.device = input.device();
    }
    edges.push_back(std::move(edge));
  }
  auto meta = std::make_shared<AutogradMeta>();
  meta->requires_grad = true;
  meta->grad_fn = std::make_shared<Node>(std::string(name), std::move(edges), std::move(backward));
  output.set_autograd_meta(std::move(meta));
  if (const RecordObserver& observer = record_observer()) observer(*output.grad_fn(), output);
}

void set_gradient_observer(GradientObserver observer) { gradient_observer() = std::move(observer); }

void set_record_observer(RecordObserver observer) { record_observer() = std::move(observer); }

void run_backward(const Tensor& root, const Tensor& gradient, bool retain_graph) {
  check_defined(root, "backward", "self");
  if (!root.requires_grad()) {
    throw AutogradError("backward() on a tensor that does not require gradients: none of the tensors it "
                        "was computed from has requires_grad set, or it was computed under NoGradGuard");
  }
  Tensor seed = gradient;
  if (!seed.defined()) {
    if (root.numel() != 1) {
      throw AutogradError("backward() on a tensor of shape " + shape_str(root.shape()) +
                          " needs a gradient of that shape; only a one-element tensor (a loss) gets the "
                          "implicit gradient 1");
    }
    seed = Tensor::full(root.shape(), 1.0, root.dtype(), root.device());
  }
  if (seed.shape() != root.shape() || seed.dtype() != root.dtype() || seed.device() != root.device()) {
    throw AutogradError("backward(): gradient of shape " + shape_str(seed.shape()) + " (" +
                        std::string(dtype_name(seed.dtype())) + ") on " + seed.device().str() +
                        " does not match the tensor's shape " + shape_str(root.shape()) + " (" +
                        std::string(dtype_name(root.dtype())) + ") on " + root.device().str());
  }

  NoGradGuard no_grad;  // backward computations build no tape
  const std::shared_ptr<Node>& root_node = root.grad_fn();
  if (!root_node) {  // the root is a leaf
    root.autograd_meta()->grad = accumulate(root.autograd_meta()->grad, seed);
    return;
  }

  // Count, for every reachable node, how many edges deliver gradients to it.
  std::unordered_map<Node*, int> pending_inputs;
  std::vector<Node*> stack{root_node.get()};
  std::unordered_set<Node*> seen{root_node.get()};
  while (!stack.empty()) {
    Node* node = stack.back();
    stack.pop_back();
    for (const InputEdge& edge : node->inputs()) {
      if (!edge.producer) continue;
      Node* producer = edge.producer.get();
      ++pending_inputs[producer];
      if (seen.insert(producer).second) stack.push_back(producer);
    }
  }

  // Kahn's algorithm: a node runs once every consumer has delivered its gradient.
  std::unordered_map<Node*, Tensor> gradients{{root_node.get(), seed}};
  std::vector<Node*> ready{root_node.get()};
  const GradientObserver& observer = gradient_observer();
  while (!ready.empty()) {
    Node* node = ready.back();
    ready.pop_back();
    Tensor grad_output = std::move(gradients[node]);
    gradients.erase(node);
    std::vector<Tensor> grads;
    if (grad_output.defined()) grads = node->apply(grad_output);
    if (!retain_graph) node->release();
    const std::vector<InputEdge>& edges = node->inputs();
    for (std::size_t i = 0; i < edges.size(); ++i) {
      const InputEdge& edge = edges[i];
      if (!edge.needs_grad()) continue;
      const Tensor grad = grads.empty() ? Tensor() : grads[i];
      if (grad.defined()) {
        check_gradient(*node, i, edge, grad);
        if (observer) observer(*node, i, grad);
      }
      if (edge.leaf) {
        if (grad.defined()) edge.leaf->grad = accumulate(edge.leaf->grad, grad);
        continue;
      }
      Node* producer = edge.producer.get();
      if (grad.defined()) gradients[producer] = accumulate(gradients[producer], grad);
      if (--pending_inputs[producer] == 0) ready.push_back(producer);
    }
  }
}

}  // namespace sgnn::autograd
