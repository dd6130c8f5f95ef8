#include "training/output/prediction_writer.hpp"

#include <bit>
#include <charconv>
#include <cstring>

#include "graph_io/atomic_file.hpp"
#include "training/output/npy_header.hpp"

namespace sgnn::training {

namespace {

static_assert(std::endian::native == std::endian::little, "the NPY descriptions below say little-endian ('<')");

bool is_npy(const std::filesystem::path& file) { return file.extension() == ".npy"; }

// Appends to a buffer that goes to the file in blocks, so a large graph's
// output never sits whole in memory as text.
class BlockWriter {
 public:
  BlockWriter(int fd, std::string name) : fd_(fd), name_(std::move(name)) { buffer_.reserve(kBlock + 4096); }
  void append(std::string_view text) {
    buffer_.append(text);
    if (buffer_.size() >= kBlock) flush();
  }
  void append_bytes(const void* data, std::size_t bytes) {
    append(std::string_view(static_cast<const char*>(data), bytes));
  }
  template <typename T>
  void append_number(T value) {
    char text[32];
    const auto result = std::to_chars(text, text + sizeof text, value);
    append(std::string_view(text, static_cast<std::size_t>(result.ptr - text)));
  }
  void flush() {
    graph_io::write_all(fd_, buffer_.data(), buffer_.size(), name_);
    buffer_.clear();
  }

 private:
  static constexpr std::size_t kBlock = std::size_t{1} << 20;
  int fd_;
  std::string name_;
  std::string buffer_;
};

// The host copy of a [N, W] float32 output and a check that `rows` index it.
Tensor host_rows(const Tensor& values, const OutputRows& rows, const char* what) {
  check_defined(values, "write_model_outputs", what);
  check_dtype(values, DType::Float32, "write_model_outputs", what);
  check_dim(values, 2, "write_model_outputs", what);
  SGNN_CHECK(rows.rows.size() == rows.ids.size(), "write_model_outputs: ", rows.rows.size(), " rows with ",
             rows.ids.size(), " ids");
  for (const int64_t row : rows.rows) {
    SGNN_CHECK(row >= 0 && row < values.size(0), "write_model_outputs: row ", row, " of ", what, " with ",
               values.size(0), " rows");
  }
  return values.to(Device::cpu());
}

// Writes `rows` of `values` [N, W] after each line's id (and class, when given).
void write_table(const std::filesystem::path& file, const Tensor& values, const int32_t* classes,
                 const OutputRows& rows, const char* column_prefix, const char* npy_field) {
  const int64_t width = values.size(1);
  const float* data = values.data<float>();
  graph_io::write_file_atomically(file, [&](int fd) {
    BlockWriter out(fd, file.string());
    if (is_npy(file)) {
      const std::string descr = detail::concat("[('node', '<i8'), ", classes != nullptr ? "('class', '<i4'), " : "",
                                               "('", npy_field, "', '<f4', (", width, ",))]");
      out.append(npy_header(descr, static_cast<int64_t>(rows.rows.size())));
      for (std::size_t k = 0; k < rows.rows.size(); ++k) {
        out.append_bytes(&rows.ids[k], sizeof(int64_t));
        if (classes != nullptr) out.append_bytes(&classes[rows.rows[k]], sizeof(int32_t));
        out.append_bytes(data + rows.rows[k] * width, static_cast<std::size_t>(width) * sizeof(float));
      }
    } else {
      out.append(classes != nullptr ? "node,class" : "node");
      for (int64_t c = 0; c < width; ++c) {
        out.append(",");
        out.append(column_prefix);
        out.append_number(c);
      }
      out.append("\n");
      for (std::size_t k = 0; k < rows.rows.size(); ++k) {
        out.append_number(rows.ids[k]);
        if (classes != nullptr) {
          out.append(",");
          out.append_number(classes[rows.rows[k]]);
        }
        const float* row = data + rows.rows[k] * width;
        for (int64_t c = 0; c < width; ++c) {
          out.append(",");
          out.append_number(row[c]);
        }
        out.append("\n");
      }
    }
    out.flush();
  });
}

}  // namespace

OutputRows output_rows(int64_t num_nodes, const Tensor& node_order, const std::vector<int32_t>& ids) {
  // row_of[id]: the graph row holding the dataset's node `id`.
  std::vector<int64_t> row_of(static_cast<std::size_t>(num_nodes));
  if (node_order.defined()) {
    check_dtype(node_order, DType::Int32, "output_rows", "node_order");
    SGNN_CHECK(node_order.numel() == num_nodes, "output_rows: node_order has ", node_order.numel(), " entries for ",
               num_nodes, " nodes");
    const Tensor order = node_order.to(Device::cpu());
    const int32_t* id_of_row = order.data<int32_t>();
    for (int64_t row = 0; row < num_nodes; ++row) {
      SGNN_CHECK(id_of_row[row] >= 0 && id_of_row[row] < num_nodes, "output_rows: node_order holds ", id_of_row[row]);
      row_of[static_cast<std::size_t>(id_of_row[row])] = row;
    }
  } else {
    for (int64_t id = 0; id < num_nodes; ++id) row_of[static_cast<std::size_t>(id)] = id;
  }
  OutputRows out;
  if (ids.empty()) {
    out.ids.resize(static_cast<std::size_t>(num_nodes));
    for (int64_t id = 0; id < num_nodes; ++id) out.ids[static_cast<std::size_t>(id)] = id;
  } else {
    out.ids.assign(ids.begin(), ids.end());
  }
  for (const int64_t id : out.ids) {
    SGNN_CHECK(id >= 0 && id < num_nodes, "output_rows: node id ", id, " outside the graph's ", num_nodes, " nodes");
    out.rows.push_back(row_of[static_cast<std::size_t>(id)]);
  }
  return out;
}

void write_predictions(const std::filesystem::path& file, const Tensor& probabilities, const Tensor& classes,
                       const OutputRows& rows) {
  const Tensor host_probabilities = host_rows(probabilities, rows, "probabilities");
  check_dtype(classes, DType::Int32, "write_predictions", "classes");
  SGNN_CHECK(classes.device().is_cpu() && classes.numel() == host_probabilities.size(0),
             "write_predictions: expected host classes for each of the ", host_probabilities.size(0), " rows");
  write_table(file, host_probabilities, classes.data<int32_t>(), rows, "p", "probabilities");
}

void write_embeddings(const std::filesystem::path& file, const Tensor& embeddings, const OutputRows& rows) {
  write_table(file, host_rows(embeddings, rows, "embeddings"), nullptr, rows, "e", "embedding");
}

void require_output_path(const std::filesystem::path& file, const std::string& flag) {
  std::error_code error;
  if (std::filesystem::is_directory(file, error)) throw IoError(file.string(), 0, flag + ": is a folder, not a file");
  const std::filesystem::path folder = file.parent_path().empty() ? std::filesystem::path(".") : file.parent_path();
  if (!std::filesystem::is_directory(folder, error)) {
    throw IoError(file.string(), 0, flag + ": the folder " + folder.string() + " does not exist");
  }
}

}  // namespace sgnn::training
