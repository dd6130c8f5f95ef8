#include "graph_io/readers/ogb_reader.hpp"

#include <algorithm>
#include <chrono>
#include <optional>
#include <stdexcept>

#include "graph_io/readers/fast_number_scan.hpp"
#include "graph_io/readers/file_text.hpp"
#include "graph_io/readers/line_parser.hpp"

namespace sgnn::graph_io {

namespace {

namespace fs = std::filesystem;

// <folder>/<stem>.csv.gz, else <folder>/<stem>.csv, else nothing.
std::optional<fs::path> find_csv(const fs::path& folder, const std::string& stem) {
  for (const char* suffix : {".csv.gz", ".csv"}) {
    fs::path candidate = folder / (stem + suffix);
    if (fs::exists(candidate)) return candidate;
  }
  return std::nullopt;
}

fs::path require_csv(const fs::path& folder, const std::string& stem) {
  if (auto found = find_csv(folder, stem)) return *found;
  throw IoError((folder / (stem + ".csv.gz")).string(), 0,
                detail::concat("file not found (looked for ", stem, ".csv.gz and ", stem, ".csv in ",
                               folder.string(), ")"));
}

fs::path raw_folder(const fs::path& directory) {
  if (find_csv(directory / "raw", "edge")) return directory / "raw";
  if (find_csv(directory, "edge")) return directory;
  return directory / "raw";
}

// A file holding exactly one non-negative integer (num-node-list, num-edge-list).
int64_t read_count(const fs::path& file, const char* what) {
  const std::string name = file.string();
  const FileText file_text = map_file_text(file);
  const std::string_view text = file_text.view();
  struct Values {
    std::vector<int64_t> values;
  };
  const auto states = parse_lines_parallel<Values>(text, name, [&](std::string_view line, Values& state) {
    const int64_t value = parse_integer(line, what);
    if (value < 0) throw LineError{detail::concat(what, " ", value, " is negative")};
    if (!state.values.empty()) {
      throw LineError{"expected a single line: this reader handles one graph (a node-property dataset)"};
    }
    state.values.push_back(value);
  });
  if (states.empty()) throw IoError(name, 0, detail::concat("empty file, expected the ", what));
  return states.front().values.front();
}

int64_t read_num_nodes(const fs::path& file) {
  const int64_t n = read_count(file, "node count");
  if (n >= (int64_t{1} << 31)) {
    throw IoError(file.string(), 1, detail::concat("node count ", n, " overflows the index type (int32)"));
  }
  return n;
}

// The strict parser of an edge line "src,dst": it defines what edge.csv may
// hold and every error; parse_edge_row's fast path only takes a shortcut.
void parse_edge_line(std::string_view line, int64_t num_nodes, const std::string& limit_source, int32_t& source,
                     int32_t& target) {
  std::string_view fields[2];
  const std::size_t count = split_fields(line, ',', fields, 2);
  if (count != 2) {
    throw LineError{detail::concat("expected 2 comma-separated node ids \"src,dst\", got ", count,
                                   " field(s): ", quoted(line))};
  }
  source = parse_index(fields[0], "source node id", num_nodes, limit_source);
  target = parse_index(fields[1], "target node id", num_nodes, limit_source);
}

// Parses the edge line starting at `line`; returns where the next line starts.
const char* parse_edge_row(const char* line, const char* end, int64_t num_nodes, const std::string& limit_source,
                           int32_t& source, int32_t& target) {
  // Fast path: "<digits>,<digits>" then the line end, in one pass over the bytes.
  const char* position = scan_index(line, end, num_nodes, source);
  if (position != nullptr && position < end && *position == ',') {
    position = scan_index(position + 1, end, num_nodes, target);
    if (const char* next = position != nullptr ? after_line_end(position, end) : nullptr) return next;
  }
  const char* next = nullptr;
  parse_edge_line(line_at(line, end, next), num_nodes, limit_source, source, target);
  return next;
}

EdgeList read_edges(const fs::path& file, int64_t num_nodes, const std::string& limit_source) {
  const FileText text = map_file_text(file);
  const RowChunks cut = cut_rows(text.view());
  EdgeList edges;
  edges.num_nodes = num_nodes;
  edges.source = Tensor::empty({cut.rows()}, DType::Int32);
  edges.target = Tensor::empty({cut.rows()}, DType::Int32);
  int32_t* sources = edges.source.data<int32_t>();
  int32_t* targets = edges.target.data<int32_t>();
  parse_rows_parallel(cut, file.string(), [&](const char* line, const char* end, int64_t row) {
    return parse_edge_row(line, end, num_nodes, limit_source, sources[row], targets[row]);
  });
  return edges;
}

// The strict parser of a feature line: `width` finite numbers separated by
// commas (the error names the first bad token, else a count other than
// width). Stores them in `row` unless it is nullptr.
void parse_feature_line(std::string_view line, int64_t width, float* row) {
  int64_t columns = 0;
  std::size_t begin = 0;
  for (;;) {
    const std::size_t end = line.find(',', begin);
    const std::string_view token =
        line.substr(begin, end == std::string_view::npos ? std::string_view::npos : end - begin);
    const float value = parse_finite_float(token, "feature value");
    if (row != nullptr && columns < width) row[columns] = value;
    ++columns;
    if (end == std::string_view::npos) break;
    begin = end + 1;
  }
  if (columns != width) {
    throw LineError{detail::concat("row has ", columns, " feature values, the rows before have ", width)};
  }
}

// Fast path of a feature line: the numbers read straight from the text (a
// number never spans a ',' or a line end, so it stops where its token does:
// no token search). Returns where the next line starts, or nullptr when the
// line needs the strict parser. `width` >= 1.
const char* parse_feature_row_fast(const char* line, const char* end, int64_t width, float* row) {
  const char* position = line;
  for (int64_t column = 0;; ++column) {
    const char* stop = scan_finite_float(position, end, row[column]);
    if (stop == nullptr) return nullptr;
    if (column + 1 == width) return after_line_end(stop, end);
    if (stop == end || *stop != ',') return nullptr;
    position = stop + 1;
  }
}

// Parses the feature line starting at `line` into `row` (nullptr: checks it
// only); returns where the next line starts.
const char* parse_feature_row(const char* line, const char* end, int64_t width, float* row) {
  if (row != nullptr) {
    if (const char* next = parse_feature_row_fast(line, end, width, row)) return next;
  }
  const char* next = nullptr;
  parse_feature_line(line_at(line, end, next), width, row);
  return next;
}

// What a file of float rows describes: one row per node (node-feat) or per
// edge (edge-feat), and where their expected count comes from.
struct RowKind {
  const char* row;          // "node", "edge"
  int64_t expected;         // rows the file must have
  std::string count_source; // "num-node-list says 5 nodes"
};

// A file of rows of finite numbers, all of the first row's width, exactly
// kind.expected of them: float32 [rows, width].
Tensor read_float_rows(const fs::path& file, const RowKind& kind) {
  const std::string name = file.string();
  const FileText text = map_file_text(file);
  const RowChunks cut = cut_rows(text.view());
  if (cut.rows() == 0) {
    if (kind.expected == 0) return Tensor::empty({0, 0}, DType::Float32);
    throw IoError(name, 0, detail::concat("empty file, expected one row of features per ", kind.row));
  }
  // The first row sets the width every row must have.
  const std::string_view first_line = cut.text.substr(0, cut.text.find('\n'));
  const int64_t width = std::count(first_line.begin(), first_line.end(), ',') + 1;
  // Each value takes 2 bytes at least ("0," or "0\n"), so more rows * width
  // than that means a short row: the rows are checked without allocating.
  if (width > static_cast<int64_t>((cut.text.size() + 1) / 2) / cut.rows()) {
    parse_rows_parallel(cut, name, [&](const char* line, const char* end, int64_t) {
      return parse_feature_row(line, end, width, nullptr);
    });
    throw std::logic_error("read_float_rows: no short row in a file too small for its rows");
  }
  Tensor features = Tensor::empty({cut.rows(), width}, DType::Float32);
  float* values = features.data<float>();
  parse_rows_parallel(cut, name, [&](const char* line, const char* end, int64_t row) {
    return parse_feature_row(line, end, width, values + row * width);
  });
  if (cut.rows() != kind.expected) {
    throw IoError(name, cut.rows() < kind.expected ? 0 : kind.expected + 1,
                  detail::concat("has ", cut.rows(), " feature rows but ", kind.count_source));
  }
  return features;
}

Tensor read_features(const fs::path& file, int64_t num_nodes) {
  return read_float_rows(file, {"node", num_nodes, detail::concat("num-node-list says ", num_nodes, " nodes")});
}

Tensor read_edge_features(const fs::path& file, const fs::path& edge_file, int64_t num_edges) {
  return read_float_rows(file, {"edge", num_edges,
                                detail::concat(edge_file.filename().string(), " has ", num_edges, " edges")});
}

// One integer per line, each checked by `parse`.
template <typename Parse>
std::vector<int32_t> read_column(const fs::path& file, const Parse& parse) {
  const std::string name = file.string();
  const FileText text = map_file_text(file);
  const RowChunks cut = cut_rows(text.view());
  std::vector<int32_t> values(static_cast<std::size_t>(cut.rows()));
  parse_rows_parallel(cut, name, [&](const char* line_start, const char* end, int64_t row) {
    const char* next = nullptr;
    const std::string_view line = line_at(line_start, end, next);
    std::string_view fields[1];
    const std::size_t count = split_fields(line, ',', fields, 1);
    if (count != 1) throw LineError{detail::concat("expected 1 value per line, got ", count, ": ", quoted(line))};
    values[static_cast<std::size_t>(row)] = parse(fields[0]);
    return next;
  });
  return values;
}

Tensor read_labels(const fs::path& file, int64_t num_nodes, int64_t& num_classes) {
  const std::vector<int32_t> labels = read_column(file, [](std::string_view token) {
    const int64_t label = parse_integer(token, "label");
    if (label < 0) throw LineError{detail::concat("label ", label, " out of range: labels must be >= 0")};
    if (label > INT32_MAX - 1) throw LineError{detail::concat("label ", label, " overflows the label type (int32)")};
    return static_cast<int32_t>(label);
  });
  const std::string name = file.string();
  if (labels.empty() && num_nodes > 0) throw IoError(name, 0, "empty file, expected one label per node");
  if (static_cast<int64_t>(labels.size()) != num_nodes) {
    throw IoError(name, static_cast<int64_t>(labels.size()) < num_nodes ? 0 : num_nodes + 1,
                  detail::concat("has ", labels.size(), " labels but num-node-list says ", num_nodes, " nodes"));
  }
  int32_t max_label = -1;
  for (const int32_t label : labels) max_label = std::max(max_label, label);
  num_classes = int64_t{max_label} + 1;
  return Tensor::from_vector(labels, {num_nodes});
}

// The folder holding train/valid/test, if any.
std::optional<fs::path> split_folder(const fs::path& directory, const fs::path& raw) {
  for (const fs::path& candidate : {raw / "split", directory / "split"}) {
    if (find_csv(candidate, "train")) return candidate;
  }
  // OGB keeps splits in split/<split type>/ (e.g. split/time/): accept exactly one such folder.
  std::error_code error;
  if (fs::is_directory(directory / "split", error)) {
    std::optional<fs::path> found;
    for (const auto& entry : fs::directory_iterator(directory / "split", error)) {
      if (entry.is_directory() && find_csv(entry.path(), "train")) {
        if (found) {
          throw IoError((directory / "split").string(), 0,
                        "holds several split folders; pass the one to use by arranging raw/split/");
        }
        found = entry.path();
      }
    }
    return found;
  }
  return std::nullopt;
}

void read_splits(const fs::path& folder, int64_t num_nodes, Dataset& dataset) {
  // owner[v]: 0 when node v is in no split yet, else 1 + the split that holds it
  std::vector<unsigned char> owner(static_cast<std::size_t>(num_nodes), 0);
  const char* names[3] = {"train", "valid", "test"};
  Tensor* targets[3] = {&dataset.train_index, &dataset.valid_index, &dataset.test_index};
  for (int s = 0; s < 3; ++s) {
    const fs::path file = require_csv(folder, names[s]);
    const std::string limit = detail::concat("num_nodes ", num_nodes, " from num-node-list");
    const std::vector<int32_t> ids = read_column(file, [&](std::string_view token) {
      return parse_index(token, "node id", num_nodes, limit);
    });
    for (std::size_t k = 0; k < ids.size(); ++k) {
      unsigned char& seen = owner[static_cast<std::size_t>(ids[k])];
      if (seen != 0) {
        throw IoError(file.string(), static_cast<int64_t>(k) + 1,
                      seen == s + 1 ? detail::concat("node id ", ids[k], " is repeated in this split")
                                    : detail::concat("node id ", ids[k], " is already in the ", names[seen - 1], " split"));
      }
      seen = static_cast<unsigned char>(s + 1);
    }
    *targets[s] = Tensor::from_vector(ids, {static_cast<int64_t>(ids.size())});
  }
}

}  // namespace

EdgeList read_ogb_edges(const fs::path& file, int64_t num_nodes) {
  return read_edges(file, num_nodes, detail::concat("num_nodes ", num_nodes, " (given)"));
}

Tensor read_ogb_features(const fs::path& file, int64_t num_nodes) { return read_features(file, num_nodes); }

bool is_ogb_directory(const fs::path& directory) {
  std::error_code error;
  return fs::is_directory(directory, error) && (find_csv(directory / "raw", "edge") || find_csv(directory, "edge"));
}

Dataset read_ogb_dataset(const fs::path& directory) {
  const auto started = std::chrono::steady_clock::now();
  std::error_code error;
  if (!fs::is_directory(directory, error)) {
    throw IoError(directory.string(), 0, "not a directory (expected an OGB raw-layout dataset folder)");
  }
  const fs::path raw = raw_folder(directory);
  Dataset dataset;
  const fs::path canonical = fs::weakly_canonical(directory, error);
  dataset.name = (canonical.filename() == "raw" ? canonical.parent_path() : canonical).filename().string();
  dataset.source = directory.string();

  const fs::path node_count_file = require_csv(raw, "num-node-list");
  const int64_t num_nodes = read_num_nodes(node_count_file);
  const std::string limit = detail::concat("num_nodes ", num_nodes, " from ", node_count_file.filename().string());
  const fs::path edge_file = require_csv(raw, "edge");
  dataset.edges = read_edges(edge_file, num_nodes, limit);
  const auto edge_count_file = find_csv(raw, "num-edge-list");
  if (!edge_count_file && dataset.edges.num_edges() == 0) {
    throw IoError(edge_file.string(), 0, "empty file, expected one \"src,dst\" line per edge");
  }
  if (edge_count_file) {
    const int64_t expected = read_count(*edge_count_file, "edge count");
    const int64_t got = dataset.edges.num_edges();
    if (got != expected) {
      throw IoError(edge_file.string(), got < expected ? 0 : expected + 1,
                    detail::concat("has ", got, " edges but ", edge_count_file->filename().string(), " says ", expected));
    }
  }
  if (auto edge_feature_file = find_csv(raw, "edge-feat")) {
    dataset.edge_features = read_edge_features(*edge_feature_file, edge_file, dataset.edges.num_edges());
  }
  if (auto feature_file = find_csv(raw, "node-feat")) dataset.features = read_features(*feature_file, num_nodes);
  if (auto label_file = find_csv(raw, "node-label")) dataset.labels = read_labels(*label_file, num_nodes, dataset.num_classes);
  if (auto folder = split_folder(directory, raw)) read_splits(*folder, num_nodes, dataset);
  dataset.read_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  return dataset;
}

}  // namespace sgnn::graph_io
