#include "graph_io/processed_dataset.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <sstream>

#include "graph_io/fingerprint.hpp"
#include "graph_io/mapped_file.hpp"
#include "graph_io/section_file.hpp"

namespace sgnn::graph_io {

namespace {

namespace fs = std::filesystem;

constexpr const char* kKind = "processed-dataset";
constexpr const char* kProcessedFolder = "processed";

// The dataset's tensors by section name, in the order they are stored.
template <typename DatasetType>  // Dataset or const Dataset
auto sections_of(DatasetType& dataset) {
  return std::vector<std::pair<std::string, decltype(&dataset.features)>>{{"edges.source", &dataset.edges.source}, {"edges.target", &dataset.edges.target},
          {"edges.weight", &dataset.edges.weight}, {"edge_features", &dataset.edge_features},
          {"csr.indptr", &dataset.csr.indptr},
          {"csr.indices", &dataset.csr.indices}, {"features", &dataset.features},
          {"labels", &dataset.labels},             {"train_index", &dataset.train_index},
          {"valid_index", &dataset.valid_index},   {"test_index", &dataset.test_index}};
}

// Sections large enough that their check is worth folding into a later pass.
bool is_large_section(const std::string& name) {
  return name.starts_with("edges.") || name.starts_with("csr.") || name == "features" || name == "edge_features";
}

InputStamp stamp_of(const fs::path& file, std::string relative) {
  struct stat status {};
  if (::stat(file.c_str(), &status) != 0) throw IoError(file.string(), 0, "cannot stat an input file of the dataset");
  InputStamp stamp;
  stamp.path = std::move(relative);
  stamp.bytes = static_cast<uint64_t>(status.st_size);
  stamp.modified_ns = static_cast<int64_t>(status.st_mtim.tv_sec) * 1'000'000'000 + status.st_mtim.tv_nsec;
  return stamp;
}

std::string encode_stamps(const std::vector<InputStamp>& stamps) {
  std::ostringstream out;
  for (const InputStamp& stamp : stamps) out << stamp.bytes << ' ' << stamp.modified_ns << ' ' << stamp.path << '\n';
  return out.str();
}

std::vector<InputStamp> decode_stamps(const std::string& text, const std::string& file) {
  std::vector<InputStamp> stamps;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    InputStamp stamp;
    std::istringstream fields(line);
    fields >> stamp.bytes >> stamp.modified_ns;
    if (!fields || fields.get() != ' ') throw IoError(file, 0, "metadata \"inputs\" is not a list of stamps");
    std::getline(fields, stamp.path);
    stamps.push_back(std::move(stamp));
  }
  return stamps;
}

int64_t parse_count(const SectionFile& contents, const std::string& key) {
  const std::string& text = contents.meta(key);
  try {
    std::size_t used = 0;
    const long long value = std::stoll(text, &used);
    if (used == text.size() && value >= 0) return value;
  } catch (const std::exception&) {
  }
  throw IoError(contents.source, 0, detail::concat("metadata ", key, "=\"", text, "\" is not a count"));
}

// The first difference in names or sizes between the stamps a file was made
// from and today's ("" when there is none: at most the times differ).
std::string difference(const std::vector<InputStamp>& stored, const std::vector<InputStamp>& current) {
  const auto named = [](const std::vector<InputStamp>& stamps, const std::string& path) {
    return std::any_of(stamps.begin(), stamps.end(), [&](const InputStamp& stamp) { return stamp.path == path; });
  };
  for (const InputStamp& stamp : stored) {
    if (!named(current, stamp.path)) return detail::concat("input file ", stamp.path, " is gone");
  }
  for (const InputStamp& stamp : current) {
    if (!named(stored, stamp.path)) return detail::concat("new input file ", stamp.path);
  }
  for (std::size_t i = 0; i < stored.size(); ++i) {  // same names, same (sorted) order
    if (stored[i].bytes != current[i].bytes) {
      return detail::concat("input file ", stored[i].path, " changed size (", stored[i].bytes, " -> ", current[i].bytes,
                            " bytes)");
    }
  }
  return "";
}

int64_t parse_signed(const SectionFile& contents, const std::string& key) {
  const std::string& text = contents.meta(key);
  try {
    std::size_t used = 0;
    const long long value = std::stoll(text, &used);
    if (used == text.size()) return value;
  } catch (const std::exception&) {
  }
  throw IoError(contents.source, 0, detail::concat("metadata ", key, "=\"", text, "\" is not a number"));
}

int64_t wall_clock_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Whether a file of format `version` lacks what the readers parse from
// `stamps` today: readers before version 3 skipped an edge-feat file.
bool misses_edge_features(uint32_t version, const std::vector<InputStamp>& stamps) {
  return version < 3 && std::any_of(stamps.begin(), stamps.end(), [](const InputStamp& stamp) {
           const std::string name = fs::path(stamp.path).filename().string();
           return name == "edge-feat.csv" || name == "edge-feat.csv.gz";
         });
}

// File times advance in clock ticks of up to a few milliseconds: an input
// modified less than a second before it was stamped may change again without
// its time changing.
bool racy(const std::vector<InputStamp>& stamps, int64_t stamped_at_ns) {
  constexpr int64_t kGranularityNs = 1'000'000'000;
  return std::any_of(stamps.begin(), stamps.end(),
                     [&](const InputStamp& stamp) { return stamp.modified_ns > stamped_at_ns - kGranularityNs; });
}

void require(bool condition, const std::string& file, const std::string& what) {
  if (!condition) throw IoError(file, 0, detail::concat("inconsistent processed dataset: ", what));
}

// The message is built only for a bad id: building it for each one cost a
// warm start 0.1 s on a graph of 262,144 nodes (labels and splits).
void require_ids(const Tensor& ids, int64_t bound, const std::string& file, const char* what) {
  const int32_t* data = ids.data<int32_t>();
  for (int64_t i = 0; i < ids.numel(); ++i) {
    if (data[i] < 0 || data[i] >= bound) {
      require(false, file, detail::concat(what, " out of range: entry ", i, " is ", data[i], ", not in [0, ", bound, ")"));
    }
  }
}

// A prebuilt CSR: both arrays, shapes and types, offsets that start at 0
// and end at the entry count (its rows are as the writer stored them, under
// the file's checksums).
void check_csr_sections(const Csr& csr, int64_t n, const std::string& file) {
  require(csr.indptr.defined() && csr.indices.defined(), file, "a CSR section without the other");
  require(csr.indices.dtype() == DType::Int32 && csr.indices.dim() == 1, file, "csr.indices is not int32 [nnz]");
  const int64_t nnz = csr.indices.numel();
  require(csr.indptr.dtype() == csr_offset_dtype(nnz) && csr.indptr.shape() == Shape{n + 1}, file,
          "csr.indptr is not [num_nodes + 1] of the offset type of its entry count");
  const auto offset = [&](int64_t row) {
    return csr.indptr.dtype() == DType::Int64 ? csr.indptr.data<int64_t>()[row] : csr.indptr.data<int32_t>()[row];
  };
  require(offset(0) == 0 && offset(n) == nnz, file, "csr.indptr does not run from 0 to the entry count");
}

// The shapes and small contents of a mapped dataset, before anything uses it.
void check_contents(const Dataset& dataset, const std::string& file) {
  const int64_t n = dataset.num_nodes();
  const EdgeList& edges = dataset.edges;
  require(n >= 0 && n < (int64_t{1} << 31), file, "num_nodes out of range");
  if (dataset.csr.indptr.defined() || dataset.csr.indices.defined()) {
    check_csr_sections(dataset.csr, n, file);
  } else {
    require(edges.source.defined() && edges.target.defined(), file, "no edges");
    require(edges.source.dtype() == DType::Int32 && edges.target.dtype() == DType::Int32 && edges.source.dim() == 1 &&
                edges.target.shape() == edges.source.shape(),
            file, "edge sections of different lengths or types");
    require(!edges.weight.defined() ||
                (edges.weight.dtype() == DType::Float32 && edges.weight.shape() == edges.source.shape()),
            file, "edge weights do not fit the edges");
  }
  require(!dataset.edge_features.defined() ||
              (edges.source.defined() && dataset.edge_features.dtype() == DType::Float32 &&
               dataset.edge_features.dim() == 2 && dataset.edge_features.size(0) == edges.num_edges()),
          file, "edge features are not [num_edges, F_e] float32");
  require(!dataset.features.defined() || (is_floating(dataset.features.dtype()) && dataset.features.dim() == 2 &&
                                          dataset.features.size(0) == n),
          file, "features are not [num_nodes, F] float32 or bfloat16");
  if (dataset.labels.defined()) {
    require(dataset.labels.dtype() == DType::Int32 && dataset.labels.shape() == Shape{n}, file,
            "labels are not [num_nodes] int32");
    require_ids(dataset.labels, std::max<int64_t>(dataset.num_classes, 0), file, "a label");
  }
  for (const Tensor* split : {&dataset.train_index, &dataset.valid_index, &dataset.test_index}) {
    if (!split->defined()) continue;
    require(split->dtype() == DType::Int32 && split->dim() == 1, file, "a split is not a list of int32 node ids");
    require_ids(*split, n, file, "a split's node id");
  }
}

}  // namespace

