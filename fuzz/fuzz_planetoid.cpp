// libFuzzer target: the pickle subset (graph_io/readers/pickle.hpp), the numpy and
// scipy views over its values (graph_io/readers/pickle_numpy.hpp), and
// read_planetoid with one of Cora's original files (tests/fixtures/planetoid)
// replaced by the fuzzer's bytes. The first byte picks what: 0 the pickle
// layer alone, 1-8 the file x, tx, allx, y, ty, ally, graph or test.index.
// Only sgnn::Error may escape, and a dataset that is returned is consistent.
#include <algorithm>
#include <array>
#include <numeric>

#include "core/error.hpp"
#include "fuzz/fuzz_input_file.hpp"
#include "graph_io/readers/pickle.hpp"
#include "graph_io/readers/pickle_numpy.hpp"
#include "graph_io/readers/planetoid_reader.hpp"

namespace {

namespace fs = std::filesystem;
namespace pickle = sgnn::graph_io::pickle;

constexpr std::array<const char*, 8> kParts = {"x", "tx", "allx", "y", "ty", "ally", "graph", "test.index"};

// scratch/<part>/: links to Cora's fixture files, except <part> itself (the fuzzer's).
const fs::path& folder_for(std::size_t replaced) {
  static const std::array<fs::path, kParts.size()> folders = [] {
    std::array<fs::path, kParts.size()> made;
    for (std::size_t r = 0; r < kParts.size(); ++r) {
      made[r] = sgnn::fuzz::scratch_folder() / "planetoid" / kParts[r];
      fs::create_directories(made[r]);
      for (std::size_t p = 0; p < kParts.size(); ++p) {
        const std::string name = std::string("ind.cora.") + kParts[p];
        if (p != r) fs::create_symlink(fs::path(SGNN_PLANETOID_FIXTURES) / name, made[r] / name);
      }
    }
    return made;
  }();
  return folders[replaced];
}

pickle::Limits small_limits() {
  pickle::Limits limits;
  limits.max_values = std::size_t{1} << 18;
  limits.max_items = std::size_t{1} << 18;
  limits.max_stack = std::size_t{1} << 16;
  limits.max_memo = std::size_t{1} << 16;
  return limits;
}

void fuzz_pickle_layer(const uint8_t* data, std::size_t size) {
  const pickle::Document document =
      pickle::parse(std::string(reinterpret_cast<const char*>(data), size), "input", small_limits());
  const pickle::Value& root = document.root();
  (void)pickle::describe(root);
  if (root.built_by("numpy.core.multiarray", "_reconstruct")) {
    const pickle::NdArray array = pickle::as_ndarray(root, "input", "array");
    if (array.rank() != 2 || array.shape[0] > 4096) return;
    std::vector<float> out(static_cast<std::size_t>(array.numel()));
    std::vector<int64_t> rows(static_cast<std::size_t>(array.shape[0]));
    std::iota(rows.begin(), rows.end(), 0);
    pickle::copy_rows(array, rows, out.data(), "input", "array");
  } else if (root.kind == pickle::Kind::Object) {
    const pickle::CsrMatrix matrix = pickle::as_csr_matrix(root, "input", "matrix");
    if (matrix.cols > 4096 || matrix.rows * std::max<int64_t>(matrix.cols, 1) > (int64_t{1} << 20)) return;
    std::vector<float> out(static_cast<std::size_t>(matrix.rows * matrix.cols), 0.0f);
    std::vector<int64_t> rows(static_cast<std::size_t>(matrix.rows));
    std::iota(rows.begin(), rows.end(), 0);
    pickle::densify_rows(matrix, rows, out.data(), "input", "matrix");
  }
}

void check_tensor_ids(const sgnn::Tensor& ids, int64_t num_nodes) {
  for (const int32_t id : ids.to_vector<int32_t>()) {
    if (id < 0 || id >= num_nodes) std::abort();
  }
}

void fuzz_reader(std::size_t replaced, const uint8_t* data, std::size_t size) {
  const fs::path& folder = folder_for(replaced);
  sgnn::fuzz::write_file(folder / (std::string("ind.cora.") + kParts[replaced]), data, size);
  sgnn::graph_io::PlanetoidLimits limits;
  limits.pickle = small_limits();
  limits.max_feature_bytes = int64_t{64} << 20;
  const sgnn::graph_io::Dataset d = sgnn::graph_io::read_planetoid(folder, "cora", limits);
  d.edges.validate();
  const int64_t n = d.num_nodes();
  if (d.features.size(0) != n || d.labels.numel() != n) std::abort();
  for (const int32_t label : d.labels.to_vector<int32_t>()) {
    if (label < 0 || label >= d.num_classes) std::abort();
  }
  check_tensor_ids(d.train_index, n);
  check_tensor_ids(d.valid_index, n);
  check_tensor_ids(d.test_index, n);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::size_t mode = data[0] % (kParts.size() + 1);
  try {
    if (mode == 0) fuzz_pickle_layer(data + 1, size - 1);
    else fuzz_reader(mode - 1, data + 1, size - 1);
  } catch (const sgnn::Error&) {
  }
  return 0;
}
