#include "distributed/partition_files.hpp"

#include <algorithm>
#include <charconv>
#include <map>
#include <regex>
#include <set>

#include "distributed/integer_collectives.hpp"
#include "distributed/local_adjacency.hpp"
#include "graph_io/fingerprint.hpp"
#include "graph_io/section_file.hpp"

namespace sgnn::distributed {

namespace {

namespace fs = std::filesystem;

constexpr const char* kKind = "rank-partition";
constexpr uint32_t kKindVersion = 1;

std::size_t at(int64_t i) { return static_cast<std::size_t>(i); }

template <typename T>
Tensor vector_tensor(const std::vector<T>& values) {
  return Tensor::from_vector(values, {static_cast<int64_t>(values.size())});
}

Tensor or_empty(const Tensor& tensor) { return tensor.defined() ? tensor : Tensor::empty({0}, DType::Int32); }

// Reads one file and turns every inconsistency into IoError(path, 0, reason).
class RankFileReader {
 public:
  RankFileReader(const fs::path& path, int rank, int ranks)
      : path_(path.string()), file_(graph_io::read_section_file(path, kKind, kKindVersion)), rank_(rank), ranks_(ranks) {}

  RankFile read() {
    RankFile result;
    RankShard& shard = result.shard;
    RankPartition& part = shard.partition;
    part.rank = static_cast<int>(integer("rank"));
    expect(integer("ranks") == ranks_ && part.rank == rank_, "it is part ", part.rank, " of ", integer("ranks"),
           ", expected part ", rank_, " of ", ranks_);
    part.num_nodes = integer("num_nodes");
    part.max_block_rows = integer("max_block_rows");
    part.total_halo_rows = integer("total_halo_rows");
    shard.global_train_rows = integer("global_train_rows");
    shard.num_classes = integer("num_classes");
    result.info.dataset = file_.meta("dataset");
    result.info.reordering = file_.meta("reordering");
    result.info.partition_id = static_cast<uint64_t>(integer("partition_id"));
    expect(shard.num_classes >= 2 && shard.global_train_rows >= 1, "num_classes ", shard.num_classes,
           " and global_train_rows ", shard.global_train_rows, " must be at least 2 and 1");

    part.boundaries = int64s("boundaries", ranks_ + 1);
    expect(part.boundaries.front() == 0 && part.boundaries.back() == part.num_nodes &&
               std::is_sorted(part.boundaries.begin(), part.boundaries.end()),
           "the boundaries must rise from 0 to num_nodes ", part.num_nodes);
    RankBlock& block = part.block;
    block.row_begin = part.boundaries[at(rank_)];
    block.row_end = part.boundaries[at(rank_) + 1];
    const int64_t rows = block.num_rows();
    expect(rows <= part.max_block_rows, "the block has ", rows, " rows, more than max_block_rows ",
           part.max_block_rows);

    const std::vector<int32_t> halo = int32s("halo_rows", -1);
    for (std::size_t h = 0; h < halo.size(); ++h) {
      expect(halo[h] >= 0 && halo[h] < part.num_nodes && (halo[h] < block.row_begin || halo[h] >= block.row_end) &&
                 (h == 0 || halo[h - 1] < halo[h]),
             "halo row ", h, " (", halo[h], ") must be a remote node id in [0, ", part.num_nodes,
             "), in increasing order");
    }
    block.halo_rows = halo;
    expect(static_cast<int64_t>(halo.size()) <= part.total_halo_rows, "the block has ", halo.size(),
           " halo rows, more than total_halo_rows ", part.total_halo_rows);
    block.halo_offsets = int64s("halo_offsets", ranks_ + 1);
    for (int owner = 0; owner <= ranks_; ++owner) {
      const auto first = std::lower_bound(halo.begin(), halo.end(), part.boundaries[at(owner)]) - halo.begin();
      expect(block.halo_offsets[at(owner)] == first, "halo_offsets[", owner, "] is ", block.halo_offsets[at(owner)],
             ", the halo rows put it at ", first);
    }

    const std::vector<int64_t> send_offsets = int64s("send_offsets", ranks_ + 1);
    const std::vector<int32_t> sends = int32s("send_rows", -1);
    expect(send_offsets.front() == 0 && send_offsets.back() == static_cast<int64_t>(sends.size()) &&
               std::is_sorted(send_offsets.begin(), send_offsets.end()) &&
               send_offsets[at(rank_)] == send_offsets[at(rank_) + 1],
           "send_offsets must rise from 0 to ", sends.size(), " with nothing sent to the rank itself");
    for (const int32_t row : sends) expect(row >= 0 && row < rows, "a sent row ", row, " is outside [0, ", rows, ")");
    block.send_rows.resize(at(ranks_));
    for (int peer = 0; peer < ranks_; ++peer) {
      block.send_rows[at(peer)].assign(sends.begin() + send_offsets[at(peer)], sends.begin() + send_offsets[at(peer) + 1]);
    }

    HostCsr csr;
    csr.num_rows = rows;
    csr.num_cols = rows + block.num_halo();
    csr.indptr = int64s("indptr", rows + 1);
    csr.indices = int32s("indices", -1);
    if (file_.has("values")) csr.values = floats("values", static_cast<int64_t>(csr.indices.size()));
    expect(csr.indptr.front() == 0 && csr.indptr.back() == static_cast<int64_t>(csr.indices.size()) &&
               std::is_sorted(csr.indptr.begin(), csr.indptr.end()),
           "indptr must rise from 0 to the ", csr.indices.size(), " entries");
    for (int64_t row = 0; row < rows; ++row) {
      for (int64_t k = csr.indptr[at(row)]; k < csr.indptr[at(row) + 1]; ++k) {
        const int32_t column = csr.indices[at(k)];
        expect(column >= 0 && column < csr.num_cols && (k == csr.indptr[at(row)] || csr.indices[at(k) - 1] < column),
               "row ", row, ": column ", column, " must be in [0, ", csr.num_cols, ") and above the row's previous one");
      }
    }
    block.adjacency = make_adjacency(csr);

    shard.features = tensor("features", DType::Float32, 2);
    expect(shard.features.size(0) == rows, "features has ", shard.features.size(0), " rows, the block ", rows);
    shard.labels = tensor("labels", DType::Int32, 1);
    expect(shard.labels.size(0) == rows, "labels has ", shard.labels.size(0), " rows, the block ", rows);
    for (const int32_t label : shard.labels.to_vector<int32_t>()) {
      expect(label >= 0 && label < shard.num_classes, "label ", label, " outside [0, ", shard.num_classes, ")");
    }
    shard.train_index = split("train_index", rows);
    shard.valid_index = split("valid_index", rows);
    if (file_.has("test_index")) shard.test_index = split("test_index", rows);
    if (file_.has("dataset_ids")) {
      shard.dataset_ids = tensor("dataset_ids", DType::Int32, 1);
      expect(shard.dataset_ids.size(0) == rows, "dataset_ids has ", shard.dataset_ids.size(0), " rows, the block ", rows);
    }
    return result;
  }

