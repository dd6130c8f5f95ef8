#include "distributed/communicator.hpp"

namespace sgnn::distributed {

void Communicator::count_exchange(const std::vector<Tensor>& sends) {
  for (const Tensor& send : sends) {
    if (send.defined()) bytes_sent_ += static_cast<int64_t>(send.nbytes());
  }
}

void Communicator::count_all_gather(const Tensor& send) {
  bytes_sent_ += static_cast<int64_t>(send.nbytes()) * (size() - 1);
}

void Communicator::count_reduce_scatter(const Tensor& send) {
  bytes_sent_ += static_cast<int64_t>(send.nbytes()) * (size() - 1) / size();
}

void Communicator::count_all_reduce(const std::vector<Tensor>& tensors) {
  for (const Tensor& tensor : tensors) bytes_sent_ += 2 * static_cast<int64_t>(tensor.nbytes()) * (size() - 1) / size();
}

void Communicator::check_tensors(const std::vector<Tensor>& tensors, const char* op) const {
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& tensor = tensors[i];
    if (!tensor.defined()) continue;
    SGNN_CHECK(tensor.dtype() == DType::Float32 && tensor.device() == device(), op, ": tensor ", i, " is ",
               dtype_name(tensor.dtype()), " on ", tensor.device().str(), ", rank ", rank(), " needs float32 on ",
               device().str());
  }
}

}  // namespace sgnn::distributed
