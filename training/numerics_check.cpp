#include "training/numerics_check.hpp"

#include <deque>
#include <unordered_set>

#include "ops/nonfinite_check.hpp"

namespace sgnn::training {

namespace {

bool enabled = false;
const LayerNaming* innermost_naming = nullptr;

std::string where(const autograd::Node& node, std::string_view direction) {
  std::string text;
  if (innermost_naming != nullptr) {
    const std::string layer = innermost_naming->layer_of(node);
    if (!layer.empty()) text = "layer " + layer + ", ";
  }
  return text + "op '" + node.name() + "' " + std::string(direction);
}

void check_output(const autograd::Node& node, const Tensor& output) {
  ops::require_finite(output, where(node, "forward") + ": the output");
}

void check_gradient(const autograd::Node& node, std::size_t input, const Tensor& gradient) {
  ops::require_finite(gradient, where(node, "backward") + ": the gradient of input " + std::to_string(input));
}

}  // namespace

void set_check_numerics(bool enable) {
  enabled = enable;
  autograd::set_record_observer(enable ? autograd::RecordObserver(check_output) : autograd::RecordObserver());
  autograd::set_gradient_observer(enable ? autograd::GradientObserver(check_gradient)
                                         : autograd::GradientObserver());
}

bool check_numerics() { return enabled; }

CheckNumericsScope::CheckNumericsScope(bool enable) : previous_(enabled) { set_check_numerics(enable); }
CheckNumericsScope::~CheckNumericsScope() { set_check_numerics(previous_); }

LayerNaming::LayerNaming(const Module& model) : previous_(innermost_naming) {
  for (const auto& [name, parameter] : model.named_parameters()) {
    const std::size_t dot = name.rfind('.');
    layer_of_parameter_[parameter.autograd_meta().get()] = dot == std::string::npos ? name : name.substr(0, dot);
  }
  innermost_naming = this;
}

LayerNaming::~LayerNaming() { innermost_naming = previous_; }

std::string LayerNaming::layer_of(const autograd::Node& node) const {
  std::deque<const autograd::Node*> queue{&node};
  std::unordered_set<const autograd::Node*> seen{&node};
  while (!queue.empty()) {
    const autograd::Node* current = queue.front();
    queue.pop_front();
    for (const autograd::InputEdge& edge : current->inputs()) {
      if (!edge.leaf) continue;
      const auto found = layer_of_parameter_.find(edge.leaf.get());
      if (found != layer_of_parameter_.end()) return found->second;
    }
    for (const autograd::InputEdge& edge : current->inputs()) {
      if (edge.producer && seen.insert(edge.producer.get()).second) queue.push_back(edge.producer.get());
    }
  }
  return "";
}

}  // namespace sgnn::training
