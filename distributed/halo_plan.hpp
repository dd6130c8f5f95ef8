// How a layer's halo (the remote feature rows each rank reads) travels.
//
//   SendRecv   grouped point-to-point: rank p sends rank q exactly the rows of
//              q's halo owned by p (packed by send_rows), received straight
//              into q's [local | halo] buffer slice of owner p.
//   AllGather  every rank contributes its block padded to max_block_rows; each
//              rank then picks its halo rows out of the gathered copy
//              (allgather_positions). Backward: halo gradients are scattered
//              into a zero copy and summed back to the owners by a
//              reduce-scatter.
//
// Choice (choose_halo_mode): AllGather when the point-to-point volume summed
// over ranks reaches kAllGatherShare of the all-gather's volume (ranks·(ranks−1)·
// max_block_rows rows). Then the halo is most of the graph: one ring collective
// runs every link at once and needs no per-peer packing, while the padding
// and the extra gather cost little. Below that, point-to-point moves strictly
// less. Both volumes scale with the feature width, so one choice fits every
// layer of a model.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "distributed/partition.hpp"

namespace sgnn::distributed {

enum class HaloMode : unsigned char { SendRecv, AllGather };
const char* halo_mode_name(HaloMode mode);  // "sendrecv", "allgather"
// "sendrecv" or "allgather"; "auto" -> nullopt (choose by size); InvalidArgument otherwise.
std::optional<HaloMode> parse_halo_mode(std::string_view text);

inline constexpr double kAllGatherShare = 0.75;

struct HaloVolume {
  int64_t sendrecv_rows = 0;   // Σ over ranks of the halo rows received
  int64_t allgather_rows = 0;  // Σ over ranks of the padded rows received from the others
};
HaloVolume halo_volume(const GraphPartition& partition);
HaloVolume halo_volume(const RankPartition& partition);  // the same numbers, from one rank's part
HaloMode choose_halo_mode(const HaloVolume& volume);
HaloMode choose_halo_mode(const GraphPartition& partition);

// Rows (of one exchange of width 1) that `mode` moves in total.
int64_t exchanged_rows(const GraphPartition& partition, HaloMode mode);

// For AllGather: row of the gathered [ranks·max_block_rows, F] copy holding
// each of `rank`'s halo rows (owner·max_block_rows + offset in the owner's block).
std::vector<int32_t> allgather_positions(const RankPartition& partition);
std::vector<int32_t> allgather_positions(const GraphPartition& partition, int rank);

}  // namespace sgnn::distributed
