#include "core/tensor.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <limits>
#include <ostream>
#include <sstream>

#include "core/autograd.hpp"
#ifdef SGNN_WITH_CUDA
#include "core/cuda/core_kernels.hpp"
#endif

namespace sgnn {

std::string shape_str(const Shape& shape) {
  std::ostringstream out;
  out << '[';
  for (std::size_t i = 0; i < shape.size(); ++i) out << (i ? ", " : "") << shape[i];
  out << ']';
  return out.str();
}

int64_t shape_numel(const Shape& shape) {
  int64_t count = 1;
  for (const int64_t extent : shape) {
    SGNN_CHECK(extent >= 0, "negative extent in shape ", shape_str(shape));
    SGNN_CHECK(extent == 0 || count <= std::numeric_limits<int64_t>::max() / extent,
               "shape ", shape_str(shape), " has more elements than fit in int64");
    count *= extent;
  }
  return count;
}

Storage::Storage(std::size_t bytes, Device device, memory::HostKind host_kind)
    : data_(memory::allocate(bytes, device, host_kind)), bytes_(bytes), device_(device), host_kind_(host_kind) {}

Storage::Storage(void* data, std::size_t bytes, std::shared_ptr<const void> owner)
    : data_(data), bytes_(bytes), device_(Device::cpu()), owner_(std::move(owner)) {}

Storage::~Storage() {
  if (!owner_) memory::deallocate(data_, bytes_, device_, host_kind_);
}

Tensor Tensor::allocate(const Shape& shape, DType dtype, Device device, memory::HostKind host_kind) {
  Tensor tensor;
  tensor.numel_ = shape_numel(shape);
  // Storage's constructor throws OutOfMemoryError before anything is owned.
  tensor.storage_ =
      std::make_shared<Storage>(static_cast<std::size_t>(tensor.numel_) * dtype_size(dtype), device, host_kind);
  tensor.shape_ = shape;
  tensor.dtype_ = dtype;
  return tensor;
}

Tensor Tensor::from_external(void* data, const Shape& shape, DType dtype, std::shared_ptr<const void> owner) {
  SGNN_CHECK(owner != nullptr, "Tensor::from_external needs an owner that keeps the memory alive");
  Tensor tensor;
  tensor.numel_ = shape_numel(shape);
  SGNN_CHECK(data != nullptr || tensor.numel_ == 0, "Tensor::from_external: null data for ", shape_str(shape));
  tensor.storage_ = std::make_shared<Storage>(data, static_cast<std::size_t>(tensor.numel_) * dtype_size(dtype),
                                              std::move(owner));
  tensor.shape_ = shape;
  tensor.dtype_ = dtype;
  return tensor;
}

Tensor Tensor::empty(const Shape& shape, DType dtype, Device device) {
  return allocate(shape, dtype, device, memory::HostKind::Pageable);
}

Tensor Tensor::empty_pinned(const Shape& shape, DType dtype) {
  return allocate(shape, dtype, Device::cpu(), memory::HostKind::Pinned);
}

Tensor Tensor::zeros(const Shape& shape, DType dtype, Device device) {
  Tensor tensor = empty(shape, dtype, device);
  memory::set_zero(tensor.raw_data(), device, tensor.nbytes());
  return tensor;
}

Tensor Tensor::full(const Shape& shape, double value, DType dtype, Device device) {
  Tensor tensor = empty(shape, dtype, device);
  if (tensor.numel_ == 0) return tensor;
  if (device.is_cuda()) {
#ifdef SGNN_WITH_CUDA
    detail::fill_cuda(tensor.raw_data(), tensor.numel_, dtype, value, device);
#endif
    return tensor;
  }
  const std::size_t n = static_cast<std::size_t>(tensor.numel_);
  switch (dtype) {
    case DType::Float32: std::fill_n(tensor.data<float>(), n, static_cast<float>(value)); break;
    case DType::Int32: std::fill_n(tensor.data<int32_t>(), n, static_cast<int32_t>(value)); break;
    case DType::Int64: std::fill_n(tensor.data<int64_t>(), n, static_cast<int64_t>(value)); break;
    case DType::BFloat16: std::fill_n(tensor.data<bfloat16>(), n, bfloat16(static_cast<float>(value))); break;
  }
  return tensor;
}

Tensor Tensor::empty_like(const Tensor& other) {
  check_defined(other, "empty_like", "other");
  return empty(other.shape_, other.dtype_, other.device());
}

Tensor Tensor::zeros_like(const Tensor& other) {
  check_defined(other, "zeros_like", "other");
  return zeros(other.shape_, other.dtype_, other.device());
}

Tensor Tensor::from_host_data(const void* values, std::size_t count, DType dtype, const Shape& shape,
                              Device device) {
  const int64_t expected = shape_numel(shape);
  SGNN_CHECK(static_cast<int64_t>(count) == expected, "from_vector: ", count,
             " values do not fill shape ", shape_str(shape), " (", expected, " elements)");
  Tensor tensor = empty(shape, dtype, device);
  memory::copy(tensor.raw_data(), device, values, Device::cpu(), tensor.nbytes());
  return tensor;
}

int64_t Tensor::size(int64_t axis) const {
  const int64_t rank = dim();
  const int64_t resolved = axis < 0 ? axis + rank : axis;
  SGNN_CHECK(resolved >= 0 && resolved < rank, "axis ", axis, " out of range for a tensor of shape ",
             shape_str(shape_));
  return shape_[static_cast<std::size_t>(resolved)];
}

Device Tensor::device() const { return storage_ ? storage_->device() : Device::cpu(); }

void* Tensor::raw_data() const {
  SGNN_CHECK(defined(), "access to the data of an undefined tensor");
  if (storage_->data() == nullptr) return nullptr;
  return static_cast<char*>(storage_->data()) + offset_ * static_cast<int64_t>(dtype_size(dtype_));
}

void Tensor::check_access(DType requested) const {
  SGNN_CHECK(defined(), "access to the data of an undefined tensor");
  SGNN_CHECK(requested == dtype_, "tensor holds ", dtype_name(dtype_), " but was accessed as ",
             dtype_name(requested));
}

void Tensor::copy_to_host(void* destination) const {
  memory::copy(destination, Device::cpu(), raw_data(), device(), nbytes());
}

Tensor Tensor::to(Device target) const {
  check_defined(*this, "to", "self");
  if (target == device()) return *this;
  Tensor copy = empty(shape_, dtype_, target);
  memory::copy(copy.raw_data(), target, raw_data(), device(), nbytes());
  return copy;
}

Tensor Tensor::clone() const {
  check_defined(*this, "clone", "self");
  Tensor copy = empty(shape_, dtype_, device());
  memory::copy(copy.raw_data(), device(), raw_data(), device(), nbytes());
  return copy;
}

Tensor Tensor::view(const Shape& shape) const {
  check_defined(*this, "view", "self");
  Shape resolved = shape;
  int64_t known = 1;
  int inferred = -1;
  for (std::size_t i = 0; i < resolved.size(); ++i) {
    if (resolved[i] == -1) {
      SGNN_CHECK(inferred < 0, "view: at most one extent may be -1, got ", shape_str(shape));
      inferred = static_cast<int>(i);
    } else {
      SGNN_CHECK(resolved[i] >= 0, "view: invalid extent in ", shape_str(shape));
      known *= resolved[i];
    }
  }
  if (inferred >= 0) {
    SGNN_CHECK(known > 0 && numel_ % known == 0, "view: cannot infer -1 in ", shape_str(shape),
               " for ", numel_, " elements");
    resolved[static_cast<std::size_t>(inferred)] = numel_ / known;
  }
  SGNN_CHECK(shape_numel(resolved) == numel_, "view: shape ", shape_str(shape), " does not match ",
             numel_, " elements of shape ", shape_str(shape_));
  Tensor result = detach();
  result.shape_ = std::move(resolved);
  return result;
}

Tensor Tensor::narrow_rows(int64_t begin, int64_t end) const {
  check_defined(*this, "narrow_rows", "self");
  SGNN_CHECK(dim() >= 1, "narrow_rows needs at least one axis");
  SGNN_CHECK(0 <= begin && begin <= end && end <= shape_[0], "narrow_rows: range [", begin, ", ", end,
             ") out of bounds for ", shape_[0], " rows");
  Tensor result = detach();
  const int64_t row_elements = shape_[0] == 0 ? 0 : numel_ / shape_[0];
  result.offset_ = offset_ + begin * row_elements;
  result.shape_[0] = end - begin;
  result.numel_ = (end - begin) * row_elements;
  return result;
}

Tensor Tensor::detach() const {
  Tensor result = *this;
  result.meta_.reset();
  return result;
}

double Tensor::item() const {
  check_defined(*this, "item", "self");
  SGNN_CHECK(numel_ == 1, "item() needs a one-element tensor, got shape ", shape_str(shape_));
  switch (dtype_) {
    case DType::Float32: {
      float value = 0.0f;
      copy_to_host(&value);
      return static_cast<double>(value);
    }
    case DType::Int32: {
      int32_t value = 0;
      copy_to_host(&value);
      return static_cast<double>(value);
    }
    case DType::Int64: {
      int64_t value = 0;
      copy_to_host(&value);
      return static_cast<double>(value);
    }
    case DType::BFloat16: {
      bfloat16 value;
      copy_to_host(&value);
      return static_cast<double>(value.to_float());
    }
  }
  return 0.0;
}

bool Tensor::requires_grad() const { return meta_ && meta_->requires_grad; }

Tensor& Tensor::set_requires_grad(bool enabled) {
  check_defined(*this, "set_requires_grad", "self");
  if (meta_ && meta_->grad_fn) {
    throw AutogradError("set_requires_grad: only leaf tensors (parameters, inputs) can change it; this tensor "
                        "is the result of '" + meta_->grad_fn->name() + "'; use detach() first");
  }
  SGNN_CHECK(!enabled || is_floating(dtype_), "only float32 and bfloat16 tensors can require gradients, got ",
             dtype_name(dtype_));
  if (!meta_) meta_ = std::make_shared<autograd::AutogradMeta>();
  meta_->requires_grad = enabled;
  return *this;
}

bool Tensor::is_leaf() const { return !meta_ || !meta_->grad_fn; }

Tensor Tensor::grad() const { return meta_ ? meta_->grad : Tensor(); }

void Tensor::set_grad(const Tensor& gradient) {
  check_defined(*this, "set_grad", "self");
  if (gradient.defined()) {
    SGNN_CHECK(gradient.shape() == shape_ && gradient.device() == device(), "set_grad: gradient of shape ",
               shape_str(gradient.shape()), " on ", gradient.device().str(), " for a tensor of shape ",
               shape_str(shape_), " on ", device().str());
  }
  if (!meta_) meta_ = std::make_shared<autograd::AutogradMeta>();
  meta_->grad = gradient;
}

const std::shared_ptr<autograd::Node>& Tensor::grad_fn() const {
  static const std::shared_ptr<autograd::Node> none;
  return meta_ ? meta_->grad_fn : none;
}

void Tensor::backward() const { autograd::run_backward(*this, Tensor(), false); }

void Tensor::backward(const Tensor& gradient, bool retain_graph) const {
  autograd::run_backward(*this, gradient, retain_graph);
}

namespace {

template <typename T>
void print_values(std::ostream& out, const std::vector<T>& values, const Shape& shape, std::size_t axis,
                  int64_t offset, int64_t max_per_axis, int indent) {
  const int64_t extent = shape[axis];
  int64_t stride = 1;
  for (std::size_t a = axis + 1; a < shape.size(); ++a) stride *= shape[a];
  const bool elide = extent > max_per_axis;
  const int64_t head = elide ? max_per_axis / 2 : extent;
  out << '[';
  for (int64_t i = 0; i < extent; ++i) {
    if (elide && i == head) {
      out << (axis + 1 == shape.size() ? "..., " : "...,\n" + std::string(static_cast<std::size_t>(indent + 1), ' '));
      i = extent - (max_per_axis - head);
    }
    if (axis + 1 == shape.size()) {
      if constexpr (std::is_same_v<T, float>) out << std::setprecision(6) << values[static_cast<std::size_t>(offset + i)];
      else out << values[static_cast<std::size_t>(offset + i)];
    } else {
      print_values(out, values, shape, axis + 1, offset + i * stride, max_per_axis, indent + 1);
    }
    if (i + 1 < extent) out << (axis + 1 == shape.size() ? ", " : ",\n" + std::string(static_cast<std::size_t>(indent + 1), ' '));
  }
  out << ']';
}

}  // namespace

std::string Tensor::str(int64_t max_per_axis) const {
  if (!defined()) return "Tensor(undefined)";
  std::ostringstream out;
  out << "Tensor(shape=" << shape_str(shape_) << ", dtype=" << dtype_name(dtype_) << ", device=" << device().str();
  if (requires_grad()) out << ", requires_grad";
  if (grad_fn()) out << ", grad_fn=" << grad_fn()->name();
  out << ")\n";
  if (dim() == 0) {
    out << item();
    return out.str();
  }
  if (numel_ == 0) return out.str() + "[]";
  max_per_axis = std::max<int64_t>(max_per_axis, 2);
  switch (dtype_) {
    case DType::Float32: print_values(out, to_vector<float>(), shape_, 0, 0, max_per_axis, 0); break;
    case DType::Int32: print_values(out, to_vector<int32_t>(), shape_, 0, 0, max_per_axis, 0); break;
    case DType::Int64: print_values(out, to_vector<int64_t>(), shape_, 0, 0, max_per_axis, 0); break;
    case DType::BFloat16: {
      std::vector<float> values;
      for (const bfloat16 value : to_vector<bfloat16>()) values.push_back(value.to_float());
      print_values(out, values, shape_, 0, 0, max_per_axis, 0);
      break;
    }
  }
  return out.str();
}

std::ostream& operator<<(std::ostream& out, const Tensor& tensor) { return out << tensor.str(); }

void check_defined(const Tensor& tensor, const char* op, const char* argument) {
  SGNN_CHECK(tensor.defined(), op, ": argument '", argument, "' is an undefined tensor");
}

void check_dtype(const Tensor& tensor, DType expected, const char* op, const char* argument) {
  check_defined(tensor, op, argument);
  SGNN_CHECK(tensor.dtype() == expected, op, ": argument '", argument, "' must be ", dtype_name(expected),
             ", got ", dtype_name(tensor.dtype()));
}

void check_floating(const Tensor& tensor, const char* op, const char* argument) {
  check_defined(tensor, op, argument);
  SGNN_CHECK(is_floating(tensor.dtype()), op, ": argument '", argument, "' must be float32 or bfloat16, got ",
             dtype_name(tensor.dtype()));
}

void check_dim(const Tensor& tensor, int64_t expected, const char* op, const char* argument) {
  check_defined(tensor, op, argument);
  SGNN_CHECK(tensor.dim() == expected, op, ": argument '", argument, "' must have ", expected,
             " axes, got shape ", shape_str(tensor.shape()));
}

void check_same_device(const Tensor& a, const Tensor& b, const char* op) {
  SGNN_CHECK(a.device() == b.device(), op, ": tensors on different devices (", a.device().str(), " and ",
             b.device().str(), "); move them with .to(device)");
}

}  // namespace sgnn
