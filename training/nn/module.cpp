#include "training/nn/module.hpp"

#include "core/memory.hpp"
#include "ops/cast.hpp"

namespace sgnn::training {

void Module::register_parameter(std::string name, Tensor& parameter) {
  check_unique_name(name);
  SGNN_CHECK(parameter.defined(), "Module::register_parameter: parameter \"", name, "\" is undefined");
  SGNN_CHECK(parameter.dtype() == DType::Float32, "Module::register_parameter: parameter \"", name,
             "\" must be float32, got ", dtype_name(parameter.dtype()));
  parameter = parameter.detach();
  parameter.set_requires_grad(true);
  parameters_.emplace_back(std::move(name), &parameter);
  make_compute_copies();
}

void Module::register_buffer(std::string name, Tensor& buffer) {
  check_unique_name(name);
  SGNN_CHECK(buffer.defined(), "Module::register_buffer: buffer \"", name, "\" is undefined");
  buffer = buffer.detach();
  buffers_.emplace_back(std::move(name), &buffer);
}

void Module::add_child(std::string name, std::shared_ptr<Module> module) {
  check_unique_name(name);
  SGNN_CHECK(module != nullptr, "Module::register_module: submodule \"", name, "\" is null");
  module->train(training_);
  module->set_precision(precision_);
  children_.emplace_back(std::move(name), std::move(module));
}

void Module::check_unique_name(const std::string& name) const {
  SGNN_CHECK(!name.empty() && name.find('.') == std::string::npos, "Module: name \"", name,
             "\" must be non-empty and contain no '.'");
  for (const auto& entry : parameters_) {
    SGNN_CHECK(entry.first != name, "Module: name \"", name, "\" is already a parameter");
  }
  for (const auto& entry : buffers_) {
    SGNN_CHECK(entry.first != name, "Module: name \"", name, "\" is already a buffer");
  }
  for (const auto& entry : children_) {
    SGNN_CHECK(entry.first != name, "Module: name \"", name, "\" is already a submodule");
  }
}

void Module::collect(const std::string& prefix, std::vector<std::pair<std::string, Tensor*>>& out) const {
  for (const auto& [name, parameter] : parameters_) out.emplace_back(prefix + name, parameter);
  for (const auto& [name, child] : children_) child->collect(prefix + name + ".", out);
}

void Module::collect_buffers(const std::string& prefix, std::vector<std::pair<std::string, Tensor*>>& out) const {
  for (const auto& [name, buffer] : buffers_) out.emplace_back(prefix + name, buffer);
  for (const auto& [name, child] : children_) child->collect_buffers(prefix + name + ".", out);
}

namespace {
std::vector<std::pair<std::string, Tensor>> dereferenced(const std::vector<std::pair<std::string, Tensor*>>& pointers) {
  std::vector<std::pair<std::string, Tensor>> out;
  out.reserve(pointers.size());
  for (const auto& [name, tensor] : pointers) out.emplace_back(name, *tensor);
  return out;
}
}  // namespace

std::vector<std::pair<std::string, Tensor>> Module::named_parameters() const {
  std::vector<std::pair<std::string, Tensor*>> pointers;
  collect("", pointers);
  return dereferenced(pointers);
}

std::vector<std::pair<std::string, Tensor>> Module::named_buffers() const {
  std::vector<std::pair<std::string, Tensor*>> pointers;
  collect_buffers("", pointers);
  return dereferenced(pointers);
}

std::vector<Tensor> Module::parameters() const {
  std::vector<Tensor> out;
  for (const auto& entry : named_parameters()) out.push_back(entry.second);
  return out;
}

int64_t Module::parameter_count() const {
  int64_t count = 0;
  for (const Tensor& parameter : parameters()) count += parameter.numel();
  return count;
}

void Module::train(bool training) {
  training_ = training;
  for (const auto& entry : children_) entry.second->train(training);
}

void Module::to(Device device) {
  std::vector<std::pair<std::string, Tensor*>> pointers;
  collect("", pointers);
  for (const auto& entry : pointers) {
    Tensor& parameter = *entry.second;
    if (parameter.device() == device) continue;
    parameter = parameter.detach().to(device);
    parameter.set_requires_grad(true);
  }
  std::vector<std::pair<std::string, Tensor*>> buffers;
  collect_buffers("", buffers);
  for (const auto& entry : buffers) *entry.second = entry.second->to(device);
  set_precision(precision_);  // the copies follow their masters
}

Device Module::device() const {
  const std::vector<Tensor> all = parameters();
  if (!all.empty()) return all.front().device();
  const auto buffers = named_buffers();
  return buffers.empty() ? Device::cpu() : buffers.front().second.device();
}

void Module::zero_grad() {
  for (Tensor& parameter : parameters()) parameter.zero_grad();
}

void Module::make_compute_copies() {
  compute_copies_.clear();
  if (precision_ == Precision::Fp32) return;
  for (const auto& entry : parameters_) {
    const Tensor& master = *entry.second;
    compute_copies_.push_back(Tensor::empty(master.shape(), DType::BFloat16, master.device()));
    ops::cast_into(compute_copies_.back(), master);
  }
}

void Module::set_precision(Precision precision) {
  precision_ = precision;
  make_compute_copies();
  for (const auto& entry : children_) entry.second->set_precision(precision);
}

const Tensor& Module::compute_copy(const Tensor& parameter) const {
  static const Tensor none;
  for (std::size_t i = 0; i < parameters_.size(); ++i) {
    if (parameters_[i].second == &parameter) return compute_copies_.empty() ? none : compute_copies_[i];
  }
  throw InvalidArgument("Module::compute_copy: the tensor is not a parameter registered by this module");
}

void Module::collect_copies(std::vector<Tensor>& out) const {
  for (std::size_t i = 0; i < parameters_.size(); ++i) {
    out.push_back(compute_copies_.empty() ? Tensor() : compute_copies_[i]);
  }
  for (const auto& entry : children_) entry.second->collect_copies(out);
}

std::vector<Tensor> Module::compute_copies() const {
  std::vector<Tensor> out;
  collect_copies(out);
  return out;
}

void Module::refresh_compute_copies() {
  for (std::size_t i = 0; i < compute_copies_.size(); ++i) ops::cast_into(compute_copies_[i], *parameters_[i].second);
  for (const auto& entry : children_) entry.second->refresh_compute_copies();
}

void copy_into(Tensor& destination, const Tensor& source) {
  check_defined(destination, "copy_into", "destination");
  check_defined(source, "copy_into", "source");
  SGNN_CHECK(destination.shape() == source.shape() && destination.dtype() == source.dtype(),
             "copy_into: source ", shape_str(source.shape()), " ", dtype_name(source.dtype()),
             " does not match destination ", shape_str(destination.shape()), " ",
             dtype_name(destination.dtype()));
  memory::copy(destination.raw_data(), destination.device(), source.raw_data(), source.device(), source.nbytes());
}

}  // namespace sgnn::training