 private:
  template <typename... Parts>
  void expect(bool condition, const Parts&... reason) const {
    if (!condition) throw IoError(path_, 0, detail::concat(reason...));
  }

  int64_t integer(const std::string& key) const {
    const std::string& text = file_.meta(key);
    int64_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    expect(error == std::errc() && end == text.data() + text.size(), "metadata ", key, " is \"", text,
           "\", not an integer");
    return value;
  }

  // Section `name` of `dtype` with `dims` dimensions (any extents).
  Tensor tensor(const std::string& name, DType dtype, int64_t dims) const {
    const Tensor& section = file_.at(name);
    expect(section.dtype() == dtype && section.dim() == dims, "section ", name, " is ", dtype_name(section.dtype()), " ",
           shape_str(section.shape()), ", expected ", dtype_name(dtype), " with ", dims, " dimension(s)");
    return section;
  }
  // A one-dimensional section, of `length` elements unless length is -1.
  template <typename T>
  std::vector<T> vector(const std::string& name, DType dtype, int64_t length) const {
    const Tensor section = tensor(name, dtype, 1);
    expect(length < 0 || section.numel() == length, "section ", name, " has ", section.numel(), " elements, expected ",
           length);
    return section.to_vector<T>();
  }
  std::vector<int64_t> int64s(const std::string& name, int64_t length) const {
    return vector<int64_t>(name, DType::Int64, length);
  }
  std::vector<int32_t> int32s(const std::string& name, int64_t length) const {
    return vector<int32_t>(name, DType::Int32, length);
  }
  std::vector<float> floats(const std::string& name, int64_t length) const {
    return vector<float>(name, DType::Float32, length);
  }
  Tensor split(const std::string& name, int64_t rows) const {
    const Tensor index = tensor(name, DType::Int32, 1);
    std::set<int32_t> seen;
    for (const int32_t row : index.to_vector<int32_t>()) {
      expect(row >= 0 && row < rows && seen.insert(row).second, name, " holds ", row,
             ", outside the block's rows [0, ", rows, ") or repeated");
    }
    return index;
  }

