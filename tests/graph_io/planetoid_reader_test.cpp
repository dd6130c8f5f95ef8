#include "graph_io/readers/planetoid_reader.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <functional>

#include "graph_io/load_dataset.hpp"
#include "graph_io/readers/ogb_reader.hpp"
#include "tests/graph_io/pickle_bytes.hpp"
#include "tests/graph_io/temp_files.hpp"

using namespace sgnn;
using namespace sgnn::graph_io;
using sgnn::testing::TempDir;

namespace fs = std::filesystem;

namespace {

constexpr const char* kParts[] = {"x", "tx", "allx", "y", "ty", "ally", "graph", "test.index"};

// tests/fixtures/planetoid: the original files (SGNN_PLANETOID_FIXTURES is set by tests/CMakeLists.txt).
fs::path fixtures() { return SGNN_PLANETOID_FIXTURES; }

fs::path part(const fs::path& folder, const std::string& name, const std::string& which) {
  return folder / ("ind." + name + "." + which);
}

// A temporary folder holding one fixture set, where a test may change files.
struct PlanetoidCopy {
  TempDir dir;
  std::string name;
  explicit PlanetoidCopy(const std::string& dataset = "cora") : name(dataset) {
    for (const char* which : kParts) fs::copy_file(part(fixtures(), name, which), file(which));
  }
  fs::path file(const std::string& which) const { return part(dir.path(), name, which); }
  std::string bytes(const std::string& which) const { return sgnn::testing::read_bytes(file(which)); }
  void write(const std::string& which, const std::string& bytes) const {
    sgnn::testing::write_text(file(which), bytes);
  }
  // Replaces the first occurrence of `from` in a file by `to`.
  void replace(const std::string& which, const std::string& from, const std::string& to) const {
    std::string contents = bytes(which);
    const std::size_t at = contents.find(from);
    REQUIRE(at != std::string::npos);
    write(which, contents.replace(at, from.size(), to));
  }
};

// The IoError reading `copy` throws; checks it names `which`'s file and says `reason_part`.
void check_error(const PlanetoidCopy& copy, const std::string& which, const std::string& reason_part,
                 const PlanetoidLimits& limits = {}) {
  try {
    read_planetoid(copy.dir.path(), copy.name, limits);
    FAIL("no IoError (expected one about " << which << ": " << reason_part << ")");
  } catch (const IoError& error) {
    INFO(error.what());
    CHECK(error.file() == copy.file(which).string());
    CHECK(error.reason().find(reason_part) != std::string::npos);
  }
}

template <std::size_t N>
std::string b(const char (&text)[N]) {
  return std::string(text, N - 1);
}

template <typename T>
bool same_bytes(const Tensor& a, const Tensor& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() &&
         std::memcmp(a.data<T>(), b.data<T>(), static_cast<std::size_t>(a.numel()) * sizeof(T)) == 0;
}

struct Counts {
  const char* name;
  int64_t nodes, edges, features, classes, train, valid, test;
};

void check_against_pyg(const Counts& expected) {
  const Dataset d = read_planetoid(fixtures(), expected.name);
  CHECK(d.name == expected.name);
  CHECK(d.num_nodes() == expected.nodes);
  CHECK(d.edges.num_edges() == expected.edges);
  CHECK(d.features.shape() == Shape{expected.nodes, expected.features});
  CHECK(d.num_classes == expected.classes);
  CHECK(d.train_index.numel() == expected.train);
  CHECK(d.valid_index.numel() == expected.valid);
  CHECK(d.test_index.numel() == expected.test);
  d.edges.validate();
  // The bundled datasets/<name> are PyG's Planetoid output written in the OGB layout.
  const Dataset pyg = read_ogb_dataset(sgnn::testing::bundled_dataset(expected.name));
  CHECK(d.num_nodes() == pyg.num_nodes());
  CHECK(same_bytes<int32_t>(d.edges.source, pyg.edges.source));
  CHECK(same_bytes<int32_t>(d.edges.target, pyg.edges.target));
  CHECK(same_bytes<float>(d.features, pyg.features));
  CHECK(same_bytes<int32_t>(d.labels, pyg.labels));
  CHECK(d.num_classes == pyg.num_classes);
  CHECK(same_bytes<int32_t>(d.train_index, pyg.train_index));
  CHECK(same_bytes<int32_t>(d.valid_index, pyg.valid_index));
  CHECK(same_bytes<int32_t>(d.test_index, pyg.test_index));
}

// Cora's test.index: tx and ty row j belong to node test_ids[j].
std::vector<int64_t> cora_test_ids() {
  std::vector<int64_t> test_ids;
  const std::string text = sgnn::testing::read_bytes(part(fixtures(), "cora", "test.index"));
  for (std::size_t begin = 0, end; (end = text.find('\n', begin)) != std::string::npos; begin = end + 1) {
    test_ids.push_back(std::stoll(text.substr(begin, end - begin)));
  }
  REQUIRE(test_ids.size() == 1000);
  return test_ids;
}

}  // namespace

