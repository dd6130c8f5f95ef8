#include "graph_io/readers/planetoid_reader.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <optional>
#include <string_view>

#include "graph_io/readers/file_text.hpp"
#include "graph_io/readers/line_parser.hpp"
#include "graph_io/readers/pickle_numpy.hpp"

namespace sgnn::graph_io {

namespace {

namespace fs = std::filesystem;
using pickle::Kind;
using pickle::Value;

constexpr std::string_view kParts[] = {"x", "tx", "allx", "y", "ty", "ally", "graph", "test.index"};
constexpr int64_t kValidNodes = 500;  // Planetoid's public split: the 500 nodes after the training nodes

fs::path part_file(const fs::path& folder, const std::string& name, std::string_view part) {
  return folder / detail::concat("ind.", name, ".", part);
}

// One of x, tx, allx: a csr_matrix, or a 2-D ndarray (PyG densifies either).
struct FeatureRows {
  std::string file;
  std::optional<pickle::CsrMatrix> sparse;
  pickle::NdArray dense;
  int64_t rows = 0;
  int64_t cols = 0;
};

FeatureRows feature_rows(const pickle::Document& document, std::string_view part) {
  FeatureRows features;
  features.file = document.name();
  const Value& root = document.root();
  if (root.built_by("numpy.core.multiarray", "_reconstruct") ||
      root.built_by("numpy._core.multiarray", "_reconstruct")) {
    features.dense = pickle::as_ndarray(root, features.file, part);
    if (features.dense.rank() != 2) {
      throw IoError(features.file, 0,
                    detail::concat(part, " is an array of rank ", features.dense.rank(), ", expected 2"));
    }
    features.rows = features.dense.shape[0];
    features.cols = features.dense.shape[1];
  } else {
    features.sparse = pickle::as_csr_matrix(root, features.file, part);
    features.rows = features.sparse->rows;
    features.cols = features.sparse->cols;
  }
  return features;
}

void write_feature_rows(const FeatureRows& features, std::span<const int64_t> row_of, float* destination,
                        std::string_view part) {
  if (features.sparse) {
    pickle::densify_rows(*features.sparse, row_of, destination, features.file, part);
  } else {
    pickle::copy_rows(features.dense, row_of, destination, features.file, part);
  }
}

// One of y, ty, ally: a 2-D numeric array with at least one column.
struct LabelRows {
  std::string file;
  pickle::NdArray array;
  int64_t rows() const { return array.shape[0]; }
  int64_t width() const { return array.shape[1]; }
};

LabelRows label_rows(const pickle::Document& document, std::string_view part) {
  LabelRows labels{document.name(), pickle::as_ndarray(document.root(), document.name(), part)};
  if (labels.array.rank() != 2 || labels.array.shape[1] == 0) {
    throw IoError(labels.file, 0,
                  detail::concat(part, " is an array of rank ", labels.array.rank(),
                                 labels.array.rank() == 2 ? " with no columns" : "", ", expected one-hot label rows"));
  }
  return labels;
}

// labels[row_of[r]] = the column of row r's first largest value, after the
// conversion to float32 that PyG applies before max(dim=1).
void write_label_rows(const LabelRows& labels, std::span<const int64_t> row_of, std::vector<int32_t>& destination,
                      std::string_view part) {
  for (int64_t row = 0; row < labels.rows(); ++row) {
    int64_t best = 0;
    float best_value = 0.0f;
    for (int64_t column = 0; column < labels.width(); ++column) {
      const float value = labels.array.float_at(labels.array.offset_of(row, column));
      if (!std::isfinite(value)) {
        throw IoError(labels.file, 0, detail::concat(part, " row ", row, " column ", column, " is not finite"));
      }
      if (column == 0 || value > best_value) {
        best = column;
        best_value = value;
      }
    }
    destination[static_cast<std::size_t>(row_of[static_cast<std::size_t>(row)])] = static_cast<int32_t>(best);
  }
}

std::vector<int64_t> read_test_index(const fs::path& file) {
  struct Ids {
    std::vector<int64_t> values;
  };
  const std::string text = read_file_text(file);
  const auto chunks = parse_lines_parallel<Ids>(text, file.string(), [](std::string_view line, Ids& ids) {
    const std::size_t first = line.find_first_not_of(" \t");
    line = first == std::string_view::npos ? std::string_view()
                                           : line.substr(first, line.find_last_not_of(" \t") - first + 1);
    const int64_t id = parse_integer(line, "test node id");
    if (id < 0 || id >= std::numeric_limits<int32_t>::max()) {
      throw LineError{detail::concat("test node id ", id, " is outside [0, 2^31 - 1)")};
    }
    ids.values.push_back(id);
  });
  std::vector<int64_t> ids(static_cast<std::size_t>(total_over(chunks, [](const Ids& c) { return c.values.size(); })));
  gather_into(chunks, &Ids::values, ids.data());
  if (ids.empty()) throw IoError(file.string(), 0, "empty file, expected one test node id per line");
  return ids;
}

// The node count the test ids imply, after checking they are a padded range
// starting at `first_test_node` without repeats.
int64_t check_test_index(const std::vector<int64_t>& ids, int64_t first_test_node, int64_t test_rows,
                         const std::string& file) {
  if (static_cast<int64_t>(ids.size()) != test_rows) {
    throw IoError(file, 0, detail::concat("lists ", ids.size(), " test nodes but tx and ty have ", test_rows, " rows"));
  }
  const auto [lowest, highest] = std::minmax_element(ids.begin(), ids.end());
  if (*lowest != first_test_node) {
    throw IoError(file, lowest - ids.begin() + 1,
                  detail::concat("the smallest test node id is ", *lowest, " but allx has ", first_test_node,
                                 " rows: the test nodes must come right after them"));
  }
  const int64_t range = *highest - *lowest + 1;
  // Citeseer leaves 15 of 1015 ids out (isolated nodes, padded with zeros); a
  // range far wider than the ids listed is a broken file, not padding.
  if (range - test_rows > test_rows) {
    throw IoError(file, highest - ids.begin() + 1,
                  detail::concat("test node id ", *highest, " leaves ", range - test_rows, " ids of [", *lowest, ", ",
                                 *highest, "] unlisted, more than the ", test_rows, " listed"));
  }
  std::vector<int64_t> line_of(static_cast<std::size_t>(range), 0);
  for (std::size_t k = 0; k < ids.size(); ++k) {
    int64_t& seen = line_of[static_cast<std::size_t>(ids[k] - *lowest)];
    if (seen != 0) {
      throw IoError(file, static_cast<int64_t>(k) + 1, detail::concat("test node id ", ids[k], " repeats line ", seen));
    }
    seen = static_cast<int64_t>(k) + 1;
  }
  return *highest + 1;
}

// The graph's key -> neighbours lists, later keys overwriting earlier ones as
// in a Python dict; ids checked against num_nodes.
std::vector<const Value*> adjacency_lists(const pickle::Document& document, int64_t num_nodes) {
  const std::string& file = document.name();
  const Value& root = document.root();
  if (root.kind != Kind::Dict && !root.built_by("collections", "defaultdict")) {
    throw IoError(file, 0,
                  detail::concat("graph is ", pickle::describe(root),
                                 ", expected a dict (or collections.defaultdict) of neighbour lists"));
  }
  const std::string limit = detail::concat("the ", num_nodes, " nodes (allx rows + test id range)");
  const auto check_id = [&](const Value& id, const char* what) {
    if (id.kind != Kind::Int) {
      throw IoError(file, 0, detail::concat("graph ", what, " is ", pickle::describe(id), ", expected an int"));
    }
    if (id.integer < 0 || id.integer >= num_nodes) {
      throw IoError(file, 0, detail::concat("graph ", what, " ", id.integer, " is outside ", limit));
    }
    return id.integer;
  };
  std::vector<const Value*> lists(static_cast<std::size_t>(num_nodes), nullptr);
  for (std::size_t i = 0; i < root.items.size(); i += 2) {
    const int64_t node = check_id(*root.items[i], "key");
    const Value& neighbours = *root.items[i + 1];
    if (neighbours.kind != Kind::List && neighbours.kind != Kind::Tuple) {
      throw IoError(file, 0,
                    detail::concat("graph entry of node ", node, " is ", pickle::describe(neighbours),
                                   ", expected a list of node ids"));
    }
    for (const Value* neighbour : neighbours.items) check_id(*neighbour, "neighbour id");
    lists[static_cast<std::size_t>(node)] = &neighbours;
  }
  return lists;
}

// PyG's edge_index_from_dict: key -> neighbour edges, self loops removed,
// then coalesce(sort_by_row=False): sorted by (target, source), duplicates merged.
EdgeList planetoid_edges(const std::vector<const Value*>& lists, int64_t num_nodes) {
  std::vector<uint64_t> keys;
  for (std::size_t node = 0; node < lists.size(); ++node) {
    if (lists[node] == nullptr) continue;
    for (const Value* neighbour : lists[node]->items) {
      const auto target = static_cast<uint64_t>(neighbour->integer);
      if (target != node) keys.push_back(target * static_cast<uint64_t>(num_nodes) + node);
    }
  }
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  EdgeList edges;
  edges.num_nodes = num_nodes;
  const auto count = static_cast<int64_t>(keys.size());
  edges.source = Tensor::empty({count}, DType::Int32);
  edges.target = Tensor::empty({count}, DType::Int32);
  auto* source = edges.source.data<int32_t>();
  auto* target = edges.target.data<int32_t>();
  for (std::size_t e = 0; e < keys.size(); ++e) {
    source[e] = static_cast<int32_t>(keys[e] % static_cast<uint64_t>(num_nodes));
    target[e] = static_cast<int32_t>(keys[e] / static_cast<uint64_t>(num_nodes));
  }
  return edges;
}

Tensor index_range(int64_t begin, int64_t end) {
  std::vector<int32_t> ids(static_cast<std::size_t>(end - begin));
  for (std::size_t k = 0; k < ids.size(); ++k) ids[k] = static_cast<int32_t>(begin + static_cast<int64_t>(k));
  return Tensor::from_vector(ids, {end - begin});
}

std::vector<int64_t> iota_rows(int64_t count) {
  std::vector<int64_t> rows(static_cast<std::size_t>(count));
  for (std::size_t k = 0; k < rows.size(); ++k) rows[k] = static_cast<int64_t>(k);
  return rows;
}

void check_rows(int64_t rows, int64_t expected_rows, const std::string& file, std::string_view part,
                std::string_view other) {
  if (rows != expected_rows) {
    throw IoError(file, 0, detail::concat(part, " has ", rows, " rows but ", other, " has ", expected_rows));
  }
}

void check_width(int64_t width, int64_t expected_width, const std::string& file, std::string_view part,
                 std::string_view other, const char* what) {
  if (width != expected_width) {
    throw IoError(file, 0, detail::concat(part, " has ", width, " ", what, " but ", other, " has ", expected_width));
  }
}

}  // namespace

Dataset read_planetoid(const fs::path& folder, const std::string& name, const PlanetoidLimits& limits) {
  const auto started = std::chrono::steady_clock::now();
  if (name.starts_with("nell.")) {
    throw IoError(part_file(folder, name, "graph").string(), 0,
                  "NELL's Planetoid files are not supported (PyG gives their relation nodes extra features)");
  }
  for (const std::string_view part : kParts) {
    const fs::path file = part_file(folder, name, part);
    std::error_code error;
    if (!fs::is_regular_file(file, error)) {
      throw IoError(file.string(), 0,
                    detail::concat("file not found (a Planetoid dataset is ind.", name,
                                   ".{x,tx,allx,y,ty,ally,graph,test.index} in ", folder.string(), ")"));
    }
  }
  const auto read = [&](std::string_view part) {
    return pickle::read_file(part_file(folder, name, part), limits.pickle);
  };
  const pickle::Document x_file = read("x");
  const pickle::Document tx_file = read("tx");
  const pickle::Document allx_file = read("allx");
  const pickle::Document y_file = read("y");
  const pickle::Document ty_file = read("ty");
  const pickle::Document ally_file = read("ally");
  const FeatureRows x = feature_rows(x_file, "x");
  const FeatureRows tx = feature_rows(tx_file, "tx");
  const FeatureRows allx = feature_rows(allx_file, "allx");
  const LabelRows y = label_rows(y_file, "y");
  const LabelRows ty = label_rows(ty_file, "ty");
  const LabelRows ally = label_rows(ally_file, "ally");

  // allx and ally are the references (a swapped-in file from another dataset
  // is named); then x/y and tx/ty must agree with each other.
  check_rows(ally.rows(), allx.rows, ally.file, "ally", "allx");
  check_width(x.cols, allx.cols, x.file, "x", "allx", "feature columns");
  check_width(tx.cols, allx.cols, tx.file, "tx", "allx", "feature columns");
  check_width(y.width(), ally.width(), y.file, "y", "ally", "label columns");
  check_width(ty.width(), ally.width(), ty.file, "ty", "ally", "label columns");
  check_rows(y.rows(), x.rows, y.file, "y", "x");
  check_rows(ty.rows(), tx.rows, ty.file, "ty", "tx");

  const fs::path test_file = part_file(folder, name, "test.index");
  const std::vector<int64_t> test_ids = read_test_index(test_file);
  const int64_t num_nodes = check_test_index(test_ids, allx.rows, tx.rows, test_file.string());
  if (y.rows() + kValidNodes > allx.rows) {
    throw IoError(y.file, 0,
                  detail::concat("y has ", y.rows(), " rows: the training nodes and the ", kValidNodes,
                                 " validation nodes after them must come before the test nodes, but allx has only ",
                                 allx.rows, " rows"));
  }
  const int64_t width = allx.cols;
  if (num_nodes > limits.max_feature_bytes / 4 / std::max<int64_t>(width, 1)) {
    throw IoError(allx.file, 0,
                  detail::concat(num_nodes, " nodes x ", width, " features are over the limit of ",
                                 limits.max_feature_bytes, " bytes of float32 features"));
  }

  // Node order: allx's rows, then tx row j at node test_ids[j] (PyG extends tx
  // to the id range with zero rows and moves row sorted[j] to test_ids[j]).
  const std::vector<int64_t> allx_nodes = iota_rows(allx.rows);
  Dataset dataset;
  dataset.name = name;
  dataset.source = folder.string();
  dataset.features = Tensor::zeros({num_nodes, width}, DType::Float32);
  write_feature_rows(allx, allx_nodes, dataset.features.data<float>(), "allx");
  write_feature_rows(tx, test_ids, dataset.features.data<float>(), "tx");
  std::vector<int32_t> labels(static_cast<std::size_t>(num_nodes), 0);
  write_label_rows(ally, allx_nodes, labels, "ally");
  write_label_rows(ty, test_ids, labels, "ty");
  dataset.num_classes = int64_t{*std::max_element(labels.begin(), labels.end())} + 1;
  dataset.labels = Tensor::from_vector(labels, {num_nodes});

  const pickle::Document graph_file = read("graph");
  dataset.edges = planetoid_edges(adjacency_lists(graph_file, num_nodes), num_nodes);

  std::vector<int64_t> sorted_test(test_ids);
  std::sort(sorted_test.begin(), sorted_test.end());
  dataset.train_index = index_range(0, y.rows());
  dataset.valid_index = index_range(y.rows(), y.rows() + kValidNodes);
  std::vector<int32_t> test(sorted_test.begin(), sorted_test.end());
  dataset.test_index = Tensor::from_vector(test, {static_cast<int64_t>(test.size())});
  dataset.read_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  return dataset;
}

bool is_planetoid_folder(const fs::path& folder, std::string* name) {
  std::error_code error;
  std::map<std::string, unsigned> parts_of;  // name -> bit per part found
  for (const auto& entry : fs::directory_iterator(folder, error)) {
    const std::string file = entry.path().filename().string();
    if (!file.starts_with("ind.")) continue;
    for (std::size_t p = 0; p < std::size(kParts); ++p) {
      const std::string suffix = detail::concat(".", kParts[p]);
      if (file.size() > 4 + suffix.size() && file.ends_with(suffix)) {
        parts_of[file.substr(4, file.size() - 4 - suffix.size())] |= 1u << p;
        break;
      }
    }
  }
  const unsigned all = (1u << std::size(kParts)) - 1;
  const auto complete =
      std::count_if(parts_of.begin(), parts_of.end(), [&](const auto& entry) { return entry.second == all; });
  if (error || complete != 1) return false;
  if (name != nullptr) {
    *name =
        std::find_if(parts_of.begin(), parts_of.end(), [&](const auto& entry) { return entry.second == all; })->first;
  }
  return true;
}

}  // namespace sgnn::graph_io