  std::string path_;
  graph_io::SectionFile file_;
  int rank_;
  int ranks_;
};

// "part-<r>-of-<N>.sgnn" files in `folder` for another N, as "4 (4 files)".
std::string other_partitions(const fs::path& folder, int ranks) {
  static const std::regex pattern(R"(part-(\d+)-of-(\d+)\.sgnn)");
  std::map<std::string, int> files_per_count;
  std::error_code error;
  for (const fs::directory_entry& entry : fs::directory_iterator(folder, error)) {
    std::smatch match;
    const std::string name = entry.path().filename().string();
    if (std::regex_match(name, match, pattern) && match[2] != std::to_string(ranks)) ++files_per_count[match[2]];
  }
  std::string text;
  for (const auto& [count, files] : files_per_count) {
    text += detail::concat(text.empty() ? "" : ", ", count, " parts (", files, " files)");
  }
  return text;
}

uint64_t partition_id_of(const graph_io::Graph& graph, int ranks) {
  uint64_t id = graph_io::hash_combine(static_cast<uint64_t>(ranks), static_cast<uint64_t>(graph.num_nodes));
  for (const Tensor* tensor : {&graph.adjacency.csr.indptr, &graph.adjacency.csr.indices, &graph.adjacency.values,
                               &graph.features, &graph.labels, &graph.train_index, &graph.valid_index,
                               &graph.test_index, &graph.node_order}) {
    id = graph_io::hash_combine(id, graph_io::hash_tensor(*tensor));
  }
  return id;
}

Tensor on_host(const Tensor& tensor) { return tensor.defined() ? tensor.to(Device::cpu()) : Tensor(); }

}  // namespace

fs::path rank_file_path(const fs::path& folder, int rank, int ranks) {
  return folder / detail::concat("part-", rank, "-of-", ranks, ".sgnn");
}

void write_rank_file(const fs::path& path, const RankShard& shard, const PartitionFileInfo& info) {
  const RankPartition& part = shard.partition;
  const RankBlock& block = part.block;
  graph_io::SectionFile file;
  file.kind = kKind;
  file.kind_version = kKindVersion;
  file.fingerprint = info.partition_id;
  file.metadata = {{"rank", std::to_string(part.rank)},
                   {"ranks", std::to_string(part.num_ranks())},
                   {"num_nodes", std::to_string(part.num_nodes)},
                   {"max_block_rows", std::to_string(part.max_block_rows)},
                   {"total_halo_rows", std::to_string(part.total_halo_rows)},
                   {"global_train_rows", std::to_string(shard.global_train_rows)},
                   {"num_classes", std::to_string(shard.num_classes)},
                   {"dataset", info.dataset},
                   {"reordering", info.reordering},
                   {"partition_id", std::to_string(static_cast<int64_t>(info.partition_id))}};
  file.add("boundaries", vector_tensor(part.boundaries));
  const HostCsr csr = host_csr(block.adjacency.csr, block.adjacency.values);
  file.add("indptr", vector_tensor(csr.indptr));
  file.add("indices", vector_tensor(csr.indices));
  if (!csr.values.empty()) file.add("values", vector_tensor(csr.values));
  file.add("halo_rows", vector_tensor(block.halo_rows));
  file.add("halo_offsets", vector_tensor(block.halo_offsets));
  std::vector<int64_t> send_offsets{0};
  std::vector<int32_t> sends;
  for (const std::vector<int32_t>& rows : block.send_rows) {
    sends.insert(sends.end(), rows.begin(), rows.end());
    send_offsets.push_back(static_cast<int64_t>(sends.size()));
  }
  file.add("send_offsets", vector_tensor(send_offsets));
  file.add("send_rows", vector_tensor(sends));
  file.add("features", shard.features);
  file.add("labels", shard.labels);
  file.add("train_index", or_empty(shard.train_index));
  file.add("valid_index", or_empty(shard.valid_index));
  if (shard.test_index.defined()) file.add("test_index", shard.test_index);
  if (shard.dataset_ids.defined()) file.add("dataset_ids", shard.dataset_ids);
  graph_io::write_section_file(path, file);
}

uint64_t write_partition_files(const fs::path& folder, const graph_io::Graph& graph, int ranks,
                               PartitionFileInfo info) {
  SGNN_CHECK(graph.features.defined() && graph.labels.defined() && graph.train_index.defined() &&
                 graph.valid_index.defined(),
             "write_partition_files: the graph needs features, labels and train/valid splits");
  SGNN_CHECK(graph.num_nodes >= ranks, "write_partition_files: ", graph.num_nodes, " nodes cannot fill ", ranks,
             " parts");
  const Tensor features = on_host(graph.features);
  const Tensor labels = on_host(graph.labels);
  const Tensor train_index = on_host(graph.train_index);
  const Tensor valid_index = on_host(graph.valid_index);
  const Tensor test_index = on_host(graph.test_index);
  const GraphPartition partition = partition_graph(graph.adjacency, ranks);
  info.partition_id = partition_id_of(graph, ranks);
  fs::create_directories(folder);
  for (int rank = 0; rank < ranks; ++rank) {
    RankShard shard = make_rank_shard(partition, rank, features, labels, train_index, valid_index, test_index,
                                      graph.num_classes);
    if (graph.node_order.defined()) {
      const RankBlock& block = shard.partition.block;
      shard.dataset_ids = graph.node_order.narrow_rows(block.row_begin, block.row_end).clone();
    }
    write_rank_file(rank_file_path(folder, rank, ranks), shard, info);
  }
  return info.partition_id;
}

RankFile read_rank_file(const fs::path& folder, int rank, int ranks) {
  SGNN_CHECK(ranks >= 1 && rank >= 0 && rank < ranks, "read_rank_file: no rank ", rank, " of ", ranks);
  const fs::path path = rank_file_path(folder, rank, ranks);
  if (!fs::exists(path)) {
    const std::string others = fs::is_directory(folder) ? other_partitions(folder, ranks) : "";
    throw IoError(path.string(), 0,
                  others.empty()
                      ? detail::concat("missing: no partition into ", ranks, " parts here (run sgnn_partition --parts ",
                                       ranks, ")")
                      : detail::concat("missing: the folder holds a partition into ", others, ", this run has ", ranks,
                                       " ranks (run sgnn_partition --parts ", ranks, ", or start ", ranks, " ranks)"));
  }
  return RankFileReader(path, rank, ranks).read();
}

void check_same_partition(Communicator& communicator, uint64_t partition_id) {
  const std::vector<std::vector<int64_t>> ids = all_gather_integers(communicator, {static_cast<int64_t>(partition_id)});
  std::string differing;
  for (std::size_t rank = 0; rank < ids.size(); ++rank) {
    if (ids[rank][0] != ids[0][0]) differing += detail::concat(differing.empty() ? "" : ", ", rank);
  }
  SGNN_CHECK(differing.empty(), "the ranks read files of different partitionings: rank(s) ", differing,
             " differ from rank 0 (partition ids in the files' metadata); partition once with sgnn_partition and "
             "give every rank the same folder");
}

}  // namespace sgnn::distributed
