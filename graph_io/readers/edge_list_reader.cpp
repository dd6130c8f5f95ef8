#include <algorithm>
#include <chrono>

#include "graph_io/readers/file_text.hpp"
#include "graph_io/readers/line_parser.hpp"
#include "graph_io/readers/readers.hpp"

namespace sgnn::graph_io {

namespace {

bool is_separator(char c) { return c == ' ' || c == '\t' || c == ','; }

// Splits at runs of spaces/tabs, or one comma (with optional spaces around
// it); returns the field count (fields beyond max_fields are counted, not kept).
std::size_t split_edge_fields(std::string_view line, std::string_view* fields, std::size_t max_fields) {
  std::size_t count = 0;
  std::size_t position = 0;
  while (position < line.size() && (line[position] == ' ' || line[position] == '\t')) ++position;
  while (position < line.size()) {
    std::size_t end = position;
    while (end < line.size() && !is_separator(line[end])) ++end;
    if (count < max_fields) fields[count] = line.substr(position, end - position);
    ++count;
    // Skip blanks, at most one comma, blanks again.
    while (end < line.size() && (line[end] == ' ' || line[end] == '\t')) ++end;
    if (end < line.size() && line[end] == ',') {
      ++end;
      while (end < line.size() && (line[end] == ' ' || line[end] == '\t')) ++end;
      if (end == line.size() || line[end] == ',') {
        if (count < max_fields) fields[count] = std::string_view();
        ++count;  // an empty field: reported as a non-numeric token
      }
    }
    position = end;
  }
  return count;
}

bool is_comment_or_blank(std::string_view line) {
  const std::size_t first = line.find_first_not_of(" \t");
  return first == std::string_view::npos || line[first] == '#' || line[first] == '%';
}

struct EdgeChunk {
  std::vector<int32_t> source;
  std::vector<int32_t> target;
  std::vector<float> weight;
  int32_t max_id = -1;
  int width = 0;               // fields per edge line in this chunk (0: none yet)
  int64_t lines = 0;           // lines seen, comments included
  int64_t first_edge_line = 0; // index (in this chunk) of the first edge line
  void reserve(std::size_t bytes, std::string_view first_line) {
    source.reserve(estimated_lines(bytes, first_line));
    target.reserve(estimated_lines(bytes, first_line));
  }
};

}  // namespace

Dataset read_edge_list(const std::filesystem::path& file, const EdgeListOptions& options) {
  const auto started = std::chrono::steady_clock::now();
  const std::string name = file.string();
  if (options.num_nodes < -1 || options.num_nodes >= (int64_t{1} << 31)) {
    throw InvalidArgument(detail::concat("read_edge_list: num_nodes ", options.num_nodes, " out of range [-1, 2^31)"));
  }
  const FileText file_text = map_file_text(file);
  const std::string_view text = file_text.view();
  const int64_t offset = options.one_based ? 1 : 0;
  const int64_t limit = options.num_nodes >= 0 ? options.num_nodes : int64_t{INT32_MAX};
  const std::string limit_source = options.num_nodes >= 0 ? detail::concat("num_nodes ", options.num_nodes, " (given)")
                                                          : std::string("the largest supported id 2^31 - 2");
  auto parse_id = [&](std::string_view token, const char* what) {
    const int64_t raw = parse_integer(token, what);
    if (options.one_based && raw == 0) throw LineError{detail::concat(what, " 0 in a file read as 1-based")};
    const int64_t id = raw - offset;
    if (id < 0) throw LineError{detail::concat(what, " ", raw, " is negative")};
    if (id >= INT32_MAX) throw LineError{detail::concat(what, " ", raw, " overflows the index type (int32)")};
    if (id >= limit) throw LineError{detail::concat(what, " ", raw, " >= ", limit_source)};
    return static_cast<int32_t>(id);
  };
  const auto chunks = parse_lines_parallel<EdgeChunk>(text, name, [&](std::string_view line, EdgeChunk& chunk) {
    ++chunk.lines;
    if (is_comment_or_blank(line)) return;
    std::string_view fields[3];
    const std::size_t count = split_edge_fields(line, fields, 3);
    if (count != 2 && count != 3) {
      throw LineError{detail::concat("expected \"src dst\" or \"src dst weight\", got ", count, " field(s): ", quoted(line))};
    }
    if (chunk.width == 0) {
      chunk.width = static_cast<int>(count);
      chunk.first_edge_line = chunk.lines - 1;
    }
    if (static_cast<int>(count) != chunk.width) {
      throw LineError{detail::concat("line has ", count, " fields, the edge lines before have ", chunk.width)};
    }
    const int32_t source = parse_id(fields[0], "source node id");
    const int32_t target = parse_id(fields[1], "target node id");
    chunk.source.push_back(source);
    chunk.target.push_back(target);
    chunk.max_id = std::max({chunk.max_id, source, target});
    if (count == 3) chunk.weight.push_back(parse_finite_float(fields[2], "edge weight"));
  });

  int width = 0;
  int64_t lines_before = 0;  // to locate a width change between chunks
  int32_t max_id = -1;
  for (const EdgeChunk& chunk : chunks) {
    if (chunk.width != 0 && width != 0 && chunk.width != width) {
      throw IoError(name, lines_before + chunk.first_edge_line + 1,
                    detail::concat("line has ", chunk.width, " fields, the edge lines before have ", width));
    }
    if (chunk.width != 0) width = chunk.width;
    max_id = std::max(max_id, chunk.max_id);
    lines_before += chunk.lines;
  }
  const int64_t e = total_over(chunks, [](const EdgeChunk& c) { return c.source.size(); });
  if (e == 0) throw IoError(name, 0, "empty file: no edge lines (only comments or blank lines)");

  Dataset dataset;
  dataset.name = file.stem().string();
  if (dataset.name.ends_with(".txt") || dataset.name.ends_with(".csv") || dataset.name.ends_with(".tsv")) {
    dataset.name.resize(dataset.name.size() - 4);
  }
  dataset.source = name;
  dataset.edges.num_nodes = options.num_nodes >= 0 ? options.num_nodes : int64_t{max_id} + 1;
  dataset.edges.source = Tensor::empty({e}, DType::Int32);
  dataset.edges.target = Tensor::empty({e}, DType::Int32);
  gather_into(chunks, &EdgeChunk::source, dataset.edges.source.data<int32_t>());
  gather_into(chunks, &EdgeChunk::target, dataset.edges.target.data<int32_t>());
  if (width == 3) {
    dataset.edges.weight = Tensor::empty({e}, DType::Float32);
    gather_into(chunks, &EdgeChunk::weight, dataset.edges.weight.data<float>());
  }
  dataset.read_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  return dataset;
}

}  // namespace sgnn::graph_io
