#include "distributed/halo_exchange.hpp"

#include "core/autograd.hpp"
#include "core/memory.hpp"
#include "distributed/row_ops.hpp"
#include "ops/cast.hpp"
#include "ops/elementwise.hpp"

namespace sgnn::distributed {

struct HaloExchange::Plan {
  int rank = 0;
  int ranks = 0;
  HaloMode mode = HaloMode::SendRecv;
  Device device;
  int64_t num_rows = 0;
  int64_t num_halo = 0;
  int64_t padded_rows = 0;             // all-gather block
  std::vector<int64_t> halo_offsets;   // [ranks + 1]
  std::vector<Tensor> send_index;      // [ranks] int32, local rows each peer needs
  Tensor allgather_positions;          // int32 [num_halo]

  Tensor halo_slice(const Tensor& extended, int owner) const {
    const auto p = static_cast<std::size_t>(owner);
    return extended.narrow_rows(num_rows + halo_offsets[p], num_rows + halo_offsets[p + 1]);
  }
  Tensor extend(Communicator& communicator, const Tensor& local) const;
  Tensor reduce(Communicator& communicator, const Tensor& grad_extended) const;
};

namespace {

std::size_t at(int i) { return static_cast<std::size_t>(i); }

void copy_into(const Tensor& destination, const Tensor& source) {
  memory::copy(destination.raw_data(), destination.device(), source.raw_data(), source.device(), source.nbytes());
}

Tensor index_tensor(const std::vector<int32_t>& values, Device device) {
  return Tensor::from_vector(values, {static_cast<int64_t>(values.size())}).to(device);
}

}  // namespace

Tensor HaloExchange::Plan::extend(Communicator& communicator, const Tensor& local) const {
  const int64_t width = local.size(1);
  const Tensor extended = Tensor::empty({num_rows + num_halo, width}, DType::Float32, device);
  copy_into(extended.narrow_rows(0, num_rows), local);
  if (mode == HaloMode::SendRecv) {
    std::vector<Tensor> sends(at(ranks));
    std::vector<Tensor> receives(at(ranks));
    for (int peer = 0; peer < ranks; ++peer) {
      if (send_index[at(peer)].numel() > 0) sends[at(peer)] = gather_rows(local, send_index[at(peer)]);
      if (halo_offsets[at(peer) + 1] > halo_offsets[at(peer)]) receives[at(peer)] = halo_slice(extended, peer);
    }
    communicator.exchange(sends, receives);
  } else {
    const Tensor padded = Tensor::zeros({padded_rows, width}, DType::Float32, device);
    copy_into(padded.narrow_rows(0, num_rows), local);
    const Tensor gathered = Tensor::empty({padded_rows * ranks, width}, DType::Float32, device);
    communicator.all_gather(padded, gathered);
    if (num_halo > 0) copy_into(extended.narrow_rows(num_rows, num_rows + num_halo), gather_rows(gathered, allgather_positions));
  }
  return extended;
}

Tensor HaloExchange::Plan::reduce(Communicator& communicator, const Tensor& grad_extended) const {
  const int64_t width = grad_extended.size(1);
  Tensor grad = grad_extended.narrow_rows(0, num_rows).clone();
  const Tensor grad_halo = grad_extended.narrow_rows(num_rows, num_rows + num_halo);
  if (mode == HaloMode::SendRecv) {
    std::vector<Tensor> sends(at(ranks));
    std::vector<Tensor> receives(at(ranks));
    for (int peer = 0; peer < ranks; ++peer) {
      if (halo_offsets[at(peer) + 1] > halo_offsets[at(peer)]) sends[at(peer)] = halo_slice(grad_extended, peer);
      const int64_t count = send_index[at(peer)].numel();
      if (count > 0) receives[at(peer)] = Tensor::empty({count, width}, DType::Float32, device);
    }
    communicator.exchange(sends, receives);
    for (int peer = 0; peer < ranks; ++peer) {
      if (receives[at(peer)].defined()) scatter_add_rows(grad, send_index[at(peer)], receives[at(peer)]);
    }
    return grad;
  }
  const Tensor contributions = Tensor::zeros({padded_rows * ranks, width}, DType::Float32, device);
  Tensor target = contributions;
  if (num_halo > 0) scatter_add_rows(target, allgather_positions, grad_halo);
  const Tensor mine = Tensor::empty({padded_rows, width}, DType::Float32, device);
  communicator.reduce_scatter_sum(contributions, mine);
  return ops::add(grad, mine.narrow_rows(0, num_rows));
}

HaloExchange::HaloExchange(const GraphPartition& partition, int rank, HaloMode mode, Device device)
    : HaloExchange(rank_partition(partition, rank), mode, device) {}

HaloExchange::HaloExchange(const RankPartition& partition, HaloMode mode, Device device) {
  const RankBlock& block = partition.block;
  SGNN_CHECK(block.halo_offsets.size() == static_cast<std::size_t>(partition.num_ranks()) + 1 &&
                 block.send_rows.size() == static_cast<std::size_t>(partition.num_ranks()),
             "HaloExchange: rank ", partition.rank, "'s block has ", block.halo_offsets.size(), " halo offsets and ",
             block.send_rows.size(), " send lists for ", partition.num_ranks(), " ranks");
  auto plan = std::make_shared<Plan>();
  plan->rank = partition.rank;
  plan->ranks = partition.num_ranks();
  plan->mode = mode;
  plan->device = device;
  plan->num_rows = block.num_rows();
  plan->num_halo = block.num_halo();
  plan->padded_rows = partition.max_block_rows;
  plan->halo_offsets = block.halo_offsets;
  for (const std::vector<int32_t>& rows : block.send_rows) plan->send_index.push_back(index_tensor(rows, device));
  if (mode == HaloMode::AllGather) plan->allgather_positions = index_tensor(allgather_positions(partition), device);
  plan_ = std::move(plan);
}

int64_t HaloExchange::num_rows() const { return plan_->num_rows; }
int64_t HaloExchange::num_halo() const { return plan_->num_halo; }
HaloMode HaloExchange::mode() const { return plan_->mode; }

Tensor HaloExchange::operator()(Communicator& communicator, const Tensor& local_rows) const {
  constexpr const char* kOp = "halo_exchange";
  check_floating(local_rows, kOp, "local_rows");
  if (local_rows.dtype() != DType::Float32) {
    return ops::cast((*this)(communicator, ops::cast(local_rows, DType::Float32)), local_rows.dtype());
  }
  check_dim(local_rows, 2, kOp, "local_rows");
  SGNN_CHECK(local_rows.size(0) == plan_->num_rows, kOp, ": rank ", plan_->rank, " owns ", plan_->num_rows,
             " rows, got ", local_rows.size(0));
  SGNN_CHECK(local_rows.device() == plan_->device, kOp, ": local_rows on ", local_rows.device().str(),
             ", the plan on ", plan_->device.str());
  SGNN_CHECK(communicator.rank() == plan_->rank && communicator.size() == plan_->ranks && communicator.device() == plan_->device,
             kOp, ": communicator of rank ", communicator.rank(), "/", communicator.size(), " on ",
             communicator.device().str(), " for the plan of rank ", plan_->rank, "/", plan_->ranks, " on ",
             plan_->device.str());
  Tensor extended = plan_->extend(communicator, local_rows);
  if (autograd::needs_recording({local_rows})) {
    autograd::record(kOp, {local_rows}, extended,
                     [plan = plan_, &communicator](const Tensor& grad, const autograd::NeedsGrad&) {
                       return std::vector<Tensor>{plan->reduce(communicator, grad)};
                     });
  }
  return extended;
}

}  // namespace sgnn::distributed