TEST_CASE("Planetoid reader gives PyG's Cora and Citeseer byte for byte") {
  check_against_pyg({"cora", 2708, 10556, 1433, 7, 140, 500, 1000});
  check_against_pyg({"citeseer", 3327, 9104, 3703, 6, 120, 500, 1000});
}

TEST_CASE("Planetoid reader: Citeseer's unlisted test-range nodes are zero rows with label 0, edges sorted by target") {
  const Dataset d = read_planetoid(fixtures(), "citeseer");
  const std::vector<int32_t> test = d.test_index.to_vector<int32_t>();
  CHECK(std::is_sorted(test.begin(), test.end()));
  const std::vector<float> features = d.features.to_vector<float>();
  const std::vector<int32_t> labels = d.labels.to_vector<int32_t>();
  int64_t padded = 0;
  for (int32_t node = 2312; node < 3327; ++node) {
    if (std::binary_search(test.begin(), test.end(), node)) continue;
    ++padded;
    CHECK(labels[static_cast<std::size_t>(node)] == 0);
    const auto row = features.begin() + int64_t{node} * 3703;
    CHECK(std::all_of(row, row + 3703, [](float v) { return v == 0.0f; }));
  }
  CHECK(padded == 15);
  const std::vector<int32_t> source = d.edges.source.to_vector<int32_t>();
  const std::vector<int32_t> target = d.edges.target.to_vector<int32_t>();
  for (std::size_t e = 0; e < source.size(); ++e) {
    CHECK(source[e] != target[e]);
    if (e > 0) CHECK(std::pair(target[e - 1], source[e - 1]) < std::pair(target[e], source[e]));
  }
}

TEST_CASE(
    "Planetoid reader: a dense tx (C order float32, Fortran order big-endian float64) gives the csr tx's features") {
  const Dataset reference = read_planetoid(fixtures(), "cora");
  const std::vector<float> features = reference.features.to_vector<float>();
  const std::vector<int64_t> test_ids = cora_test_ids();
  std::vector<float> c_order;
  std::string fortran_big_endian;
  for (std::size_t j = 0; j < test_ids.size(); ++j) {
    c_order.insert(c_order.end(), features.begin() + test_ids[j] * 1433, features.begin() + (test_ids[j] + 1) * 1433);
  }
  for (int64_t column = 0; column < 1433; ++column) {
    for (std::size_t j = 0; j < test_ids.size(); ++j) {
      const double value = c_order[j * 1433 + static_cast<std::size_t>(column)];
      uint64_t bits = 0;
      std::memcpy(&bits, &value, 8);
      for (int i = 7; i >= 0; --i) fortran_big_endian += static_cast<char>((bits >> (8 * i)) & 0xff);
    }
  }
  const PlanetoidCopy copy;
  copy.write("tx", sgnn::testing::ndarray_pickle("f4", '<', {1000, 1433}, false, sgnn::testing::bytes_of(c_order)));
  CHECK(same_bytes<float>(read_planetoid(copy.dir.path(), "cora").features, reference.features));
  copy.write("tx", sgnn::testing::ndarray_pickle("f8", '>', {1000, 1433}, true, fortran_big_endian));
  CHECK(same_bytes<float>(read_planetoid(copy.dir.path(), "cora").features, reference.features));
}

TEST_CASE("Planetoid reader: a label row's class is its first largest entry (ties, zero rows, float32 labels)") {
  const Dataset reference = read_planetoid(fixtures(), "cora");
  std::vector<int32_t> expected = reference.labels.to_vector<int32_t>();
  const std::vector<int64_t> test_ids = cora_test_ids();
  std::vector<float> ty(1000 * 7, 0.0f);
  for (std::size_t j = 0; j < test_ids.size(); ++j) {
    ty[j * 7 + static_cast<std::size_t>(expected[static_cast<std::size_t>(test_ids[j])])] = 1.0f;
  }
  std::fill(ty.begin(), ty.begin() + 7, 1.0f);                    // a tie of seven: class 0
  std::fill(ty.begin() + 7, ty.begin() + 14, 0.0f);               // no entry at all: class 0
  const std::vector<float> row2{0, -1, 0.5f, 0.5f, 0, 0.25f, 0};  // a tie of two: the first
  std::copy(row2.begin(), row2.end(), ty.begin() + 14);
  expected[static_cast<std::size_t>(test_ids[0])] = 0;
  expected[static_cast<std::size_t>(test_ids[1])] = 0;
  expected[static_cast<std::size_t>(test_ids[2])] = 2;
  const PlanetoidCopy copy;
  copy.write("ty", sgnn::testing::ndarray_pickle("f4", '<', {1000, 7}, false, sgnn::testing::bytes_of(ty)));
  CHECK(read_planetoid(copy.dir.path(), "cora").labels.to_vector<int32_t>() == expected);
}

