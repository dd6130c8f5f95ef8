#include "distributed/integer_collectives.hpp"

namespace sgnn::distributed {

namespace {

constexpr int kPieces = 4;  // 16 bits each
constexpr uint64_t kPieceMask = 0xffff;

}  // namespace

std::vector<std::vector<int64_t>> all_gather_integers(Communicator& communicator, const std::vector<int64_t>& values) {
  const auto ranks = static_cast<std::size_t>(communicator.size());
  // The count goes first so that ranks disagreeing on it fail together, not in a mismatched gather.
  const std::vector<int64_t> counts_seen = [&] {
    const Tensor send = Tensor::from_vector(std::vector<float>{static_cast<float>(values.size())}, {1}).to(communicator.device());
    const Tensor receive = Tensor::empty({static_cast<int64_t>(ranks)}, DType::Float32, communicator.device());
    communicator.all_gather(send, receive);
    std::vector<int64_t> counts;
    for (const float count : receive.to(Device::cpu()).to_vector<float>()) counts.push_back(static_cast<int64_t>(count));
    return counts;
  }();
  for (std::size_t rank = 0; rank < ranks; ++rank) {
    SGNN_CHECK(counts_seen[rank] == static_cast<int64_t>(values.size()), "all_gather_integers: rank ", rank, " sends ",
               counts_seen[rank], " values, rank ", communicator.rank(), " ", values.size());
  }
  std::vector<float> pieces;
  pieces.reserve(values.size() * kPieces);
  for (const int64_t value : values) {
    const auto bits = static_cast<uint64_t>(value);
    for (int piece = 0; piece < kPieces; ++piece) pieces.push_back(static_cast<float>((bits >> (16 * piece)) & kPieceMask));
  }
  const auto per_rank = static_cast<int64_t>(pieces.size());
  const Tensor send = Tensor::from_vector(pieces, {per_rank}).to(communicator.device());
  const Tensor receive = Tensor::empty({static_cast<int64_t>(ranks) * per_rank}, DType::Float32, communicator.device());
  communicator.all_gather(send, receive);
  const std::vector<float> gathered = receive.to(Device::cpu()).to_vector<float>();
  std::vector<std::vector<int64_t>> result(ranks, std::vector<int64_t>(values.size()));
  for (std::size_t rank = 0; rank < ranks; ++rank) {
    for (std::size_t i = 0; i < values.size(); ++i) {
      uint64_t bits = 0;
      for (int piece = 0; piece < kPieces; ++piece) {
        const float part = gathered[(rank * values.size() + i) * kPieces + static_cast<std::size_t>(piece)];
        bits |= static_cast<uint64_t>(part) << (16 * piece);
      }
      result[rank][i] = static_cast<int64_t>(bits);
    }
  }
  return result;
}

}  // namespace sgnn::distributed