int64_t stamp_time_now() { return wall_clock_ns(); }

std::vector<InputStamp> input_stamps(const fs::path& location) {
  std::error_code error;
  std::vector<InputStamp> stamps;
  if (!fs::is_directory(location, error)) {
    stamps.push_back(stamp_of(location, location.filename().string()));
    return stamps;
  }
  for (auto it = fs::recursive_directory_iterator(location, error); !error && it != fs::recursive_directory_iterator();
       it.increment(error)) {
    const fs::path relative = it->path().lexically_relative(location);
    if (it.depth() == 0 && it->is_directory() && relative == kProcessedFolder) {
      it.disable_recursion_pending();  // our own output, not an input
      continue;
    }
    if (it->is_regular_file()) stamps.push_back(stamp_of(it->path(), relative.generic_string()));
  }
  if (error) throw IoError(location.string(), 0, detail::concat("cannot list the dataset's files: ", error.message()));
  std::sort(stamps.begin(), stamps.end(), [](const InputStamp& a, const InputStamp& b) { return a.path < b.path; });
  return stamps;
}

uint64_t hash_inputs(const fs::path& location, const std::vector<InputStamp>& stamps) {
  std::error_code error;
  const bool folder = fs::is_directory(location, error);
  uint64_t state = hash_combine(0x5347'4e4e'5052'4f43ull, stamps.size());
  for (const InputStamp& stamp : stamps) {
    const fs::path file = folder ? location / stamp.path : location;
    const std::shared_ptr<const MappedFile> mapped = MappedFile::open(file);
    state = hash_bytes(stamp.path.data(), stamp.path.size(), state);
    state = hash_bytes(mapped->data(), mapped->size(), state);
  }
  return state;
}

fs::path processed_path_beside(const fs::path& location) {
  std::error_code error;
  if (fs::is_directory(location, error)) return location / kProcessedFolder / "dataset.sgnn";
  return location.parent_path() / kProcessedFolder / (location.filename().string() + ".sgnn");
}

fs::path processed_path_in_cache(const fs::path& location, const fs::path& cache_folder) {
  std::error_code error;
  const std::string absolute = fs::absolute(location, error).lexically_normal().string();
  char name[64];
  std::snprintf(name, sizeof(name), "processed-%016llx.sgnn",
                static_cast<unsigned long long>(hash_bytes(absolute.data(), absolute.size())));
  return cache_folder / name;
}

void store_processed_dataset(const fs::path& file, const Dataset& dataset, const std::vector<InputStamp>& stamps,
                             uint64_t input_hash, int64_t stamped_at_ns) {
  SectionFile contents;
  contents.kind = kKind;
  contents.kind_version = kProcessedDatasetVersion;
  contents.fingerprint = input_hash;
  contents.metadata["name"] = dataset.name;
  contents.metadata["num_nodes"] = std::to_string(dataset.num_nodes());
  contents.metadata["num_classes"] = std::to_string(dataset.num_classes);
  contents.metadata["inputs"] = encode_stamps(stamps);
  contents.metadata["stamped_at_ns"] = std::to_string(stamped_at_ns);
  for (const auto& [name, tensor] : sections_of(dataset)) {
    if (tensor->defined()) contents.add(name, *tensor);
  }
  write_section_file(file, contents);
}

std::optional<Dataset> load_processed_dataset(const fs::path& file, const fs::path& location, bool defer_checks,
                                              std::string& problem) {
  problem.clear();
  std::error_code error;
  if (!fs::exists(file, error)) return std::nullopt;
  const auto started = std::chrono::steady_clock::now();
  try {
    SectionFile contents = map_section_file(file, kKind, kOldestProcessedDatasetVersion, kProcessedDatasetVersion);
    const std::vector<InputStamp> stored = decode_stamps(contents.meta("inputs"), file.string());
    const std::vector<InputStamp> current = input_stamps(location);
    if (misses_edge_features(contents.kind_version, current)) {
      throw IoError(file.string(), 0,
                    detail::concat("stale: format version ", contents.kind_version,
                                   " holds no edge features, and the dataset has an edge-feat file"));
    }
    bool restamp = false;
    if (stored == current && racy(stored, parse_signed(contents, "stamped_at_ns"))) {
      // A file rewritten within the clock's granularity of the stamp may keep
      // its size and time: only its bytes tell (git's "racily clean" case).
      if (hash_inputs(location, current) != contents.fingerprint) {
        throw IoError(file.string(), 0, "stale: an input file changed right after it was stamped");
      }
    } else if (stored != current) {
      const std::string changed = difference(stored, current);
      if (!changed.empty()) throw IoError(file.string(), 0, "stale: " + changed);
      // Same files, sizes and names; only times moved (a copy, a touch): compare the bytes.
      if (hash_inputs(location, current) != contents.fingerprint) {
        throw IoError(file.string(), 0, "stale: the input files' contents changed");
      }
      restamp = true;
    }
    Dataset dataset;
    dataset.name = contents.meta("name");
    dataset.source = location.string();
    dataset.num_classes = parse_count(contents, "num_classes");
    dataset.edges.num_nodes = parse_count(contents, "num_nodes");
    dataset.fingerprint = contents.fingerprint;
    for (const auto& [name, tensor] : sections_of(dataset)) {
      if (contents.has(name)) *tensor = contents.at(name);
    }
    if (dataset.csr.indices.defined()) {
      dataset.csr.num_rows = dataset.csr.num_cols = dataset.num_nodes();
      dataset.csr.nnz = dataset.csr.indices.numel();
    }
    const std::map<std::string, uint32_t, std::less<>> unverified = contents.unverified_crc;  // verify() erases
    for (const auto& [name, crc] : unverified) {
      if (is_large_section(name) && defer_checks && !restamp) {
        dataset.unchecked[name] = crc;
      } else {
        contents.verify(name);
      }
    }
    check_contents(dataset, file.string());
    dataset.load.processed_hit = true;
    dataset.load.processed_path = file.string();
    if (restamp) {
      store_processed_dataset(file, dataset, current, contents.fingerprint, wall_clock_ns());
      dataset.load.note = "the input files were touched but are unchanged: processed file re-stamped";
    }
    dataset.read_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
    return dataset;
  } catch (const IoError& failure) {
    problem = failure.what();
    return std::nullopt;
  }
}

void verify_section(Dataset& dataset, const std::string& section) {
  const auto found = dataset.unchecked.find(section);
  if (found == dataset.unchecked.end()) return;
  for (const auto& [name, tensor] : sections_of(dataset)) {
    if (name != section) continue;
    if (crc32_of(tensor->raw_data(), tensor->nbytes()) != found->second) {
      throw IoError(dataset.load.processed_path, 0,
                    detail::concat("corrupt: checksum mismatch in section \"", section,
                                   "\"; delete the file to rebuild it from the raw files"));
    }
  }
  dataset.unchecked.erase(found);
}

void verify_all_sections(Dataset& dataset) {
  while (!dataset.unchecked.empty()) verify_section(dataset, dataset.unchecked.begin()->first);
}

}  // namespace sgnn::graph_io
