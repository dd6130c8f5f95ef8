#include "graph_io/ogb_writer.hpp"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace sgnn::graph_io {

namespace {

namespace fs = std::filesystem;

// Formats rows [0, rows) with format_row(r, buffer) into per-block strings, in parallel.
template <typename FormatRow>
std::vector<std::string> format_rows(int64_t rows, const FormatRow& format_row) {
  constexpr int64_t kRowsPerBlock = 1 << 16;
  const int64_t blocks = (rows + kRowsPerBlock - 1) / kRowsPerBlock;
  std::vector<std::string> text(static_cast<std::size_t>(blocks));
#pragma omp parallel for schedule(dynamic, 1)
  for (int64_t b = 0; b < blocks; ++b) {
    std::string& out = text[static_cast<std::size_t>(b)];
    const int64_t end = std::min(rows, (b + 1) * kRowsPerBlock);
    for (int64_t r = b * kRowsPerBlock; r < end; ++r) format_row(r, out);
  }
  return text;
}

template <typename T>
void append_number(std::string& out, T value) {
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  out.append(buffer, result.ptr);
}

void write_blocks(const fs::path& file, const std::vector<std::string>& blocks, bool gzip) {
  const std::string name = file.string();
  if (gzip) {
    gzFile out = gzopen(name.c_str(), "wb1");
    if (out == nullptr) throw IoError(name, 0, "cannot create the file");
    for (const std::string& block : blocks) {
      std::size_t done = 0;
      while (done < block.size()) {
        const unsigned piece = static_cast<unsigned>(std::min<std::size_t>(block.size() - done, 1u << 30));
        if (gzwrite(out, block.data() + done, piece) != static_cast<int>(piece)) {
          gzclose(out);
          throw IoError(name, 0, "write failed");
        }
        done += piece;
      }
    }
    if (gzclose(out) != Z_OK) throw IoError(name, 0, "write failed when closing");
    return;
  }
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> out(std::fopen(name.c_str(), "wb"), &std::fclose);
  if (!out) throw IoError(name, 0, detail::concat("cannot create the file: ", std::strerror(errno)));
  for (const std::string& block : blocks) {
    if (std::fwrite(block.data(), 1, block.size(), out.get()) != block.size()) throw IoError(name, 0, "write failed");
  }
  if (std::fclose(out.release()) != 0) throw IoError(name, 0, "write failed when closing");
}

fs::path csv(const fs::path& folder, const char* stem, bool gzip) {
  return folder / (std::string(stem) + (gzip ? ".csv.gz" : ".csv"));
}

void write_column(const fs::path& file, const Tensor& values, bool gzip) {
  const std::vector<int32_t> v = values.to_vector<int32_t>();
  write_blocks(file,
               format_rows(static_cast<int64_t>(v.size()),
                           [&](int64_t r, std::string& out) {
                             append_number(out, v[static_cast<std::size_t>(r)]);
                             out += '\n';
                           }),
               gzip);
}

// A float32 [rows, width] tensor, one line per row.
void write_float_rows(const fs::path& file, const Tensor& values, bool gzip) {
  const Tensor host = values.to(Device::cpu());
  const float* x = host.data<float>();
  const int64_t width = host.size(1);
  write_blocks(file,
               format_rows(host.size(0),
                           [&](int64_t r, std::string& out) {
                             for (int64_t c = 0; c < width; ++c) {
                               if (c > 0) out += ',';
                               append_number(out, x[r * width + c]);
                             }
                             out += '\n';
                           }),
               gzip);
}

}  // namespace

void write_ogb_dataset(const Dataset& dataset, const fs::path& directory, const OgbWriteOptions& options) {
  const EdgeList& edges = dataset.edges;
  edges.validate_shapes();
  SGNN_CHECK(!edges.weight.defined(), "write_ogb_dataset: the OGB raw layout has no edge weights; drop them first");
  const int64_t n = edges.num_nodes;
  if (dataset.features.defined()) {
    SGNN_CHECK(dataset.features.dim() == 2 && dataset.features.size(0) == n && dataset.features.dtype() == DType::Float32,
               "write_ogb_dataset: features must be float32 [", n, ", F], got ", shape_str(dataset.features.shape()));
  }
  if (dataset.edge_features.defined()) {
    SGNN_CHECK(dataset.edge_features.dim() == 2 && dataset.edge_features.size(0) == edges.num_edges() &&
                   dataset.edge_features.dtype() == DType::Float32,
               "write_ogb_dataset: edge features must be float32 [", edges.num_edges(), ", F_e], got ",
               shape_str(dataset.edge_features.shape()));
  }
  if (dataset.labels.defined()) {
    SGNN_CHECK(dataset.labels.shape() == Shape{n} && dataset.labels.dtype() == DType::Int32,
               "write_ogb_dataset: labels must be int32 [", n, "]");
  }
  const fs::path raw = directory / "raw";
  std::error_code error;
  fs::create_directories(raw / "split", error);
  if (error) throw IoError((raw / "split").string(), 0, detail::concat("cannot create the folder: ", error.message()));
  const bool gzip = options.gzip;

  write_blocks(csv(raw, "num-node-list", gzip), {std::to_string(n) + "\n"}, gzip);
  write_blocks(csv(raw, "num-edge-list", gzip), {std::to_string(edges.num_edges()) + "\n"}, gzip);
  {
    const std::vector<int32_t> s = edges.num_edges() > 0 ? edges.source.to_vector<int32_t>() : std::vector<int32_t>{};
    const std::vector<int32_t> t = edges.num_edges() > 0 ? edges.target.to_vector<int32_t>() : std::vector<int32_t>{};
    write_blocks(csv(raw, "edge", gzip),
                 format_rows(edges.num_edges(),
                             [&](int64_t r, std::string& out) {
                               append_number(out, s[static_cast<std::size_t>(r)]);
                               out += ',';
                               append_number(out, t[static_cast<std::size_t>(r)]);
                               out += '\n';
                             }),
                 gzip);
  }
  if (dataset.features.defined()) write_float_rows(csv(raw, "node-feat", gzip), dataset.features, gzip);
  if (dataset.edge_features.defined()) write_float_rows(csv(raw, "edge-feat", gzip), dataset.edge_features, gzip);
  if (dataset.labels.defined()) write_column(csv(raw, "node-label", gzip), dataset.labels, gzip);
  const Tensor* splits[3] = {&dataset.train_index, &dataset.valid_index, &dataset.test_index};
  const char* names[3] = {"train", "valid", "test"};
  for (int s = 0; s < 3; ++s) {
    if (splits[s]->defined()) write_column(csv(raw / "split", names[s], gzip), *splits[s], gzip);
  }
}

}  // namespace sgnn::graph_io
