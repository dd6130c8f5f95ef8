// Tensor: an n-dimensional array of float32, bfloat16, int32 or int64 on the host or a
// CUDA device.
//
// Layout: always contiguous and row-major. A tensor is a handle: copies share
// the same storage (reference counted) and the same autograd state, like a
// torch.Tensor. Views (`view`, `narrow_rows`) share storage with an element
// offset and never copy; they are not connected to the autograd graph (the
// differentiable reshape is ops::reshape).
//
// Device tensors are written by kernels queued on the library's stream; reads
// from the host (`to_vector`, `item`, printing) wait for that stream.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/device.hpp"
#include "core/dtype.hpp"
#include "core/error.hpp"
#include "core/memory.hpp"

namespace sgnn {

namespace autograd {
class Node;
struct AutogradMeta;
}  // namespace autograd
struct SparseRows;  // core/sparse_rows.hpp

using Shape = std::vector<int64_t>;
std::string shape_str(const Shape& shape);  // "[2, 3]"
int64_t shape_numel(const Shape& shape);     // throws InvalidArgument on a negative extent or overflow

// One allocation on one device, owned; freed when the last tensor using it goes.
// Or host memory that something else owns (a mapped file): `owner` keeps it
// alive while a tensor uses it, and nothing is freed here.
class Storage {
 public:
  Storage(std::size_t bytes, Device device, memory::HostKind host_kind);
  Storage(void* data, std::size_t bytes, std::shared_ptr<const void> owner);
  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  void* data() const { return data_; }
  std::size_t bytes() const { return bytes_; }
  Device device() const { return device_; }

 private:
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
  Device device_;
  memory::HostKind host_kind_ = memory::HostKind::Pageable;
  std::shared_ptr<const void> owner_;  // set for memory owned elsewhere
};

class Tensor {
 public:
  Tensor() = default;  // an undefined tensor: `defined()` is false

  // ---- Creation -----------------------------------------------------------
  static Tensor empty(const Shape& shape, DType dtype = DType::Float32, Device device = Device::cpu());
  // Host tensor in page-locked memory: faster and asynchronous uploads.
  static Tensor empty_pinned(const Shape& shape, DType dtype = DType::Float32);
  static Tensor zeros(const Shape& shape, DType dtype = DType::Float32, Device device = Device::cpu());
  static Tensor full(const Shape& shape, double value, DType dtype = DType::Float32,
                     Device device = Device::cpu());
  static Tensor empty_like(const Tensor& other);
  // A host tensor over `data` (numel of `shape` elements of `dtype`, 64-byte
  // aligned), which `owner` keeps alive (e.g. a mapped file); no copy.
  static Tensor from_external(void* data, const Shape& shape, DType dtype, std::shared_ptr<const void> owner);
  static Tensor zeros_like(const Tensor& other);
  // Copies `values` (numel of `shape` elements) into a new tensor on `device`.
  template <typename T>
  static Tensor from_vector(std::span<const T> values, const Shape& shape, Device device = Device::cpu()) {
    return from_host_data(values.data(), values.size(), dtype_of<T>(), shape, device);
  }
  template <typename T>
  static Tensor from_vector(const std::vector<T>& values, const Shape& shape, Device device = Device::cpu()) {
    return from_vector(std::span<const T>(values), shape, device);
  }

  // ---- Properties ---------------------------------------------------------
  bool defined() const { return storage_ != nullptr; }
  const Shape& shape() const { return shape_; }
  int64_t dim() const { return static_cast<int64_t>(shape_.size()); }
  int64_t size(int64_t axis) const;  // negative axis counts from the end
  int64_t numel() const { return numel_; }
  DType dtype() const { return dtype_; }
  Device device() const;
  std::size_t nbytes() const { return static_cast<std::size_t>(numel_) * dtype_size(dtype_); }
  bool shares_storage_with(const Tensor& other) const { return storage_ && storage_ == other.storage_; }