TEST_CASE("Planetoid folders are recognised by their one complete set of files, and load_dataset reads them") {
  std::string name;
  CHECK_FALSE(is_planetoid_folder(fixtures(), &name));  // cora and citeseer: two sets
  const PlanetoidCopy copy;
  CHECK(is_planetoid_folder(copy.dir.path(), &name));
  CHECK(name == "cora");
  const Dataset d = load_dataset(copy.dir.path().string());
  CHECK(d.name == "cora");
  CHECK(d.source == copy.dir.path().string());
  CHECK(d.edges.num_edges() == 10556);
  fs::remove(copy.file("test.index"));
  CHECK_FALSE(is_planetoid_folder(copy.dir.path()));
  CHECK_THROWS_WITH_AS(load_dataset(copy.dir.path().string()), doctest::Contains("nor one set of Planetoid files"),
                       IoError);
  CHECK_FALSE(is_planetoid_folder(copy.dir.path() / "missing"));
}

TEST_CASE("Planetoid reader: missing, truncated and malformed pickles name their file") {
  {
    const PlanetoidCopy copy;
    fs::remove(copy.file("ally"));
    check_error(copy, "ally", "file not found");
  }
  for (const char* which : {"x", "y", "graph"}) {  // a csr_matrix, an ndarray, a defaultdict
    const PlanetoidCopy copy;
    const std::string bytes = copy.bytes(which);
    copy.write(which, bytes.substr(0, bytes.size() / 2));
    check_error(copy, which, "truncated");
  }
  {
    const PlanetoidCopy copy;
    std::string bytes = copy.bytes("ty");
    bytes.back() = '\xff';  // STOP -> an opcode outside the subset
    copy.write("ty", bytes);
    check_error(copy, "ty", "unsupported pickle opcode 0xff");
  }
  {
    const PlanetoidCopy copy;  // y's data: NEWFALSE then BINSTRING of 3920 bytes, declared 2^31 - 1
    copy.replace("y", b("\x89T\x50\x0f\x00\x00"), b("\x89T\xff\xff\xff\x7f"));
    check_error(copy, "y", "BINSTRING of 2147483647 bytes is over the limit");
    copy.replace("y", b("\x89T\xff\xff\xff\x7f"), b("\x89T\x50\x0f\x00\x00"));
    PlanetoidLimits limits;  // the caller's limits apply to every file: x's indices are 10588 bytes
    limits.pickle.max_string_bytes = 10000;
    check_error(copy, "x", "BINSTRING of 10588 bytes is over the limit of 10000", limits);
    limits = {};
    limits.pickle.max_values = 1000;
    check_error(copy, "graph", "more than 1000 values", limits);
  }
  {
    const PlanetoidCopy copy;
    copy.write("tx", copy.bytes("tx") + "N");
    check_error(copy, "tx", "1 bytes after STOP");
  }
}

TEST_CASE("Planetoid reader: wrong types name their file") {
  const PlanetoidCopy cora;
  {
    const PlanetoidCopy copy;
    copy.write("x", cora.bytes("graph"));
    check_error(copy, "x", "x is an object built by collections.defaultdict, expected a scipy.sparse.csr_matrix");
  }
  {
    const PlanetoidCopy copy;
    copy.write("ally", cora.bytes("allx"));
    check_error(copy, "ally", "ally is an object built by scipy.sparse.csr.csr_matrix, expected a numpy.ndarray");
  }
  {
    const PlanetoidCopy copy;
    copy.write("graph", cora.bytes("y"));
    check_error(copy, "graph", "graph is an object built by numpy.core.multiarray._reconstruct, expected a dict");
  }
  {
    const PlanetoidCopy copy;
    copy.replace("ty", "U\x02i4", "U\x02S4");
    check_error(copy, "ty", "ty has dtype 'S4', expected a bool, integer or float32/float64 dtype");
  }
  {
    const PlanetoidCopy copy;
    copy.write("y", sgnn::testing::ndarray_pickle("i4", '<', {140}, false, std::string(560, '\0')));
    check_error(copy, "y", "y is an array of rank 1, expected one-hot label rows");
  }
  {
    const PlanetoidCopy copy;  // graph key 0 -> [633, ...] becomes "0" -> [...]
    copy.replace("graph", b("(K\x00]"),
                 b("(U\x01"
                   "0]"));
    check_error(copy, "graph", "graph key is a byte string, expected an int");
  }
  {
    const PlanetoidCopy copy;  // node 3's list [2544] becomes the int 2544
    copy.replace("graph",
                 b("K\x03]q\x07M\xf0\x09"
                   "a"),
                 b("K\x03M\xf0\x09"));
    check_error(copy, "graph", "graph entry of node 3 is an int, expected a list of node ids");
  }
}

