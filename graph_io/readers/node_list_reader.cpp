#include <string>

#include "graph_io/readers/file_text.hpp"
#include "graph_io/readers/line_parser.hpp"
#include "graph_io/readers/readers.hpp"

namespace sgnn::graph_io {

namespace {

struct NodeChunk {
  std::vector<int32_t> ids;
  std::vector<int64_t> lines;  // each id's line within the chunk (0-based)
  int64_t line_count = 0;      // lines seen, comments and blanks included
};

bool is_comment_or_blank(std::string_view line) {
  const std::size_t first = line.find_first_not_of(" \t");
  return first == std::string_view::npos || line[first] == '#' || line[first] == '%';
}

std::string_view trimmed(std::string_view line) {
  const std::size_t first = line.find_first_not_of(" \t");
  const std::size_t last = line.find_last_not_of(" \t");
  return line.substr(first, last - first + 1);
}

}  // namespace

std::vector<int32_t> read_node_list(const std::filesystem::path& file, int64_t num_nodes) {
  const std::string name = file.string();
  const std::string text = read_file_text(file);
  const std::string limit_source = detail::concat("the graph's ", num_nodes, " nodes");
  const auto chunks = parse_lines_parallel<NodeChunk>(text, name, [&](std::string_view line, NodeChunk& chunk) {
    const int64_t line_in_chunk = chunk.line_count++;
    if (is_comment_or_blank(line)) return;
    chunk.ids.push_back(parse_index(trimmed(line), "node id", num_nodes, limit_source));
    chunk.lines.push_back(line_in_chunk);
  });
  std::vector<int32_t> ids;
  std::vector<int64_t> first_line(static_cast<std::size_t>(num_nodes), 0);  // 1-based line of each id; 0 = unseen
  int64_t lines_before = 0;
  for (const NodeChunk& chunk : chunks) {
    for (std::size_t k = 0; k < chunk.ids.size(); ++k) {
      const int64_t line = lines_before + chunk.lines[k] + 1;
      int64_t& seen = first_line[static_cast<std::size_t>(chunk.ids[k])];
      if (seen != 0) {
        throw IoError(name, line,
                      detail::concat("node id ", chunk.ids[k], " is listed again (first on line ", seen, ")"));
      }
      seen = line;
      ids.push_back(chunk.ids[k]);
    }
    lines_before += chunk.line_count;
  }
  if (ids.empty()) throw IoError(name, 0, "lists no node id");
  return ids;
}

}  // namespace sgnn::graph_io