  // Pointer to the first element (a device pointer for CUDA tensors). Throws
  // InvalidArgument when T does not match dtype() or the tensor is undefined.
  template <typename T>
  T* data() const {
    check_access(dtype_of<T>());
    return static_cast<T*>(raw_data());
  }
  void* raw_data() const;

  // ---- Copies and views ---------------------------------------------------
  // This tensor when already on `device`, else a copy there (not connected to
  // the autograd graph: moving data happens at load time, not in a model).
  Tensor to(Device device) const;
  Tensor clone() const;                       // deep copy on the same device, no autograd link
  Tensor view(const Shape& shape) const;      // same data, new shape (one extent may be -1)
  Tensor narrow_rows(int64_t begin, int64_t end) const;  // rows [begin, end) of the first axis
  Tensor detach() const;                      // same data, no autograd state
  // Host copy of the elements, in row-major order.
  template <typename T>
  std::vector<T> to_vector() const {
    check_access(dtype_of<T>());
    std::vector<T> out(static_cast<std::size_t>(numel_));
    copy_to_host(out.data());
    return out;
  }
  double item() const;  // the single element of a one-element tensor

  // ---- Autograd -----------------------------------------------------------
  bool requires_grad() const;
  // Marks a leaf (a parameter) as requiring gradients. Throws on a non-leaf.
  Tensor& set_requires_grad(bool enabled);
  bool is_leaf() const;
  Tensor grad() const;  // accumulated gradient of a leaf; undefined until backward
  void set_grad(const Tensor& gradient);
  void zero_grad() { set_grad(Tensor()); }
  const std::shared_ptr<autograd::Node>& grad_fn() const;
  // Back-propagates from this tensor. `gradient` defaults to 1 for a
  // one-element tensor; any other tensor needs one of its own shape.
  void backward() const;
  void backward(const Tensor& gradient, bool retain_graph = false) const;

  // ---- Debugging ----------------------------------------------------------
  std::string str(int64_t max_per_axis = 6) const;

  // The non-zeros of this float32 matrix, where a caller attached them
  // (core/sparse_rows.hpp); null otherwise. Copies of the handle share it;
  // views, casts, clones and other new tensors do not have it.
  const std::shared_ptr<const SparseRows>& sparse_rows() const { return sparse_rows_; }
  void set_sparse_rows(std::shared_ptr<const SparseRows> rows) { sparse_rows_ = std::move(rows); }

  // For the autograd engine.
  const std::shared_ptr<autograd::AutogradMeta>& autograd_meta() const { return meta_; }
  void set_autograd_meta(std::shared_ptr<autograd::AutogradMeta> meta) { meta_ = std::move(meta); }

 private:
  static Tensor allocate(const Shape& shape, DType dtype, Device device, memory::HostKind host_kind);
  static Tensor from_host_data(const void* values, std::size_t count, DType dtype, const Shape& shape,
                               Device device);
  void check_access(DType requested) const;
  void copy_to_host(void* destination) const;

  std::shared_ptr<Storage> storage_;
  int64_t offset_ = 0;  // in elements
  Shape shape_;
  int64_t numel_ = 0;
  DType dtype_ = DType::Float32;
  std::shared_ptr<autograd::AutogradMeta> meta_;
  std::shared_ptr<const SparseRows> sparse_rows_;
};

std::ostream& operator<<(std::ostream& out, const Tensor& tensor);

// Argument checks shared by every op, with messages that name the op and argument.
void check_defined(const Tensor& tensor, const char* op, const char* argument);
void check_dtype(const Tensor& tensor, DType expected, const char* op, const char* argument);
// float32 or bfloat16 (is_floating).
void check_floating(const Tensor& tensor, const char* op, const char* argument);
void check_dim(const Tensor& tensor, int64_t expected, const char* op, const char* argument);
void check_same_device(const Tensor& a, const Tensor& b, const char* op);

}  // namespace sgnn