TEST_CASE("Planetoid reader: files that disagree name the file at fault") {
  const PlanetoidCopy citeseer("citeseer");
  const std::pair<const char*, const char*> swaps[] = {
      {"y", "y has 6 label columns but ally has 7"},           {"ty", "ty has 6 label columns but ally has 7"},
      {"ally", "ally has 2312 rows but allx has 1708"},        {"x", "x has 3703 feature columns but allx has 1433"},
      {"tx", "tx has 3703 feature columns but allx has 1433"},
  };
  for (const auto& [which, reason] : swaps) {
    const PlanetoidCopy copy;
    copy.write(which, citeseer.bytes(which));
    check_error(copy, which, reason);
  }
  const PlanetoidCopy cora;
  const std::string test_index = cora.bytes("test.index");  // 2692, 2532, ... in file order
  const auto with_test_index = [](const std::string& text, const std::string& reason) {
    const PlanetoidCopy copy;
    copy.write("test.index", text);
    check_error(copy, "test.index", reason);
  };
  with_test_index(test_index.substr(test_index.find('\n') + 1), "lists 999 test nodes but tx and ty have 1000 rows");
  with_test_index("5\n" + test_index.substr(test_index.find('\n') + 1),
                  "the smallest test node id is 5 but allx has 1708 rows");
  with_test_index("1708\n" + test_index.substr(test_index.find('\n') + 1), "test node id 1708 repeats line");
  with_test_index("99999\n" + test_index.substr(test_index.find('\n') + 1),
                  "leaves 97292 ids of [1708, 99999] unlisted");
  with_test_index("abc\n" + test_index.substr(test_index.find('\n') + 1), "expected an integer test node id");
  with_test_index("-3\n" + test_index.substr(test_index.find('\n') + 1), "test node id -3 is outside");
  with_test_index("\n", "empty file");
  {
    const PlanetoidCopy copy;  // node 0's neighbour 633 becomes 5000
    copy.replace("graph", b("M\x79\x02"), b("M\x88\x13"));
    check_error(copy, "graph", "graph neighbour id 5000 is outside the 2708 nodes");
  }
  {
    const PlanetoidCopy copy;  // the first key 0 becomes 2708
    copy.replace("graph", b("(K\x00]"), b("(M\x94\x0a]"));
    check_error(copy, "graph", "graph key 2708 is outside the 2708 nodes");
  }
  {
    const PlanetoidCopy copy;  // 1300 training nodes + 500 validation nodes do not fit before the test nodes at 1708
    copy.write("y", sgnn::testing::ndarray_pickle("i4", '<', {1300, 7}, false, std::string(1300 * 7 * 4, '\0')));
    copy.write("x", sgnn::testing::csr_pickle(1300, 1433, std::vector<int32_t>(1301, 0), {}, "f4", ""));
    check_error(copy, "y", "y has 1300 rows: the training nodes and the 500 validation nodes");
  }
}

TEST_CASE("Planetoid reader: NaN features, the feature memory limit and NELL are refused") {
  {
    const PlanetoidCopy copy;  // the first 1.0f of allx's data becomes NaN
    copy.replace("allx", b("\x00\x00\x80\x3f"), b("\x00\x00\xc0\x7f"));
    check_error(copy, "allx", "is not finite in float32");
  }
  {
    const PlanetoidCopy copy;
    PlanetoidLimits limits;
    limits.max_feature_bytes = 1 << 20;
    check_error(copy, "allx", "2708 nodes x 1433 features are over the limit of 1048576 bytes", limits);
  }
  {
    const PlanetoidCopy copy("cora");
    CHECK_THROWS_WITH_AS(read_planetoid(copy.dir.path(), "nell.0.001"), doctest::Contains("NELL"), IoError);
  }
}
