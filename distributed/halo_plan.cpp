#include "distributed/halo_plan.hpp"

namespace sgnn::distributed {

const char* halo_mode_name(HaloMode mode) { return mode == HaloMode::SendRecv ? "sendrecv" : "allgather"; }

std::optional<HaloMode> parse_halo_mode(std::string_view text) {
  if (text == "auto") return std::nullopt;
  if (text == "sendrecv") return HaloMode::SendRecv;
  SGNN_CHECK(text == "allgather", "halo mode must be auto, sendrecv or allgather, got \"", text, "\"");
  return HaloMode::AllGather;
}

namespace {

HaloVolume volume_of(int64_t ranks, int64_t total_halo_rows, int64_t max_block_rows) {
  return {total_halo_rows, ranks * (ranks - 1) * max_block_rows};
}

}  // namespace

HaloVolume halo_volume(const GraphPartition& partition) {
  int64_t total_halo_rows = 0;
  for (const RankBlock& block : partition.blocks) total_halo_rows += block.num_halo();
  return volume_of(partition.num_ranks(), total_halo_rows, partition.max_block_rows());
}

HaloVolume halo_volume(const RankPartition& partition) {
  return volume_of(partition.num_ranks(), partition.total_halo_rows, partition.max_block_rows);
}

HaloMode choose_halo_mode(const GraphPartition& partition) { return choose_halo_mode(halo_volume(partition)); }

HaloMode choose_halo_mode(const HaloVolume& volume) {
  if (volume.allgather_rows == 0) return HaloMode::SendRecv;  // one rank, or no rows
  return static_cast<double>(volume.sendrecv_rows) >= kAllGatherShare * static_cast<double>(volume.allgather_rows)
             ? HaloMode::AllGather
             : HaloMode::SendRecv;
}

int64_t exchanged_rows(const GraphPartition& partition, HaloMode mode) {
  const HaloVolume volume = halo_volume(partition);
  return mode == HaloMode::SendRecv ? volume.sendrecv_rows : volume.allgather_rows;
}

std::vector<int32_t> allgather_positions(const GraphPartition& partition, int rank) {
  SGNN_CHECK(rank >= 0 && rank < partition.num_ranks(), "allgather_positions: no rank ", rank, " of ",
             partition.num_ranks());
  return allgather_positions(rank_partition(partition, rank));
}

std::vector<int32_t> allgather_positions(const RankPartition& partition) {
  const RankBlock& block = partition.block;
  const int64_t padded = partition.max_block_rows;
  SGNN_CHECK(padded * partition.num_ranks() <= (int64_t{1} << 31), "allgather_positions: ", partition.num_ranks(),
             " blocks of ", padded, " rows exceed int32 row ids");
  std::vector<int32_t> positions;
  positions.reserve(block.halo_rows.size());
  for (const int32_t row : block.halo_rows) {
    const int owner = partition.owner(row);
    positions.push_back(static_cast<int32_t>(owner * padded + (row - partition.boundaries[static_cast<std::size_t>(owner)])));
  }
  return positions;
}

}  // namespace sgnn::distributed
